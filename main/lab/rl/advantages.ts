// Group-relative advantages (docs/pipeline.md, 'RL (DUPO, DAPO, GRPO)'): one scalar per rollout, shared by all of its
// generated tokens.
//
//   grpo:           A_i = (R_i - mean(R)) / (std(R) + eps)
//   leave_one_out:  A_i = R_i - mean_{j != i}(R_j)  =  G / (G - 1) * (R_i - mean(R))     (RLOO; WebSailor-V2)
//
// std: 'sample' (default) is the unbiased estimate sqrt(sum (R_i - mean)^2 / (G - 1)), what verl's GRPO and
// TRL compute (torch.std); 'population' divides by G instead. For G = 8 they differ by sqrt(8/7) ~ 1.069, a
// constant factor on every advantage (so on the update size), nothing else. eps = 1e-6 (verl's value) is
// added to the std, not under the root: it only matters when the std is tiny but not zero.
// Leave-one-out is not divided by any std: the baseline is what reduces the variance, and the advantage keeps
// the reward's scale (in [-1, 1] for rewards in [0, 1]).
//
// Zero-std groups (every reward equal, within `zeroStdTol`): all advantages are exactly 0 and the group is
// flagged `zeroStd`. Such a group has no learning signal; the batch planners (batch.ts) drop or replace it.
// A group of one rollout has no baseline and is treated the same way.
//
// Excluding truncated negatives (WebSailor-V2: "exclude certain negative samples from the loss calculation,
// for instance, those that do not yield a final answer because they exceed a length limit"):
//   a rollout is TRUNCATED when it ended on a limit (termination max_tokens or max_steps; the time limit is
//   reported as max_steps) with no prediction (null or empty: it never answered, even after the runtime's
//   final-answer notice; a rollout that did answer after the notice is an ordinary sample);
//   it is EXCLUDED when it is truncated and its advantage is negative (A_i < 0);
//   excluded means weight 0: its tokens are masked out of the loss, numerator AND the token count that
//   normalises it (as if it had never been sampled for the update). The group's mean and std still count it
//   (it is a real failure of the policy, and the others' advantages are the same with or without the option);
//   its advantage is kept in the result for display but must not be used by the loss without its weight.
// Why: a policy that cannot finish within the limit would otherwise be pushed down on every token it wrote,
// mostly well-formed reasoning, which collapses the format. A truncated rollout with A_i >= 0 (all the others
// failed as badly) keeps its weight: there is nothing negative to exclude.
import { LabError } from '../base/errors';
import type { Trajectory } from '../formats/index';

export type AdvantageMode = 'grpo' | 'leave_one_out';
export type StdKind = 'sample' | 'population';

export interface AdvantageOptions {
  mode: AdvantageMode;
  /** Which std normalises grpo advantages (see the top of this file). */
  std: StdKind;
  /** Added to the std in the grpo denominator. */
  eps: number;
  /** A group whose max - min reward is <= this is zero-std. */
  zeroStdTol: number;
  /** V2: give weight 0 to truncated rollouts with a negative advantage. */
  excludeTruncatedNegatives: boolean;
}

export const ADVANTAGE_DEFAULTS: AdvantageOptions = { mode: 'grpo', std: 'sample', eps: 1e-6, zeroStdTol: 1e-9, excludeTruncatedNegatives: false };

export interface GroupAdvantages {
  /** One advantage per rollout, in input order. */
  advantages: number[];
  /** Loss weight per rollout: 1, or 0 when excluded. Multiply the rollout's token mask by it. */
  weights: number[];
  /** Indices of the excluded rollouts (weight 0). */
  excluded: number[];
  /** All rewards equal (or a single rollout): advantages are all 0. */
  zeroStd: boolean;
  mean: number;
  /** The std of the chosen kind (0 for a single rollout). */
  std: number;
}

/** Mean and std (population or sample) of a list; std 0 for fewer than two values. */
export function meanStd(xs: readonly number[], kind: StdKind = 'sample'): { mean: number; std: number } {
  const n = xs.length;
  if (n === 0) return { mean: 0, std: 0 };
  const mean = xs.reduce((a, x) => a + x, 0) / n;
  if (n < 2) return { mean, std: 0 };
  const ss = xs.reduce((a, x) => a + (x - mean) * (x - mean), 0);
  return { mean, std: Math.sqrt(ss / (kind === 'sample' ? n - 1 : n)) };
}

/** True when a group carries no signal: fewer than two rollouts, or max - min <= tol. */
export function isZeroStd(rewards: readonly number[], tol = ADVANTAGE_DEFAULTS.zeroStdTol): boolean {
  if (rewards.length < 2) return true;
  return Math.max(...rewards) - Math.min(...rewards) <= tol;
}

/** Ended on a length or turn limit without ever answering (see the top of this file). */
export function isTruncatedNoAnswer(traj: Pick<Trajectory, 'termination' | 'prediction'>): boolean {
  return (traj.termination === 'max_tokens' || traj.termination === 'max_steps') && (traj.prediction === null || traj.prediction === '');
}

/**
 * Advantages of one group of G rollouts of the same question. `truncated[i]` marks rollouts that hit a limit
 * without answering (isTruncatedNoAnswer); it only matters with excludeTruncatedNegatives.
 */
export function groupAdvantages(rewards: readonly number[], options: Partial<AdvantageOptions> = {}, truncated?: readonly boolean[]): GroupAdvantages {
  const opts: AdvantageOptions = { ...ADVANTAGE_DEFAULTS, ...options };
  if (opts.mode !== 'grpo' && opts.mode !== 'leave_one_out') throw new LabError('bad_request', `unknown advantage mode ${String(opts.mode)}`);
  if (opts.std !== 'sample' && opts.std !== 'population') throw new LabError('bad_request', `std must be sample or population, got ${String(opts.std)}`);
  if (!(opts.eps >= 0) || !(opts.zeroStdTol >= 0)) throw new LabError('bad_request', 'eps and zeroStdTol must be >= 0');
  if (rewards.some((r) => !Number.isFinite(r))) throw new LabError('bad_request', `rewards must be finite numbers, got [${rewards.join(', ')}]`);
  if (truncated && truncated.length !== rewards.length) {
    throw new LabError('bad_request', `truncated has ${truncated.length} entries for ${rewards.length} rewards`);
  }
  const G = rewards.length;
  const { mean, std } = meanStd(rewards, opts.std);
  const zeroStd = isZeroStd(rewards, opts.zeroStdTol);
  let advantages: number[];
  if (zeroStd) advantages = rewards.map(() => 0);
  else if (opts.mode === 'grpo') advantages = rewards.map((r) => (r - mean) / (std + opts.eps));
  else {
    const total = rewards.reduce((a, r) => a + r, 0);
    advantages = rewards.map((r) => r - (total - r) / (G - 1));
  }
  const weights = rewards.map(() => 1);
  const excluded: number[] = [];
  if (opts.excludeTruncatedNegatives && truncated) {
    for (let i = 0; i < G; i++) {
      if (truncated[i] && advantages[i]! < 0) {
        weights[i] = 0;
        excluded.push(i);
      }
    }
  }
  return { advantages, weights, excluded, zeroStd, mean, std };
}
