// Batch planning for group-based RL (docs/pipeline.md, 'RL (DUPO, DAPO, GRPO)'): which groups of rollouts go
// into an update, pure functions.
//
// A group is the G rollouts of one question. Its rewards decide whether it carries signal: a zero-std group
// (every reward equal, advantages.ts isZeroStd) has all advantages 0 and contributes no gradient, only
// tokens to the normaliser. The three methods differ in what they do about those groups:
//
//   DUPO (WebSailor 4.2)
//     (a) dropTooEasy, once before training: remove the questions the starting policy solves in all G rollouts.
//     (b) planDupo, every step: keep the non-zero-std groups and put in each slot of a zero-std group a copy of
//         a non-zero-std group of the same batch, chosen at random (seeded). No extra rollouts; the batch keeps
//         batchSize slots. Copies are drawn without replacement (a shuffled deck of the kept groups, reshuffled
//         when used up), so no group is copied twice before every kept group has been copied once.
//         A copied group counts fully in the loss: its tokens appear twice in the numerator and the token count.
//   DAPO (WebDancer 3.2) dynamic sampling
//     planDapo drops zero-std groups and keeps up to batchSize of the rest; dapoFill keeps asking for new
//     questions' rollouts until batchSize non-zero-std groups are there or maxRounds is reached (sequential
//     rollouts: this is what DUPO avoids).
//   GRPO (ASearcher) dynamic filtering
//     planGrpo drops zero-std groups, no refill and no copies: the batch shrinks.
//
// The criterion everywhere is a difference in the ANSWER reward (hasSignal; the total reward where answers
// are not given). With R = 0.1 format + 0.9 answer, a group whose answers are all wrong but whose formats differ
// has a total-reward std of 0.01-0.02 and a gradient on format alone: counted as signal (as it was before issue
// 45), such groups kept their slots and were even copied into others', so DUPO spent its batch pushing the
// format of wrong answers. They are zero-signal groups now, and their slots go to groups whose answers differ.
//
// When no group has signal (all zero-std, or no groups at all) every planner returns skip: true with a reason
// and no slots: the run loop must not call the optimiser for that batch (an update on zero advantages would
// still apply weight decay and advance the learning-rate schedule), should log the step's rollout and batch
// metrics with batch/skipped = 1, and go on with the next batch.
import { LabError } from '../base/errors';
import type { Rng } from '../util/rng';
import { isZeroStd } from './advantages';
import { isCorrect } from '../contract/correct';

export interface RolloutGroup {
  qaId: string;
  /** Total reward of each rollout (R_i). */
  rewards: readonly number[];
  /** Answer reward of each rollout, when known: what dropTooEasy calls solved (else the total reward). */
  answers?: readonly number[];
  /** Credit per turn (turn-rewards.ts): some turn's advantage is not 0 even when every reward is equal. */
  turnSignal?: boolean;
}

export type PlanMethod = 'dupo' | 'dapo' | 'grpo';
export type SkipReason = 'all_zero_std' | 'empty';

export interface BatchPlan {
  method: PlanMethod;
  /** The training batch: for each slot, the index of the group in it (copies repeat an index). Empty when skip. */
  slots: number[];
  /** Indices of the non-zero-std groups in the batch (each once). */
  kept: number[];
  /** Indices of the zero-std groups, left out. */
  dropped: number[];
  /** DUPO: for each copied slot, the index of the group copied into it. */
  duplicated: number[];
  /** DAPO: non-zero-std groups left out because the batch was already full. */
  unused: number[];
  /** No slot to train on: skip the optimiser step (see the top of this file). */
  skip: boolean;
  reason: SkipReason | null;
  batchSize: number;
  /** batch/zero_std_frac (zero-std groups / groups looked at) and batch/duplicated_frac (copied slots / batchSize). */
  metrics: Record<string, number>;
}

function checkGroups(groups: readonly RolloutGroup[]): void {
  groups.forEach((g, i) => {
    if (!Array.isArray(g.rewards)) throw new LabError('bad_request', `group ${i} (${g.qaId}) has no rewards array`);
    if (g.answers !== undefined && g.answers.length !== g.rewards.length) {
      throw new LabError('bad_request', `group ${i} (${g.qaId}): answers has ${g.answers.length} entries for ${g.rewards.length} rewards`);
    }
  });
}

function checkBatchSize(batchSize: number): void {
  if (!(Number.isInteger(batchSize) && batchSize > 0)) throw new LabError('bad_request', `batchSize must be a positive integer, got ${batchSize}`);
}

/**
 * batch/zero_std_frac: groups without signal / groups looked at (1 - the share with signal); with credit per
 * turn, batch/turn_signal_frac: the groups whose only signal is per turn (every reward equal).
 */
function batchMetrics(groups: number, zeroStd: number, duplicated: number, batchSize: number, turnOnly: number | null = null): Record<string, number> {
  const of = (n: number): number => (groups === 0 ? 0 : n / groups);
  return { 'batch/zero_std_frac': of(zeroStd), 'batch/duplicated_frac': duplicated / batchSize, ...(turnOnly === null ? {} : { 'batch/turn_signal_frac': of(turnOnly) }) };
}

/** Whether a group carries a learning signal in its outcome: its answer rewards differ (its total rewards when answers are not given). */
export function hasSignal(g: RolloutGroup, tol?: number): boolean {
  return !isZeroStd(g.answers ?? g.rewards, tol);
}

/**
 * A group with signal: its answer rewards differ (hasSignal), or (credit per turn) some turn's advantage is not 0.
 * turnOnly: how many have only the latter; null when no group is scored per turn.
 */
function splitByStd(groups: readonly RolloutGroup[], tol?: number): { informative: number[]; zero: number[]; turnOnly: number | null } {
  const informative: number[] = [];
  const zero: number[] = [];
  let turnOnly: number | null = groups.some((g) => g.turnSignal !== undefined) ? 0 : null;
  groups.forEach((g, i) => {
    const flat = !hasSignal(g, tol);
    if (flat && g.turnSignal && turnOnly !== null) turnOnly++;
    (flat && !g.turnSignal ? zero : informative).push(i);
  });
  return { informative, zero, turnOnly };
}

/**
 * Solved, as the contract's `isCorrect` judges the rollout's answer reward. A group that carries no answer
 * rewards (the pure core's own callers: tests, simulations) has its total reward judged in their place.
 */
export function isSolved(g: RolloutGroup, i: number): boolean {
  return isCorrect({ answer: (g.answers ?? g.rewards)[i]! });
}

/**
 * DUPO (a): drop the questions every rollout of the starting policy solves. A group with no rollouts is kept
 * (nothing shows it is easy). Returns the groups kept and dropped, with their indices in the input.
 */
export function dropTooEasy<G extends RolloutGroup>(
  groups: readonly G[],
  solved: (g: G, i: number) => boolean = isSolved,
): { kept: G[]; dropped: G[]; keptIdx: number[]; droppedIdx: number[] } {
  checkGroups(groups);
  const out = { kept: [] as G[], dropped: [] as G[], keptIdx: [] as number[], droppedIdx: [] as number[] };
  groups.forEach((g, gi) => {
    const easy = g.rewards.length > 0 && g.rewards.every((_, i) => solved(g, i));
    (easy ? out.dropped : out.kept).push(g);
    (easy ? out.droppedIdx : out.keptIdx).push(gi);
  });
  return out;
}

/**
 * DUPO (b): a batch of exactly batchSize slots from at most batchSize groups. A non-zero-std group keeps its
 * slot; the slot of a zero-std group (and any slot beyond groups.length) gets a random copy of a non-zero-std
 * group. All zero-std: skip.
 */
export function planDupo(groups: readonly RolloutGroup[], batchSize: number, rng: Rng, opts: { zeroStdTol?: number } = {}): BatchPlan {
  checkGroups(groups);
  checkBatchSize(batchSize);
  if (groups.length > batchSize) throw new LabError('bad_request', `planDupo got ${groups.length} groups for a batch of ${batchSize}`);
  const { informative, zero, turnOnly } = splitByStd(groups, opts.zeroStdTol);
  const base = { method: 'dupo' as const, kept: informative, dropped: zero, unused: [], batchSize };
  if (informative.length === 0) {
    return { ...base, slots: [], duplicated: [], skip: true, reason: groups.length === 0 ? 'empty' : 'all_zero_std', metrics: batchMetrics(groups.length, zero.length, 0, batchSize, turnOnly) };
  }
  let deck: number[] = [];
  const draw = (): number => {
    if (deck.length === 0) deck = rng.shuffle([...informative]);
    return deck.pop()!;
  };
  const zeroSet = new Set(zero);
  const slots: number[] = [];
  const duplicated: number[] = [];
  for (let s = 0; s < batchSize; s++) {
    if (s < groups.length && !zeroSet.has(s)) slots.push(s);
    else {
      const src = draw();
      slots.push(src);
      duplicated.push(src);
    }
  }
  return { ...base, slots, duplicated, skip: false, reason: null, metrics: batchMetrics(groups.length, zero.length, duplicated.length, batchSize, turnOnly) };
}

/** DAPO: drop zero-std groups, keep the first batchSize of the others (in order); the rest are unused. */
export function planDapo(groups: readonly RolloutGroup[], batchSize: number, opts: { zeroStdTol?: number } = {}): BatchPlan & { full: boolean; need: number } {
  checkGroups(groups);
  checkBatchSize(batchSize);
  const { informative, zero, turnOnly } = splitByStd(groups, opts.zeroStdTol);
  const kept = informative.slice(0, batchSize);
  const skip = kept.length === 0;
  return {
    method: 'dapo',
    slots: kept,
    kept,
    dropped: zero,
    duplicated: [],
    unused: informative.slice(batchSize),
    skip,
    reason: skip ? (groups.length === 0 ? 'empty' : 'all_zero_std') : null,
    batchSize,
    metrics: batchMetrics(groups.length, zero.length, 0, batchSize, turnOnly),
    full: kept.length === batchSize,
    need: batchSize - kept.length,
  };
}

/** GRPO dynamic filtering: drop zero-std groups; the batch is what is left (no refill, no copies). */
export function planGrpo(groups: readonly RolloutGroup[], opts: { zeroStdTol?: number } = {}): BatchPlan {
  checkGroups(groups);
  const { informative, zero, turnOnly } = splitByStd(groups, opts.zeroStdTol);
  const skip = informative.length === 0;
  return {
    method: 'grpo',
    slots: informative,
    kept: informative,
    dropped: zero,
    duplicated: [],
    unused: [],
    skip,
    reason: skip ? (groups.length === 0 ? 'empty' : 'all_zero_std') : null,
    batchSize: groups.length,
    metrics: batchMetrics(groups.length, zero.length, 0, Math.max(1, groups.length), turnOnly),
  };
}

export type DapoStop = 'full' | 'max_rounds' | 'source_exhausted';

export interface DapoFillResult<G extends RolloutGroup> {
  /** The training batch: non-zero-std groups in the order they arrived, at most batchSize. */
  groups: G[];
  full: boolean;
  /** Why the driver stopped: the batch is full, maxRounds were used, or sampleMore returned nothing. */
  stop: DapoStop;
  /** Calls to sampleMore (1 = the first round filled the batch). */
  rounds: number;
  /** Groups and rollouts sampled over all rounds. */
  sampledGroups: number;
  sampledRollouts: number;
  /** Groups and rollouts sampled after the first round: the cost of dynamic sampling. */
  extraGroups: number;
  extraRollouts: number;
  /** Zero-std groups dropped over all rounds. */
  zeroStd: number;
  /** Non-zero-std groups sampled but not needed (the last round overshot). */
  unused: number;
  /** No group with signal at all: skip the update. */
  skip: boolean;
  /** batch/zero_std_frac over all sampled groups, batch/duplicated_frac (0), batch/refill_rounds (rounds - 1). */
  metrics: Record<string, number>;
}

/**
 * DAPO dynamic sampling: round 1 asks sampleMore for batchSize new questions' groups; each later round asks
 * for ceil(need * oversample) more, where need is the number of empty slots, until the batch is full,
 * maxRounds calls have been made, or sampleMore returns no group (the dataset is used up). A batch that is not
 * full is returned as it is (full: false): token-level normalisation makes a smaller batch a valid update;
 * the loop decides whether to train on it.
 */
export async function dapoFill<G extends RolloutGroup>(
  sampleMore: (n: number) => Promise<G[]>,
  batchSize: number,
  maxRounds: number,
  opts: { oversample?: number; zeroStdTol?: number } = {},
): Promise<DapoFillResult<G>> {
  checkBatchSize(batchSize);
  if (!(Number.isInteger(maxRounds) && maxRounds > 0)) throw new LabError('bad_request', `maxRounds must be a positive integer, got ${maxRounds}`);
  const oversample = opts.oversample ?? 1;
  if (!(oversample >= 1)) throw new LabError('bad_request', `oversample must be >= 1, got ${oversample}`);
  const batch: G[] = [];
  const r = { rounds: 0, sampledGroups: 0, sampledRollouts: 0, extraGroups: 0, extraRollouts: 0, zeroStd: 0, unused: 0 };
  let stop: DapoStop = 'max_rounds';
  while (r.rounds < maxRounds) {
    const need = batchSize - batch.length;
    const got = await sampleMore(r.rounds === 0 ? batchSize : Math.ceil(need * oversample));
    r.rounds++;
    if (got.length === 0) {
      stop = 'source_exhausted';
      break;
    }
    const plan = planDapo(got, need, { zeroStdTol: opts.zeroStdTol });
    const rollouts = got.reduce((a, g) => a + g.rewards.length, 0);
    r.sampledGroups += got.length;
    r.sampledRollouts += rollouts;
    if (r.rounds > 1) {
      r.extraGroups += got.length;
      r.extraRollouts += rollouts;
    }
    r.zeroStd += plan.dropped.length;
    r.unused += plan.unused.length;
    for (const i of plan.kept) batch.push(got[i]!);
    if (batch.length === batchSize) {
      stop = 'full';
      break;
    }
  }
  return {
    groups: batch,
    full: batch.length === batchSize,
    stop,
    ...r,
    skip: batch.length === 0,
    metrics: { ...batchMetrics(r.sampledGroups, r.zeroStd, 0, batchSize), 'batch/refill_rounds': Math.max(0, r.rounds - 1) },
  };
}
