// The flat metrics record of an RL step, with the names of docs/formats.md, 'Runs and the data directory' (verl/TRL
// convention) plus extensions:
//   reward/mean, reward/std, reward/format, reward/answer       over every rollout of the step the model ended,
//                                                               before any group is dropped or copied (the
//                                                               policy's own performance; std is the population
//                                                               std): agent/summary.ts rolloutSummary, the same
//                                                               function and denominator as an evaluation's;
//   rollout/tool_calls_mean, rollout/response_tokens_mean, rollout/num_turns_mean   same rollouts;
//   rollout/infrastructure_failures                             rollouts left out (policy_error, tool_error);
//   actor/pg_loss, actor/pg_clipfrac, actor/entropy             from the loss (loss.ts PgStats);
//   actor/pg_clipfrac_low, actor/pg_clipfrac_high, actor/approx_kl   (extensions);
//   actor/grad_norm, actor/lr                                   from model/train updateStep;
//   batch/zero_std_frac, batch/duplicated_frac                  from the batch plan (batch.ts);
//   batch/refill_rounds (DAPO), batch/skipped (1 when no group had signal and the update was skipped)   (extensions);
//   rollout/staleness_max, rollout/staleness_mean, rollout/stale_dropped, rollout/in_flight (async)   (extensions).
// Only the parts that are given produce keys; a skipped update has no actor/* keys.
import type { UpdateResult } from '../model/train';
import { rolloutSummary, type RolloutLike } from '../agent/summary';
import type { PgStats } from './loss';

export interface RlMetricsInput {
  /** Every rollout of the step. */
  rollouts?: readonly RolloutLike[];
  pg?: PgStats | null;
  update?: Pick<UpdateResult, 'gradNorm' | 'lr'> | null;
  /** A batch plan's (or dapoFill's) metrics and skip flag. */
  plan?: { metrics: Record<string, number>; skip: boolean } | null;
  /** An async step's metrics (train/rl-stage/async-rollouts.ts: staleness max and mean, stale dropped, in flight). */
  async?: { metrics: Record<string, number> } | null;
}

export function rlMetrics(input: RlMetricsInput): Record<string, number> {
  const m: Record<string, number> = rolloutSummary(input.rollouts ?? []);
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
