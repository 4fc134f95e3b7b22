// The flat metrics record of an RL step, with the names of docs/formats.md, 'Runs and the data directory' (verl/TRL
// convention) plus extensions:
//   reward/mean, reward/std, reward/format, reward/answer       over EVERY rollout of the step, before any
//                                                               group is dropped or copied (the policy's own
//                                                               performance; std is the population std);
//   rollout/tool_calls_mean, rollout/response_tokens_mean, rollout/num_turns_mean   same rollouts;
//   actor/pg_loss, actor/pg_clipfrac, actor/entropy             from the loss (loss.ts PgStats);
//   actor/pg_clipfrac_low, actor/pg_clipfrac_high, actor/approx_kl   (extensions);
//   actor/grad_norm, actor/lr                                   from model/train updateStep;
//   batch/zero_std_frac, batch/duplicated_frac                  from the batch plan (batch.ts);
//   batch/refill_rounds (DAPO), batch/skipped (1 when no group had signal and the update was skipped)   (extensions);
//   rollout/staleness_max, rollout/stale_dropped (async)        (extensions).
// Only the parts that are given produce keys; a skipped update has no actor/* keys.
import type { Trajectory } from '../formats/index';
import type { UpdateResult } from '../model/train';
import { meanStd } from './advantages';
import type { PgStats } from './loss';

export type RolloutSummary = Pick<Trajectory, 'reward'> & Partial<Pick<Trajectory, 'tool_calls' | 'tokens' | 'steps'>>;

export interface RlMetricsInput {
  /** Every rollout of the step. */
  rollouts?: readonly RolloutSummary[];
  pg?: PgStats | null;
  update?: Pick<UpdateResult, 'gradNorm' | 'lr'> | null;
  /** A batch plan's (or dapoFill's) metrics and skip flag. */
  plan?: { metrics: Record<string, number>; skip: boolean } | null;
  /** An async batch's metrics (rollout/staleness_max, rollout/stale_dropped). */
  async?: { metrics: Record<string, number> } | null;
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, x) => a + x, 0) / xs.length;
}

export function rlMetrics(input: RlMetricsInput): Record<string, number> {
  const m: Record<string, number> = {};
  const rs = input.rollouts ?? [];
  if (rs.length > 0) {
    const totals = rs.map((r) => r.reward.total);
    const { mean: mu, std } = meanStd(totals, 'population');
    m['reward/mean'] = mu;
    m['reward/std'] = std;
    m['reward/format'] = mean(rs.map((r) => r.reward.format));
    m['reward/answer'] = mean(rs.map((r) => r.reward.answer));
    if (rs.every((r) => typeof r.tool_calls === 'number')) m['rollout/tool_calls_mean'] = mean(rs.map((r) => r.tool_calls!));
    if (rs.every((r) => typeof r.tokens?.generated === 'number')) m['rollout/response_tokens_mean'] = mean(rs.map((r) => r.tokens!.generated));
    if (rs.every((r) => Array.isArray(r.steps))) m['rollout/num_turns_mean'] = mean(rs.map((r) => r.steps!.length));
  }
  if (input.pg) {
    m['actor/pg_loss'] = input.pg.pgLoss;
    m['actor/pg_clipfrac'] = input.pg.clipfrac;
    m['actor/pg_clipfrac_low'] = input.pg.clipfracLow;
    m['actor/pg_clipfrac_high'] = input.pg.clipfracHigh;
    m['actor/approx_kl'] = input.pg.approxKl;
    if (input.pg.entropy !== null) m['actor/entropy'] = input.pg.entropy;
  }
  if (input.update) {
    m['actor/grad_norm'] = input.update.gradNorm;
    m['actor/lr'] = input.update.lr;
  }
  if (input.plan) {
    Object.assign(m, input.plan.metrics);
    m['batch/skipped'] = input.plan.skip ? 1 : 0;
  }
  if (input.async) Object.assign(m, input.async.metrics);
  for (const [k, v] of Object.entries(m)) if (!Number.isFinite(v)) delete m[k];
  return m;
}
