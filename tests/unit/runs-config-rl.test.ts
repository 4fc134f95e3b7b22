import { describe, expect, it } from 'vitest';
import { defaultRunName, parseRunConfig } from '../../main/lab/contract/run-config';

const data = { graphId: 'g1', datasetId: 'd1', heldOutDatasetId: 'd2' };

describe('run config: rl and init', () => {
  it('has no RL unless asked; an empty rl section gets every default', () => {
    expect(parseRunConfig({ data }).rl).toBeUndefined();
    expect(parseRunConfig({ data, rl: {} }).rl).toEqual({
      algorithm: 'dupo',
      steps: 40,
      groupSize: 8,
      batchQuestions: 8,
      lr: 2e-4,
      warmupSteps: 0,
      schedule: 'constant',
      weightDecay: 0,
      epsLow: 0.2,
      epsHigh: 0.28,
      gradClip: 1,
      temperature: 1,
      topP: 1,
      reward: { format: 0.1, answer: 0.9, answerMode: 'em', formatCredit: 'turns' },
      advantage: 'leave_one_out',
      excludeTruncatedNegatives: true,
      updatesPerBatch: 1,
      dapoMaxRounds: 3,
      mode: 'sync',
      maxStaleness: 1,
      workers: 2,
      evalEvery: 10,
      checkpointEvery: 5,
      dropTooEasy: true,
      pool: 'fixed',
      poolSize: 256,
      hardPatience: 1,
      headroomQuestions: 16,
      entropyCoef: 0,
      turnRewards: { seen: 0, hop: 0, repeat: 0, gamma: 1 },
      credit: 'episode',
      positiveWeight: 1,
    });
  });

  it('names every bad RL field', () => {
    expect(() => parseRunConfig({ data, rl: { algorithm: 'ppo', groupSize: 1, temperature: 0, mode: 'fast', reward: { format: 2 } } })).toThrow(
      /rl\.algorithm: .*rl\.groupSize: .*rl\.temperature: .*rl\.reward\.format: .*rl\.mode: /,
    );
    expect(() => parseRunConfig({ data, rl: { stepz: 3 } })).toThrow(/rl: Unrecognized key: "stepz"/);
    expect(() => parseRunConfig({ data, rl: { updatesPerBatch: 8, batchQuestions: 4 } })).toThrow(/rl\.updatesPerBatch: 8 updates must not exceed the questions per step \(4\)/);
  });

  it('an RL-only run starts from a checkpoint, with SFT steps 0', () => {
    const c = parseRunConfig({ data, init: { checkpoint: 'run-1/400' }, sft: { steps: 0 }, rl: { algorithm: 'grpo' } });
    expect(c.init).toEqual({ checkpoint: 'run-1/400' });
    expect(c.sft.steps).toBe(0);
    expect(() => parseRunConfig({ data, init: { checkpoint: 'run-1' }, rl: {} })).toThrow(/init\.checkpoint: expected <run>\/<step> or <run>\/last/);
    // With init.checkpoint, SFT steps default to 0: RL only, so it needs an rl section, or SFT steps.
    expect(parseRunConfig({ data, init: { checkpoint: 'run-1/last' }, rl: {} }).sft.steps).toBe(0);
    expect(() => parseRunConfig({ data, init: { checkpoint: 'run-1/last' } })).toThrow(/init\.checkpoint: .*needs sft\.steps above 0 or an rl section/);
    expect(() => parseRunConfig({ data, sft: { steps: 0 }, rl: {} })).toThrow(/sft\.steps: 0 SFT steps need init\.checkpoint/);
  });

  it('SFT can continue from a checkpoint, with or without RL after it', () => {
    const c = parseRunConfig({ data, init: { checkpoint: 'run-1/400' }, sft: { steps: 500, lr: 1e-3 } });
    expect(c.sft).toMatchObject({ steps: 500, lr: 1e-3 });
    expect(c.rl).toBeUndefined();
    expect(defaultRunName(c)).toBe('SFT 500 steps from run-1/400, rng 1');
    expect(defaultRunName(parseRunConfig({ data, init: { checkpoint: 'run-1/last' }, rl: {} }))).toBe('DUPO 40 steps from run-1/last, rng 1');
    expect(defaultRunName(parseRunConfig({ data, init: { checkpoint: 'run-1/last' }, rl: {} }), 'quick SFT (step 2000)')).toBe('DUPO 40 steps from quick SFT (step 2000), rng 1');
    expect(defaultRunName(parseRunConfig({ data }))).toBe('base model SFT 3000 steps, rng 1');
    expect(defaultRunName(parseRunConfig({ data, model: { base: 'none' } }))).toBe('tiny SFT 3000 steps, rng 1');
  });
});
