// Field issues in words, shared by main and every form (main/lab/contract/field-issues.ts), the wizard's label
// map (renderer runConfig.ts CONFIG_LABELS), and the quick preset's measured expectation (contract/quick-preset.ts).
import { describe, expect, it } from 'vitest';
import { describeIssue, issuesInMessage, jobParamIssues, labelIssues, nameMentions, wireIssues } from '../../main/lab/contract/field-issues';
import { expectedAt, farBelow, judgeRun, matchesQuickPreset, presetDifferences } from '../../main/lab/contract/quick-preset';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import { CONFIG_LABELS, buildConfig, defaultRl, defaultValues, fieldMessage, labelOf, validate, type WizardState } from '../../renderer/src/components/runs/runConfig';

const RAW = /Too small|Too big|invalid params|expected number|Invalid input/;

describe('job params in words', () => {
  it('says what is wrong with each kg.build param, never in zod words', () => {
    expect(jobParamIssues('kg.build', { maxEdges: -10 })).toEqual([{ path: 'maxEdges', message: 'must be at least 10' }]);
    expect(jobParamIssues('kg.build', { maxEdges: 20_001 })).toEqual([{ path: 'maxEdges', message: 'must be at most 20000' }]);
    expect(jobParamIssues('kg.build', { rng: 1.5 })).toEqual([{ path: 'rng', message: 'must be a whole number' }]);
    expect(jobParamIssues('kg.build', { rng: '' })).toEqual([{ path: 'rng', message: 'enter a number' }]);
    expect(jobParamIssues('kg.build', {})).toEqual([]);
    expect(jobParamIssues('synth', { graphId: '', count: 0 })).toEqual([
      { path: 'graphId', message: 'required' },
      { path: 'count', message: 'must be at least 1' },
    ]);
    expect(jobParamIssues('rollout', { datasetId: 'd', policy: 'oracle', n: 33 })[0]).toEqual({ path: 'n', message: 'must be at most 32' });
    for (const i of jobParamIssues('compare', { checkpoints: ['a'], datasetId: 'x y', questions: -6, samples: 'x', rng: -1, name: 'a/b' })) expect(i.message).not.toMatch(RAW);
  });

  it('keeps a regex rule’s own words and a custom rule’s form words', () => {
    expect(describeIssue({ code: 'invalid_format', format: 'regex', message: 'letters only', path: [] })).toBe('letters only');
    expect(describeIssue({ code: 'invalid_format', format: 'regex', message: 'Invalid string: must match pattern /x/', path: [] })).toBe('not in the expected form');
    expect(describeIssue({ code: 'custom', message: 'needs sft.steps above 0', params: { words: 'needs {sft.steps} above 0' }, path: [] })).toBe('needs {sft.steps} above 0');
    expect(nameMentions('needs {sft.steps} above 0', (p) => `<${p}>`)).toBe('needs <sft.steps> above 0');
  });

  it('leads each message with the form’s label and never shows a path', () => {
    const { byField, other } = labelIssues(
      [
        { path: 'maxEdges', message: 'must be at least 10' },
        { path: 'expandProb', message: 'must be at most 1' },
      ],
      { maxEdges: 'max edges' },
    );
    expect(byField.get('maxEdges')).toBe('max edges: must be at least 10');
    expect(other).toEqual(['A setting this form does not show was refused: must be at most 1']);
  });

  it('finds the fields in a refusal whose issues did not come, in general words', () => {
    expect(issuesInMessage('kg.build job: invalid params: maxEdges: Too small: expected number to be >=10; rng: Invalid input')).toEqual([
      { path: 'maxEdges', message: 'refused by the lab core: check this value' },
      { path: 'rng', message: 'refused by the lab core: check this value' },
    ]);
    expect(issuesInMessage('jobs.start: invalid params: params.datasetId: simulated').map((i) => i.path)).toEqual(['datasetId']);
    expect(issuesInMessage('dataset d-1 not found')).toEqual([]);
    expect(wireIssues([{ path: 'a', message: 'b' }])).toEqual([{ path: 'a', message: 'b' }]);
    expect(wireIssues([{ path: 1 }])).toBeNull();
  });
});

describe('the wizard’s words for config fields', () => {
  const state = (values: Record<string, number | string> = {}): WizardState => ({
    name: '',
    preset: 'tiny',
    backend: 'auto',
    data: { graphId: 'g', datasetId: 'd1', heldOutDatasetId: 'd2' },
    values: { ...defaultValues(), ...values },
    rl: defaultRl(),
  });

  it('names fields as the wizard shows them, group first', () => {
    expect(CONFIG_LABELS['sft.steps']).toBe('SFT steps');
    expect(CONFIG_LABELS['model.blockSize']).toBe('context (tokens)');
    expect(CONFIG_LABELS['rl.steps']).toBe('RL steps');
    expect(CONFIG_LABELS['eval.every']).toBe('evaluation every N steps');
    expect(labelOf('no.such.path')).toBe('a setting');
    for (const label of Object.values(CONFIG_LABELS)) expect(label).not.toMatch(/^[a-z]+\.[a-zA-Z.]+$/);
  });

  it('refuses 0 SFT steps without a checkpoint at SFT steps, in words, and clears when fixed', () => {
    const errors = validate(state({ 'sft.steps': 0 }), []);
    expect(fieldMessage('sft.steps', errors.get('sft.steps')!)).toBe('SFT steps: 0 needs a starting checkpoint (Model step) or an RL stage from one');
    expect([...errors.keys()]).toEqual(['sft.steps']);
    expect(validate(state({ 'sft.steps': 2000 }), []).size).toBe(0);
    // Main refuses the same config, naming the path (its own words for the CLI).
    expect(() => parseRunConfig(buildConfig(state({ 'sft.steps': 0 })))).toThrow(/sft\.steps: 0 SFT steps need init\.checkpoint/);
  });

  it('names the other field of a cross-field rule by its label', () => {
    const errors = validate({ ...state(), data: { graphId: 'g', datasetId: 'd1', heldOutDatasetId: 'd1' } }, []);
    expect(errors.get('data.heldOutDatasetId')).toBe('must differ from the training questions: evaluate on questions the model did not train on');
  });
});

describe('the quick preset’s expectation', () => {
  const preset = parseRunConfig({ data: { graphId: 'g', datasetId: 'd', heldOutDatasetId: 'h' } });

  it('matches the preset’s config, with other seeds, names, data ids and lengths too', () => {
    expect(matchesQuickPreset(preset)).toBe(true);
    expect(matchesQuickPreset({ ...preset, name: 'x', rng: 5, sft: { ...preset.sft, steps: 2000 }, eval: { ...preset.eval, every: 500 } })).toBe(true);
    expect(matchesQuickPreset(parseRunConfig({ data: preset.data, rl: {} }))).toBe(true);
    expect(matchesQuickPreset(parseRunConfig({ data: preset.data, rl: { steps: 10 } }))).toBe(true);
  });

  it('does not match another model, learning rate, evaluation or RL stage, or a run from a checkpoint', () => {
    expect(presetDifferences(parseRunConfig({ data: preset.data, model: { base: 'none' } }))).toContain('model.base');
    expect(presetDifferences({ ...preset, sft: { ...preset.sft, lr: 1e-3 } })).toEqual(['sft.lr']);
    expect(presetDifferences({ ...preset, eval: { ...preset.eval, temperature: 0.7 } })).toEqual(['eval.temperature']);
    expect(presetDifferences(parseRunConfig({ data: preset.data, rl: { algorithm: 'grpo' } }))).toEqual(['rl.algorithm']);
    expect(matchesQuickPreset(parseRunConfig({ data: preset.data, init: { checkpoint: 'r/last' }, rl: {} }))).toBe(false);
    expect(matchesQuickPreset(null)).toBe(false);
  });

  it('expects the figure measured at or before a step', () => {
    expect(expectedAt(500, 3000)).toBeNull();
    expect(expectedAt(1000, 3000)).toEqual({ passAt1: 0.33, measuredAt: 'SFT step 1000' });
    expect(expectedAt(2500, 3000)?.passAt1).toBe(0.56);
    expect(expectedAt(3000, 3000)?.passAt1).toBe(0.58);
    expect(expectedAt(3040, 3000, 40)).toEqual({ passAt1: 0.577, measuredAt: '3000 SFT + 40 RL steps' });
    // A run with fewer SFT steps is held to the figure of its own last step.
    expect(expectedAt(2000, 2000)?.passAt1).toBe(0.56);
  });

  it('calls a final pass@1 under half the expected far below', () => {
    expect(farBelow(0.3, 0.62)).toBe(true);
    expect(farBelow(0.31, 0.62)).toBe(false);
    expect(farBelow(0.033, 0.55)).toBe(true);
    expect(farBelow(Number.NaN, 0.62)).toBe(false);
  });

  it('judges a finished run and lists likely causes, the visible one first', () => {
    const fine = judgeRun({ config: preset, finalStep: 3000, finalPassAt1: 0.6 });
    expect(fine).toEqual({ expected: { passAt1: 0.58, measuredAt: 'SFT step 3000' }, farBelow: false, causes: [] });
    const short = judgeRun({ config: { ...preset, sft: { ...preset.sft, steps: 2000 } }, finalStep: 2000, finalPassAt1: 0.033 });
    expect(short.farBelow).toBe(true);
    expect(short.causes[0]).toMatch(/too few steps: 2000 SFT steps where the preset trains 3000/);
    expect(short.causes.join(' ')).toMatch(/data shape.*base model/);
    const data = judgeRun({ config: preset, finalStep: 3000, finalPassAt1: 0.1, dataShapeChanged: true });
    expect(data.causes[0]).toMatch(/changed data shape/);
  });
});
