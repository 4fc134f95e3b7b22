import { describe, expect, it } from 'vitest';
import { planDupo } from '../../main/lab/rl/batch';
import { rlMetrics } from '../../main/lab/rl/metrics';
import { createRng } from '../../main/lab/util/rng';

describe('rlMetrics', () => {
  const rollouts = [
    { reward: { format: 1, answer: 1, total: 1 }, tool_calls: 2, tokens: { generated: 40, observation: 100 }, steps: [{}, {}, {}] },
    { reward: { format: 1, answer: 0, total: 0.1 }, tool_calls: 4, tokens: { generated: 60, observation: 200 }, steps: [{}, {}, {}, {}, {}] },
    { reward: { format: 0, answer: 0, total: 0 }, tool_calls: 0, tokens: { generated: 20, observation: 0 }, steps: [{}] },
    { reward: { format: 1, answer: 0, total: 0.1 }, tool_calls: 2, tokens: { generated: 40, observation: 50 }, steps: [{}, {}, {}] },
  ] as never[];

  it('builds the flat record with the docs/formats.md names and the extensions', () => {
    const plan = planDupo(
      [
        { qaId: 'a', rewards: [1, 0.1, 0, 0.1] },
        { qaId: 'b', rewards: [0, 0, 0, 0] },
      ],
      2,
      createRng(1),
    );
    const m = rlMetrics({
      rollouts,
      pg: { pgLoss: -0.3, clipfrac: 0.25, clipfracLow: 0.1, clipfracHigh: 0.15, approxKl: 0.01, entropy: 1.5, tokens: 100 },
      update: { gradNorm: 0.7, lr: 1e-4 },
      plan,
      async: { metrics: { 'rollout/staleness_max': 2, 'rollout/stale_dropped': 3 } },
    });
    // Rewards 1, 0.1, 0, 0.1: mean 0.3; population std sqrt((0.49 + 0.04 + 0.09 + 0.04) / 4) = sqrt(0.165).
    expect(m['reward/mean']).toBeCloseTo(0.3, 12);
    expect(m['reward/std']).toBeCloseTo(Math.sqrt(0.165), 12);
    expect(m['reward/format']).toBe(0.75);
    expect(m['reward/answer']).toBe(0.25);
    expect(m['rollout/tool_calls_mean']).toBe(2);
    expect(m['rollout/response_tokens_mean']).toBe(40);
    expect(m['rollout/num_turns_mean']).toBe(3);
    expect(m).toMatchObject({
      'actor/pg_loss': -0.3,
      'actor/pg_clipfrac': 0.25,
      'actor/pg_clipfrac_low': 0.1,
      'actor/pg_clipfrac_high': 0.15,
      'actor/approx_kl': 0.01,
      'actor/entropy': 1.5,
      'actor/grad_norm': 0.7,
      'actor/lr': 1e-4,
      'batch/zero_std_frac': 0.5,
      'batch/duplicated_frac': 0.5,
      'batch/skipped': 0,
      'rollout/staleness_max': 2,
      'rollout/stale_dropped': 3,
    });
  });

  it('a skipped update has rollout and batch metrics but no actor metrics', () => {
    const plan = planDupo([{ qaId: 'a', rewards: [0, 0] }], 1, createRng(1));
    const m = rlMetrics({ rollouts: rollouts.slice(2, 3), plan });
    expect(Object.keys(m).sort()).toEqual([
      'batch/duplicated_frac',
      'batch/skipped',
      'batch/zero_std_frac',
      'reward/answer',
      'reward/format',
      'reward/mean',
      'reward/std',
      'rollout/num_turns_mean',
      'rollout/response_tokens_mean',
      'rollout/tool_calls_mean',
    ]);
    expect(m['batch/skipped']).toBe(1);
    expect(m['batch/zero_std_frac']).toBe(1);
    expect(rlMetrics({ pg: { pgLoss: 0, clipfrac: 0, clipfracLow: 0, clipfracHigh: 0, approxKl: 0, entropy: null, tokens: 0 } })).not.toHaveProperty('actor/entropy');
    expect(rlMetrics({})).toEqual({});
  });
});
