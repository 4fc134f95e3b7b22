// The wizard's presets (contract/presets.ts) against the configs they are and the data commands of
// docs/experiments.md ("few", "chain"): the wizard's synthesis jobs must make the sets those commands make.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CURRICULUM_PRESET, FEW_DEMOS_PRESET, WIZARD_PRESETS, presetConfigDifferences, type WizardPreset } from '../../main/lab/contract/presets';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import { makeParams, presetForms } from '../../renderer/src/components/runs/wizard/wizardData';

const LOOKUP = { kinds: [], anchorProb: 1, maxConstraints: 0, perShape: 100_000 };
const data = { graphId: 'g', datasetId: 'train', heldOutDatasetId: 'held', rlDatasetId: '' };
const configOf = (p: WizardPreset): Record<string, unknown> => JSON.parse(readFileSync(p.configFile, 'utf8')) as Record<string, unknown>;

describe('the wizard presets', () => {
  it('are their config files: the same fields beside the data, and the files parse', () => {
    for (const p of WIZARD_PRESETS) {
      const { name: _name, data: _data, ...rest } = configOf(p);
      expect(rest, p.id).toEqual(p.config);
      expect(presetConfigDifferences(p, configOf(p)), p.id).toEqual([]);
      expect(() => parseRunConfig({ ...configOf(p), data: { graphId: 'g', datasetId: 'd', heldOutDatasetId: 'h' } })).not.toThrow();
    }
  });

  it('few demonstrations: the "few" commands (graph --rng 7 --max-edges 12000; 400 / 300 / 1400 one-hop lookups, rng 1 / 2 / 3)', () => {
    const make = presetForms(FEW_DEMOS_PRESET);
    expect(makeParams('graph', make, data)).toEqual({ rng: 7, maxEdges: 12000 });
    expect(makeParams('train', make, data)).toEqual({ graphId: 'g', count: 400, rng: 1, minEdges: 1, maxEdges: 1, ...LOOKUP });
    expect(makeParams('heldOut', make, data)).toEqual({ graphId: 'g', count: 300, rng: 2, minEdges: 1, maxEdges: 1, ...LOOKUP, excludeDatasetIds: ['train'] });
    expect(makeParams('rl', make, data)).toEqual({ graphId: 'g', count: 1400, rng: 3, minEdges: 1, maxEdges: 1, ...LOOKUP, excludeDatasetIds: ['train', 'held'], allowFewer: true });
  });

  it('the curriculum: the "chain" commands (2400 lookups of 1-2 edges; 300 held-out and 300 RL of exactly 2)', () => {
    const make = presetForms(CURRICULUM_PRESET);
    expect(makeParams('graph', make, data)).toEqual({ rng: 7, maxEdges: 12000 });
    expect(makeParams('train', make, data)).toEqual({ graphId: 'g', count: 2400, rng: 1, minEdges: 1, maxEdges: 2, ...LOOKUP });
    expect(makeParams('heldOut', make, data)).toEqual({ graphId: 'g', count: 300, rng: 2, minEdges: 2, maxEdges: 2, ...LOOKUP, excludeDatasetIds: ['train'] });
    expect(makeParams('rl', make, data)).toEqual({ graphId: 'g', count: 300, rng: 3, minEdges: 2, maxEdges: 2, ...LOOKUP, excludeDatasetIds: ['train', 'held'], allowFewer: true });
  });

  it('name what a config changed from the preset, and an RL stage it lacks', () => {
    expect(presetConfigDifferences(FEW_DEMOS_PRESET, { sft: { steps: 2000 }, checkpoint: { every: 500 }, rl: { pool: 'fixed', steps: 20, evalEvery: 20 } })).toEqual(['sft.steps', 'rl.pool']);
    expect(presetConfigDifferences(CURRICULUM_PRESET, { sft: { steps: 3000 } })).toEqual(['rl']);
    expect(presetConfigDifferences(CURRICULUM_PRESET, { rl: { steps: 40 } })).toEqual([]);
  });

  it('mark every measured figure with the seeds it stands on', () => {
    for (const p of WIZARD_PRESETS) for (const f of p.expectation.figures) expect(f.seeds, `${p.id}: ${f.what}`).toBeGreaterThanOrEqual(1);
  });
});
