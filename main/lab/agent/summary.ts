// The one summary of a set of rollouts, for every place that reports one: an RL step's metrics (rl/metrics.ts),
// an evaluation (train/policy/run.ts, an imported verl run's sets), a rollout job's counts and `sailor rollout`.
// One denominator rule: an episode that failed on the infrastructure (policy_error, tool_error: a server down, a
// checkpoint that did not load) says nothing about the model, so it is left out of every mean and rate and
// counted apart. So the RL chart's reward/answer and the evaluation's pass@1 agree on the same rollouts (pass@1
// weighs each question alike, reward/answer each rollout: equal when every question has as many rollouts).
import { failureMetrics } from '../contract/failures';
import { isInfrastructureFailure, type Trajectory } from '../formats/index';
import type { EvalReport } from './eval';
import { evaluate, sampleFromTrajectory } from './eval';
import { failureCounts, type Gold } from './failures';

/** What the summary reads of a rollout: the RL core passes bare records (no termination: the model's own). */
export type RolloutLike = Pick<Trajectory, 'reward'> & Partial<Pick<Trajectory, 'termination' | 'tool_calls' | 'tokens' | 'steps'>>;

/** The rollouts the model itself ended: the denominator of every mean and rate. */
export function modelTrajectories<T extends Partial<Pick<Trajectory, 'termination'>>>(trajs: readonly T[]): T[] {
  return trajs.filter((t) => t.termination === undefined || !isInfrastructureFailure(t.termination));
}

const mean = (xs: readonly number[]): number => xs.reduce((a, x) => a + x, 0) / xs.length;

/**
 * reward/mean, reward/std (population), reward/format, reward/answer and rollout/tool_calls_mean,
 * rollout/response_tokens_mean, rollout/num_turns_mean (each when every rollout has the field) over the model's
 * rollouts; none when there are none (a mean of nothing is no 0). rollout/infrastructure_failures when any.
 */
export function rolloutSummary(trajs: readonly RolloutLike[]): Record<string, number> {
  const rs = modelTrajectories(trajs);
  const m: Record<string, number> = {};
  if (rs.length > 0) {
    const totals = rs.map((r) => r.reward.total);
    const mu = mean(totals);
    m['reward/mean'] = mu;
    m['reward/std'] = Math.sqrt(mean(totals.map((x) => (x - mu) ** 2)));
    m['reward/format'] = mean(rs.map((r) => r.reward.format));
    m['reward/answer'] = mean(rs.map((r) => r.reward.answer));
    if (rs.every((r) => typeof r.tool_calls === 'number')) m['rollout/tool_calls_mean'] = mean(rs.map((r) => r.tool_calls!));
    if (rs.every((r) => typeof r.tokens?.generated === 'number')) m['rollout/response_tokens_mean'] = mean(rs.map((r) => r.tokens!.generated));
    if (rs.every((r) => Array.isArray(r.steps))) m['rollout/num_turns_mean'] = mean(rs.map((r) => r.steps!.length));
  }
  if (rs.length < trajs.length) m['rollout/infrastructure_failures'] = trajs.length - rs.length;
  return m;
}

/**
 * An evaluation of a set: its report (pass@k and the rest, agent/eval.ts evaluate; with `goldOf`, the failure
 * breakdown) and its summary record: eval/pass@1, eval/pass@k, eval/infrastructure_failures (when any), the
 * failure counts (eval/failures/<class>), then the rollout summary. `k`: the samples per question.
 */
export function evaluationSummary(trajs: readonly Trajectory[], k: number, goldOf?: (t: Trajectory) => Gold | undefined): { report: EvalReport; summary: Record<string, number> } {
  const report = evaluate(trajs.map((t) => sampleFromTrajectory(t)), k);
  if (goldOf) report.failures = failureCounts(trajs, goldOf);
  const summary: Record<string, number> = {
    'eval/pass@1': report['pass@1'],
    'eval/pass@k': report['pass@k'],
    ...(report.infrastructure_failures ? { 'eval/infrastructure_failures': report.infrastructure_failures } : {}),
    ...(report.failures ? failureMetrics(report.failures) : {}),
    ...rolloutSummary(trajs),
  };
  // reward/std is an RL step's own record: the dashboard tells RL steps by it (rlView RL_MARKERS), so an
  // evaluation that carried it would pull the RL section back to the SFT evaluations.
  delete summary['reward/std'];
  return { report, summary };
}

/** A trajectory set at a glance, as a rollout job records it and `sailor rollout` prints it (4 decimals). */
export function trajectorySummary(all: readonly Trajectory[], goldOf?: (t: Trajectory) => Gold | undefined): Record<string, unknown> {
  const m = rolloutSummary(all);
  const termination: Record<string, number> = {};
  for (const t of all) termination[t.termination] = (termination[t.termination] ?? 0) + 1;
  const r4 = (x: number | undefined): number => +(x ?? 0).toFixed(4);
  return {
    trajectories: all.length,
    infrastructure_failures: m['rollout/infrastructure_failures'] ?? 0,
    'reward/mean': r4(m['reward/mean']),
    'reward/answer': r4(m['reward/answer']),
    'reward/format': r4(m['reward/format']),
    tool_calls_mean: +(m['rollout/tool_calls_mean'] ?? 0).toFixed(2),
    termination,
    ...(goldOf ? failureMetrics(failureCounts(all, goldOf)) : {}),
  };
}
