// One rollout summary (agent/summary.ts) with one denominator: the run dashboard's RL chart (rl/metrics.ts
// reward/answer) and its evaluation chart (eval/pass@1) read the same figure off the same rollouts, and an
// infrastructure failure is left out of both, never counted as the model's zero.
import { describe, expect, it } from 'vitest';
import type { Termination, Trajectory } from '../../main/lab/formats';
import { rlMetrics } from '../../main/lab/rl/metrics';
import { evaluationSummary, rolloutSummary, trajectorySummary } from '../../main/lab/agent/summary';
import { rlSetOf, evalSetOf } from '../../main/lab/runs/verl-import';

const rollout = (qa: string, answer: 0 | 1, termination: Termination = 'answer', toolCalls = 2): Trajectory => ({
  id: `${qa}/${Math.random()}`, qa_id: qa, policy: 'ckpt:r/1', prediction: termination === 'answer' ? 'x' : null, termination,
  steps: [{ think: '', action: { name: 'search', arguments: { query: ['x'] } }, observation: 'o' }, { think: '', action: { name: 'answer', arguments: { answer: 'x' } } }],
  reward: termination === 'answer' ? { format: 1, answer, total: 0.1 + 0.9 * answer } : { format: 0, answer: 0, total: 0 },
  tool_calls: toolCalls, tokens: { generated: 20, observation: 40 },
});

// Four questions, four rollouts each as an RL group would have them: 3/4, 1/4, 0/4, 4/4 correct (pass@1 0.5);
// then the same with two rollouts a server dropped added to the second question.
const groups = [[1, 1, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]] as const;
const trajs = groups.flatMap((g, i) => g.map((a) => rollout(`q${i}`, a)));
const withFailures = [...trajs, rollout('q1', 0, 'policy_error', 0), rollout('q1', 0, 'tool_error', 0)];

describe('the RL and evaluation figures agree on the same rollouts', () => {
  it('reward/answer of an RL step = the evaluation\'s reward/answer = its pass@1', () => {
    const rl = rlMetrics({ rollouts: trajs });
    const { summary } = evaluationSummary(trajs, 4);
    expect(rl['reward/answer']).toBe(0.5);
    expect(summary['reward/answer']).toBe(rl['reward/answer']);
    expect(summary['eval/pass@1']).toBe(rl['reward/answer']);
  });

  it('infrastructure failures are left out of both and counted apart', () => {
    const rl = rlMetrics({ rollouts: withFailures });
    const { summary, report } = evaluationSummary(withFailures, 4);
    expect(rl['reward/answer']).toBe(0.5);
    expect(summary['reward/answer']).toBe(0.5);
    expect(summary['eval/pass@1']).toBe(0.5);
    expect(rl['reward/mean']).toBeCloseTo(summary['reward/mean']!, 12);
    expect(rl['rollout/tool_calls_mean']).toBe(2); // the dropped episodes' 0 calls are not averaged in
    expect([rl['rollout/infrastructure_failures'], summary['eval/infrastructure_failures'], report.infrastructure_failures]).toEqual([2, 2, 2]);
  });

  it('a rollout job\'s counts and an imported verl run\'s sets use the same figures', () => {
    const counts = trajectorySummary(withFailures);
    expect([counts['reward/answer'], counts.infrastructure_failures, counts.tool_calls_mean]).toEqual([0.5, 2, 2]);
    const rl = rlSetOf('r', 1, withFailures, 'dump.jsonl').header.summary as Record<string, number>;
    const ev = evalSetOf('r', 1, withFailures, 'dump.jsonl').header.summary as Record<string, number>;
    expect([rl['reward/answer'], ev['reward/answer'], ev['eval/pass@1']]).toEqual([0.5, 0.5, 0.5]);
  });

  it('rollouts with nothing the model ended have no means (a mean of nothing is no 0)', () => {
    expect(rolloutSummary([rollout('q', 0, 'policy_error')])).toEqual({ 'rollout/infrastructure_failures': 1 });
  });
});
