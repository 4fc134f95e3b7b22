// The wizard's presets (contract/presets.ts) against the configs they are (tests/renderer/wizard-data.test.ts
// holds their synthesis jobs to the data commands of docs/experiments.md).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CURRICULUM_PRESET, FEW_DEMOS_PRESET, QUICK_WIZARD_PRESET, WIZARD_PRESETS, presetConfigDifferences, type WizardPreset } from '../../main/lab/contract/presets';
import { presetOfRun, questionShapeDifferences, uniqueName, withPreset } from '../../main/lab/contract/preset-data';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import { QUICK_PRESET, quickRlOffReason, signed } from '../../main/lab/contract/quick-preset';

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

describe('the preset a run is (issue 45, part 2, point 2: each run against its own preset, or none)', () => {
  const LOOKUP = { kinds: [], anchorProb: 1, maxConstraints: 0, perShape: 100_000 };
  const made = (p: WizardPreset, k: 'train' | 'heldOut', rng = 11) => ({ ...LOOKUP, ...p.data[k], rng });
  const dataOf = (p: WizardPreset) => ({ train: made(p, 'train'), heldOut: made(p, 'heldOut') });
  const data = { graphId: 'g', datasetId: 'd', heldOutDatasetId: 'h' };
  const configOf = (p: WizardPreset) => {
    const { name: _name, ...rest } = JSON.parse(readFileSync(p.configFile, 'utf8')) as Record<string, unknown>;
    return parseRunConfig({ ...rest, data });
  };

  it('tells a question set\'s shape by count, edges and style; its seed is free', () => {
    expect(questionShapeDifferences(made(QUICK_WIZARD_PRESET, 'train', 99), QUICK_WIZARD_PRESET.data.train)).toEqual([]);
    expect(questionShapeDifferences(made(QUICK_WIZARD_PRESET, 'train'), CURRICULUM_PRESET.data.train)).toEqual(['count', 'edges']);
    expect(questionShapeDifferences({ count: 300, maxEdges: 1 }, QUICK_WIZARD_PRESET.data.heldOut)).toEqual(['style']);
  });

  it('places each preset\'s own run, shortened too, against that preset', () => {
    for (const p of WIZARD_PRESETS) expect(presetOfRun(configOf(p), dataOf(p)), p.id).toBe(p.id);
    // The curriculum run the third walk judged against the quick preset: the quick config with an RL stage.
    const shortCurriculum = parseRunConfig({ data, sft: { steps: 60 }, rl: { steps: 4, evalEvery: 2 } });
    expect(presetOfRun(shortCurriculum, dataOf(CURRICULUM_PRESET))).toBe('curriculum');
    expect(presetOfRun(shortCurriculum, dataOf(QUICK_WIZARD_PRESET))).toBe('quick');
  });

  it('places a run of one preset\'s config on another\'s data, or of unknown data that two fit, against none', () => {
    expect(presetOfRun(configOf(QUICK_WIZARD_PRESET), dataOf(CURRICULUM_PRESET))).toBeNull();
    expect(presetOfRun(configOf(FEW_DEMOS_PRESET), dataOf(QUICK_WIZARD_PRESET))).toBeNull();
    expect(presetOfRun(configOf(CURRICULUM_PRESET), {})).toBeNull(); // quick with RL or the curriculum: cannot tell
    expect(presetOfRun(configOf(QUICK_WIZARD_PRESET), {})).toBe('quick'); // SFT only: only the quick preset
    expect(presetOfRun(parseRunConfig({ data, rl: { algorithm: 'grpo' } }), dataOf(CURRICULUM_PRESET))).toBeNull();
  });
});

describe('run names that can be told apart (issue 45, part 2, point 5)', () => {
  it('carry the preset, and a number when another run has the name', () => {
    const name = 'base model SFT 3000 + DUPO 40 steps, rng 1';
    expect(withPreset(name, 'curriculum')).toBe('curriculum: base model SFT 3000 + DUPO 40 steps, rng 1');
    expect(withPreset(name, null)).toBe(name);
    expect(uniqueName(name, ['other'])).toBe(name);
    expect(uniqueName(name, [name])).toBe(`${name} #2`);
    expect(uniqueName(name, [name, `${name} #2`])).toBe(`${name} #3`);
  });
});

describe('why the quick preset starts on "SFT only" (issue 45, part 2, point 7)', () => {
  it('writes signed figures with a real minus sign and three decimals', () => {
    expect(signed(-0.014)).toBe('−0.014');
    expect(signed(0.006)).toBe('+0.006');
    expect(signed(0)).toBe('+0.000');
    expect(signed(-0.0831, 2)).toBe('−0.08');
  });

  it('says what its RL stage measured, over how many seeds, from the preset\'s own figures', () => {
    const why = quickRlOffReason();
    const { rl, finalBySeed } = QUICK_PRESET.expectation;
    expect(why).toContain(`DUPO, ${rl.steps} steps`);
    expect(why).toContain(`${signed(rl.gainLow)} to ${signed(rl.gainHigh)} over ${finalBySeed.rl.length} data seeds`);
    expect(why).toContain('within noise');
    // Each seed's change is its RL figure less its SFT figure: the stated range spans them (rounded to 0.001).
    const gains = finalBySeed.rl.map((x, i) => x - finalBySeed.sft[i]!);
    expect(Math.min(...gains)).toBeCloseTo(rl.gainLow, 2);
    expect(Math.max(...gains)).toBeCloseTo(rl.gainHigh, 2);
  });
});
