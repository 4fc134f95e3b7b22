// The RL stage's turn rewards (train/policy/turn-rewards.ts) and group advantages: a group's G rollouts scored turn by
// turn against the question's chain on the run's graph when `rl.turnRewards` has a weight, then advantages by
// `rl.credit` (per turn, or the shaping added to the episode reward) with `rl.positiveWeight` applied.
import type { QA } from '../../formats';
import type { AgentStep } from '../../agent/react';
import { readGraphFile } from '../../kg/io';
import { graphFile } from '../../store/layout';
import { isCorrect } from '../../contract/correct';
import { groupAdvantages, isTruncatedNoAnswer, type GroupAdvantages } from '../../rl/advantages';
import { bridgeNames, episodeShaping, turnAdvantages, turnRewards, turnRewardsOn, type TurnReward } from '../policy/turn-rewards';
import type { Trajectory } from '../../formats';
import type { RlStage } from './rl-stage';

const namesByStage = new WeakMap<RlStage, Map<string, string>>();

/** The run's graph's entity names, read once per stage. */
function entityNames(stage: RlStage): Map<string, string> {
  let names = namesByStage.get(stage);
  if (!names) {
    const { ctx, config } = stage.run;
    names = new Map(readGraphFile(graphFile(ctx.home, config.data.graphId)).nodes.map((n) => [n.id, n.name]));
    namesByStage.set(stage, names);
  }
  return names;
}

export interface ScoredGroup {
  rewards: number[];
  adv: GroupAdvantages;
  /** Each rollout's turn rewards (null: turn rewards off). */
  turnRewards: TurnReward[][] | null;
  /** Each rollout's advantage per turn (credit 'turn'; null otherwise: every turn has the episode's). */
  turnAdvantages: number[][] | null;
  /** Credit per turn: some turn advantage is not 0 (even when every reward is equal); undefined otherwise. */
  turnSignal: boolean | undefined;
}

/** A group's rewards and advantages, with turn rewards and per-turn credit when the config asks. */
export function scoreGroup(stage: RlStage, qa: QA, trajs: readonly Trajectory[]): ScoredGroup {
  const { rl } = stage;
  const turns = turnRewardsOn(rl.turnRewards)
    ? trajs.map((t) => turnRewards({ steps: t.steps as AgentStep[], bridges: bridgeNames(qa, entityNames(stage)), correct: isCorrect(t.reward) }, rl.turnRewards))
    : null;
  const episodeLevel = turns !== null && rl.credit === 'episode';
  const rewards = trajs.map((t, i) => t.reward.total + (episodeLevel ? episodeShaping(turns[i]!) : 0));
  const adv = groupAdvantages(rewards, { mode: rl.advantage, excludeTruncatedNegatives: rl.excludeTruncatedNegatives }, trajs.map((t) => isTruncatedNoAnswer(t)));
  if (rl.positiveWeight !== 1) adv.advantages = adv.advantages.map((a) => (a > 0 ? a * rl.positiveWeight : a));
  const perTurn = turns !== null && rl.credit === 'turn' ? turns.map((r, i) => turnAdvantages(adv.advantages[i]!, r)) : null;
  // Excluded rollouts (weight 0) carry no signal, whatever their turns.
  const turnSignal = perTurn === null ? undefined : perTurn.some((a, i) => adv.weights[i] !== 0 && a.some((x) => x !== 0));
  return { rewards, adv, turnRewards: turns, turnAdvantages: perTurn, turnSignal };
}
