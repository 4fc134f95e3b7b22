// The wizard's presets (contract/presets.ts) against the configs they are (tests/renderer/wizard-data.test.ts
// holds their synthesis jobs to the data commands of docs/experiments.md).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CURRICULUM_PRESET, FEW_DEMOS_PRESET, WIZARD_PRESETS, presetConfigDifferences, type WizardPreset } from '../../main/lab/contract/presets';
import { parseRunConfig } from '../../main/lab/contract/run-config';

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

  it('name what a config changed from the preset, and an RL stage it lacks', () => {
    expect(presetConfigDifferences(FEW_DEMOS_PRESET, { sft: { steps: 2000 }, checkpoint: { every: 500 }, rl: { pool: 'fixed', groupSize: 16, hardPatience: 2, steps: 40, evalEvery: 20 } })).toEqual(['sft.steps', 'rl.pool']);
    expect(presetConfigDifferences(CURRICULUM_PRESET, { sft: { steps: 3000 } })).toEqual(['rl']);
    expect(presetConfigDifferences(CURRICULUM_PRESET, { rl: { steps: 40 } })).toEqual([]);
  });

  it('mark every measured figure with the seeds it stands on', () => {
    for (const p of WIZARD_PRESETS) for (const f of p.expectation.figures) expect(f.seeds, `${p.id}: ${f.what}`).toBeGreaterThanOrEqual(1);
  });
});
