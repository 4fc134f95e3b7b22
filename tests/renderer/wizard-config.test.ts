// The run wizard validates with the contract's run config schema: defaults and ranges come from one place.
import { describe, expect, it } from 'vitest';
import { buildConfig, defaultValues, inWizardWords, validate, type WizardState } from '../../renderer/src/components/runs/runConfig';
import { describeIssue } from '../../main/lab/contract/field-issues';
import { checkRunConfig, parseRunConfig } from '../../main/lab/contract/run-config';

const state = (values: Partial<WizardState['values']> = {}, data: WizardState['data'] = { graphId: 'g1', datasetId: 'd1', heldOutDatasetId: 'd2' }): WizardState => ({
  name: '',
  preset: 'tiny',
  backend: 'auto',
  data,
  values: { ...defaultValues(), ...values },
});

describe('run wizard config', () => {
  it('starts from the schema defaults (with the 256-token context of the tiny preset) and builds a config main accepts', () => {
    const s = state();
    expect(s.values['env.maxToolCalls']).toBe(12);
    expect(s.values['sft.steps']).toBe(3000);
    expect(s.values['model.blockSize']).toBe(256);
    expect(validate(s, [])).toEqual(new Map());
    const config = parseRunConfig(buildConfig(s));
    expect(config.model).toEqual({ base: 'bundled', preset: 'tiny' }); // the base model brings its shape and tokenizer
    expect(buildConfig(s).tokenizer).toBeUndefined();
    expect(config.env.maxToolCalls).toBe(12);
    // The wizard's defaults are the schema's: `sailor train` with only `data` runs the same quick preset.
    expect(config).toEqual(parseRunConfig({ data: s.data }));
    const fresh = parseRunConfig(buildConfig({ ...s, scratch: true }));
    expect(fresh.model).toMatchObject({ base: 'none', preset: 'tiny', blockSize: 256 });
    expect(fresh.tokenizer.vocabSize).toBe(1024);
  });

  it('says what is wrong with each field in plain words', () => {
    const errors = validate(state({ 'sft.lr': 5, 'eval.samples': 2.5, 'sft.steps': '', 'env.topK': 0, 'sft.minLr': 0.5 }), []);
    expect(errors.get('sft.lr')).toBe('must be at most 1');
    expect(errors.get('eval.samples')).toBe('must be a whole number');
    expect(errors.get('sft.steps')).toBe('required');
    expect(errors.get('env.topK')).toBe('must be at least 1');
    expect(validate(state({ 'sft.lr': 0 }), []).get('sft.lr')).toBe('must be greater than 0');
    expect(validate(state({ 'sft.lr': 0.001, 'sft.minLr': 0.01 }), []).get('sft.minLr')).toMatch(/must not exceed the learning rate/);
  });

  it('passes the RL questions on when picked, and refuses the held-out ones', () => {
    expect(buildConfig(state()).data).toEqual({ graphId: 'g1', datasetId: 'd1', heldOutDatasetId: 'd2' });
    const withRl = state({}, { graphId: 'g1', datasetId: 'd1', heldOutDatasetId: 'd2', rlDatasetId: 'd3' });
    expect(parseRunConfig(buildConfig(withRl)).data.rlDatasetId).toBe('d3');
    const same = validate(state({}, { graphId: 'g1', datasetId: 'd1', heldOutDatasetId: 'd2', rlDatasetId: 'd2' }), []);
    expect(same.get('data.rlDatasetId')).toMatch(/must differ from the held-out questions/);
  });

  it('checks the data choice', () => {
    const same = validate(state({}, { graphId: 'g1', datasetId: 'd1', heldOutDatasetId: 'd1' }), []);
    expect(same.get('data.heldOutDatasetId')).toMatch(/must differ/);
    const other = validate(state(), [{ id: 'd1', name: 'd1', path: '', createdAt: '', info: { graphId: 'g2' } }]);
    expect(other.get('data.datasetId')).toMatch(/another graph/);
  });

  it('shows the schema\'s rules between fields at the field the schema names, in the rule\'s words for forms', () => {
    // A rule only the schema states: SFT steps 0 need a checkpoint to start from.
    const noSft = state({ 'sft.steps': 0 });
    const issue = checkRunConfig(buildConfig(noSft)).error?.issues.find((i) => i.path.join('.') === 'sft.steps');
    expect(issue?.message).toMatch(/0 SFT steps need init\.checkpoint/);
    // The same rule at the same path, in the words the rule gives forms (fields named by the wizard's labels).
    expect(validate(noSft, []).get('sft.steps')).toBe(inWizardWords(describeIssue(issue!)));
    expect(validate(noSft, []).get('sft.steps')).toBe('0 needs a starting checkpoint (Model step) or an RL stage from one');
    // Every cross-field message the wizard shows is the schema rule's, at the same path.
    const bad = state({ 'sft.lr': 0.001, 'sft.minLr': 0.01 }, { graphId: 'g1', datasetId: 'd1', heldOutDatasetId: 'd1' });
    const errors = validate(bad, []);
    for (const i of checkRunConfig(buildConfig(bad)).error!.issues) expect(errors.get(i.path.join('.'))).toBe(inWizardWords(describeIssue(i)));
    expect([...errors.keys()].sort()).toEqual(['data.heldOutDatasetId', 'sft.minLr']);
    // Its words for what a person left empty, and for a name that is too long.
    const empty = validate(state({}, { graphId: '', datasetId: '', heldOutDatasetId: '' }), []);
    expect(empty.get('data.graphId')).toBe('pick or build a graph');
    expect(empty.get('data.heldOutDatasetId')).toBe('pick or synthesise held-out questions');
    expect(validate({ ...state(), name: 'x'.repeat(81) }, []).get('name')).toBe('at most 80 characters');
  });
});

describe('Train further', () => {
  it("carries the run's evaluation and environment settings, not SFT's evaluation interval", async () => {
    const { carriedValues } = await import('../../renderer/src/components/runs/runConfig');
    const config = parseRunConfig({ data: { graphId: 'g', datasetId: 'd', heldOutDatasetId: 'h' }, eval: { every: 20, questions: 20, temperature: 0.5 }, env: { maxToolCalls: 7 } });
    const carried = carriedValues(config);
    expect(carried).toMatchObject({ 'eval.questions': 20, 'eval.temperature': 0.5, 'eval.samples': 1, 'env.maxToolCalls': 7 });
    expect(carried).not.toHaveProperty('eval.every');
    expect(carried).not.toHaveProperty('sft.steps');
    expect(carriedValues({})).toEqual({});
  });
});
