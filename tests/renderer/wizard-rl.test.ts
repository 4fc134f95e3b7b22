// The wizard's RL stage builds the `rl` section (and `init.checkpoint` for an RL-only run) that main
// accepts, from the schema's defaults, and names each bad field as the schema does; a run that continues
// SFT from a checkpoint gets `init.checkpoint` with its SFT steps.
import { describe, expect, it } from 'vitest';
import { issuesInMessage } from '../../main/lab/contract/field-issues';
import { buildConfig, defaultRl, defaultValues, validate, type RlChoice, type WizardState } from '../../renderer/src/components/runs/runConfig';
import { parseRunConfig } from '../../main/lab/contract/run-config';

const state = (rl: Partial<RlChoice> = {}, values: Partial<RlChoice['values']> = {}, init = ''): WizardState => {
  const base = defaultRl();
  return {
    init,
    name: '',
    preset: 'tiny',
    backend: 'auto',
    data: { graphId: 'g1', datasetId: 'd1', heldOutDatasetId: 'd2' },
    values: defaultValues(),
    rl: { ...base, ...rl, values: { ...base.values, ...values } },
  };
};

describe('run wizard: the RL stage', () => {
  it('is off by default: no rl section', () => {
    expect(defaultRl().stage).toBe('sft');
    expect(buildConfig(state())).not.toHaveProperty('rl');
  });

  it('after SFT: the rl section at the schema defaults, which main accepts', () => {
    const s = state({ stage: 'sft+rl', algorithm: 'grpo', mode: 'async' }, { 'rl.steps': 3, 'rl.groupSize': 4 });
    expect(validate(s, [])).toEqual(new Map());
    const c = buildConfig(s);
    expect(c.rl).toMatchObject({ algorithm: 'grpo', mode: 'async', steps: 3, groupSize: 4, reward: { format: 0.1, answer: 0.9 } });
    expect(c).not.toHaveProperty('init');
    const parsed = parseRunConfig(c);
    expect(parsed.rl).toMatchObject({ algorithm: 'grpo', steps: 3, groupSize: 4, epsLow: 0.2, epsHigh: 0.28 });
    expect(parsed.sft.steps).toBe(3000);
  });

  it('RL only: starts from the checkpoint, no SFT steps, and needs one picked', () => {
    const none = validate(state({ stage: 'rl' }), []);
    expect(none.get('init.checkpoint')).toBe('pick the checkpoint RL starts from');
    const s = state({ stage: 'rl' }, {}, 'run-1/20');
    expect(validate(s, [])).toEqual(new Map());
    const c = buildConfig(s);
    expect(c).toMatchObject({ init: { checkpoint: 'run-1/20' }, sft: { steps: 0 } });
    expect(c).not.toHaveProperty('rft');
    expect(c).not.toHaveProperty('model');
    expect(parseRunConfig(c).init).toEqual({ checkpoint: 'run-1/20' });
  });

  it('SFT from a checkpoint: its model and tokenizer, this run\'s RFT data and SFT steps, RL after it if asked', () => {
    const s = state({}, {}, 'run-1/last');
    s.values['model.blockSize'] = 5; // the checkpoint's context is used: a bad value here does not matter
    expect(validate(s, [])).toEqual(new Map());
    const c = buildConfig(s);
    expect(c).toMatchObject({ init: { checkpoint: 'run-1/last' }, sft: { steps: 3000 }, rft: { attempts: 2 } });
    expect(c).not.toHaveProperty('model');
    expect(c).not.toHaveProperty('tokenizer');
    expect(c).not.toHaveProperty('rl');
    expect(parseRunConfig(c)).toMatchObject({ init: { checkpoint: 'run-1/last' }, sft: { steps: 3000 } });
    const withRl = buildConfig(state({ stage: 'sft+rl' }, { 'rl.steps': 3 }, 'run-1/last'));
    expect(parseRunConfig(withRl)).toMatchObject({ init: { checkpoint: 'run-1/last' }, sft: { steps: 3000 }, rl: { steps: 3 } });
    expect(buildConfig(state())).not.toHaveProperty('init');
  });

  it('names bad RL fields in the wizard words, and finds them in main’s messages', () => {
    const errors = validate(state({ stage: 'sft+rl' }, { 'rl.groupSize': 1, 'rl.lr': 3, 'rl.reward.format': 1.5, 'rl.epsHigh': '', 'rl.batchQuestions': 2, 'rl.updatesPerBatch': 4 }), []);
    expect(errors.get('rl.groupSize')).toBe('must be at least 2');
    expect(errors.get('rl.lr')).toBe('must be at most 1');
    expect(errors.get('rl.reward.format')).toBe('must be at most 1');
    expect(errors.get('rl.epsHigh')).toBe('required');
    expect(errors.get('rl.updatesPerBatch')).toMatch(/must not exceed the questions per step \(2\)/);
    expect(issuesInMessage('run config: rl.reward.answer: Too big; init.checkpoint: expected <run>/<step>').map((i) => i.path)).toEqual(['rl.reward.answer', 'init.checkpoint']);
  });
});
