// The contract's view of an agentic RL step: each question's group of G rollouts, its rewards, advantages and
// what the batch plan did with it (the header of runs/<id>/rollouts/step-N.jsonl), as the dashboard reads it.
import type { Termination } from '../formats';
export const RL_GROUP_STATUSES = ['kept', 'dropped', 'duplicated'] as const;
export type RlGroupStatus = (typeof RL_GROUP_STATUSES)[number];

/** One question's group of G rollouts in an RL step's batch plan (header of runs/<id>/rollouts/step-N.jsonl). */
export interface RlGroupPlan {
  /** `<step>/<qa_id>`: the id the group's trajectories carry in their `group` field. */
  group: string;
  qa_id: string;
  /** R_i of each rollout, in the order of the group's trajectory lines. */
  rewards: number[];
  mean: number;
  std: number;
  advantages: number[];
  /** kept (has signal), dropped (zero std: left out, or DAPO's surplus), duplicated (copied into other slots). */
  status: RlGroupStatus;
  /** Slots of the batch the group fills (2 or more when DUPO copied it). */
  copies: number;
}

export interface RlStepPlan {
  method: string;
  groups: RlGroupPlan[];
  zero_std: number;
  duplicated: number;
  refilled: number;
  /** No group had signal: the optimiser step was skipped. */
  skip: boolean;
}

/** One rollout of a group as the group view shows it: what it scored, and the trajectory it opens. */
export interface RlRollout {
  /** Trajectory id in the step's set (`rl:<run>:<step>`); null when the file holds no line for it. */
  trajId: string | null;
  reward: number;
  advantage: number;
  answer: number | null;
  format: number | null;
  termination: Termination | null;
  policy_version: number | null;
  staleness: number | null;
  /** One advantage per turn under credit per turn (`rl.credit: "turn"`); null under episode credit. */
  turnAdvantages: number[] | null;
}

export interface RlGroupView extends RlGroupPlan {
  /** The question text, from the run's training dataset (null when that dataset is gone). */
  question: string | null;
  rollouts: RlRollout[];
}

/** `runs.rlStep`: an RL step's batch plan, its metrics summary and every group with its rollouts. */
export interface RlStepView {
  runId: string;
  step: number;
  /** The trajectory set id of the step's rollouts, for the inspector: `rl:<run>:<step>`. */
  setId: string;
  policyVersion: number;
  plan: Omit<RlStepPlan, 'groups'>;
  summary: Record<string, number>;
  groups: RlGroupView[];
}

/** RL steps in a row with no correct answer in any rollout before the dashboard says RL cannot learn. */
export const RL_STALL_STEPS = 5;

/**
 * The RL steps at the end of a run in which no rollout answered correctly: `answerRewards` is each RL step's
 * `reward/answer` (the mean over every rollout, before any group is dropped), oldest first; a mean of 0 means
 * every group was all-wrong.
 */
export function zeroAnswerStreak(answerRewards: readonly number[]): number {
  let n = 0;
  for (let i = answerRewards.length - 1; i >= 0 && answerRewards[i] === 0; i--) n++;
  return n;
}

/**
 * Whether RL cannot learn from where it started: for `min` steps or more every group of G rollouts was all
 * wrong, so every group's rewards are equal, every advantage is zero and the update has nothing to follow.
 */
export function rlCannotLearn(answerRewards: readonly number[], min = RL_STALL_STEPS): boolean {
  return zeroAnswerStreak(answerRewards) >= min;
}
