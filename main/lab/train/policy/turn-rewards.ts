// Turn rewards from the graph (issue 43; docs/learning.md, "Turn rewards on chains"): per turn of an episode on a
// chained question, the verifiable progress the turn made along the question's chain, shaped as a potential so
// that the policy that is best under the outcome reward stays the best. Pure.
//
// The potential Phi(s_t) of the state before turn t (after turns 0..t-1), for a question with B bridge entities
// (train/policy/chain.ts bridgeIds: the unnamed entities between what the question names and its answer):
//   Phi = (seen x (bridges some observation has shown) + hop x (bridges a later search or visit named)) / B
// and at the end of the episode: the chain complete, seen + hop, when the answer is right; 0 otherwise (the
// progress is lost when the episode ends without the answer, whatever the turns had found).
// Turn t's reward is F_t = gamma Phi(s_{t+1}) - Phi(s_t). Phi(s_0) = 0, so an episode's shaped rewards add up
// to gamma^T (seen + hop) x correct: with gamma = 1 exactly a multiple of the answer reward, so adding them
// to the episode's reward orders no two episodes differently (Ng, Harada & Russell 1999: the outcome-optimal
// policy stays optimal). What shaping changes is which TURNS get the credit (turnAdvantages): the turn that
// found the bridge (kind `seen`), the search that named it (`hop`), and, at the last turn, the answer that
// completed the chain (`answer`), that named a bridge instead (`answered_bridge`), or that threw the
// progress away (`dropped`: a wrong answer or none).
// Repeats are not a potential: `repeat` is a plain cost per search or visit whose every query or URL an
// earlier turn already asked (the simulated web answers the same thing twice, so an outcome-optimal policy
// never needs one). Questions without a bridge (one hop) have Phi = 0 throughout: only repeats count there.
import type { QA } from '../../formats/index';
import type { AgentStep } from '../../agent/react';
import { normalizeAnswer } from '../../agent/text';
import { bridgeIds } from './chain';
import { actionText, mentions } from '../../agent/mentions';

export interface TurnRewardWeights {
  /** Potential for each bridge an observation showed (shared over the bridges). */
  seen: number;
  /** Potential for each seen bridge a later search or visit named (the hop to it). */
  hop: number;
  /** Cost of a search or visit that repeats earlier queries or URLs only (not a potential). */
  repeat: number;
  /** The shaping's discount (1: the episode's sum is exactly a multiple of the answer reward). */
  gamma: number;
}

export const TURN_REWARDS_OFF: TurnRewardWeights = { seen: 0, hop: 0, repeat: 0, gamma: 1 };

export const TURN_KINDS = ['seen', 'hop', 'answer', 'answered_bridge', 'dropped', 'discount', 'repeat'] as const;
export type TurnKind = (typeof TURN_KINDS)[number];

export interface TurnReward {
  /** The turn's reward: the sum of its parts. */
  reward: number;
  /** What it is made of, by kind (only kinds that are not 0). */
  parts: Partial<Record<TurnKind, number>>;
}

/** Whether any weight is on: turn rewards cost nothing to skip when all are 0. */
export function turnRewardsOn(w: TurnRewardWeights): boolean {
  return w.seen !== 0 || w.hop !== 0 || w.repeat !== 0;
}

/** An episode as the turn rewards read it: its steps, the bridges' names, whether its answer was right. */
export interface ChainEpisodeInput {
  steps: readonly Pick<AgentStep, 'action' | 'observation'>[];
  /** The names of the question's bridge entities (empty: no chain). */
  bridges: readonly string[];
  correct: boolean;
}

/** The names of a question's bridges, through the graph's names (an id without a name stands for itself). */
export function bridgeNames(qa: Pick<QA, 'subgraph' | 'answer_id' | 'query'>, names: ReadonlyMap<string, string>): string[] {
  return bridgeIds(qa).map((id) => names.get(id) ?? id);
}

const isMove = (s: Pick<AgentStep, 'action'>): boolean => s.action.name === 'search' || s.action.name === 'visit';

/**
 * Phi(s_0) ... Phi(s_T) of an episode of T turns (see the top of this file): T + 1 values, the last the end of
 * the episode's. Also how many bridges were seen and hopped before each turn.
 */
export function chainPotentials(e: ChainEpisodeInput, w: Pick<TurnRewardWeights, 'seen' | 'hop'>): { phi: number[]; seen: number[]; hopped: number[] } {
  const B = e.bridges.length;
  const T = e.steps.length;
  const seenAt = new Set<number>();
  const hoppedAt = new Set<number>();
  const phi = [0];
  const seen = [0];
  const hopped = [0];
  for (let t = 0; t < T; t++) {
    const s = e.steps[t]!;
    // The hop first (this turn's action reads what earlier turns showed), then what its observation shows.
    if (isMove(s)) e.bridges.forEach((b, i) => seenAt.has(i) && mentions(actionText(s), b) && hoppedAt.add(i));
    e.bridges.forEach((b, i) => mentions(s.observation ?? '', b) && seenAt.add(i));
    seen.push(seenAt.size);
    hopped.push(hoppedAt.size);
    phi.push(B === 0 ? 0 : (w.seen * seenAt.size + w.hop * hoppedAt.size) / B);
  }
  // The end of the episode: the chain complete when the answer is right, the progress lost otherwise.
  if (T > 0) phi[T] = B > 0 && e.correct ? w.seen + w.hop : 0;
  return { phi, seen, hopped };
}

const queryKey = (q: unknown): string => normalizeAnswer(String(q));

/** For each turn: a search or visit whose every query or URL an earlier turn already asked. */
export function repeatedMoves(steps: readonly Pick<AgentStep, 'action'>[]): boolean[] {
  const asked = new Set<string>();
  return steps.map((s) => {
    if (!isMove(s)) return false;
    const a = s.action.arguments;
    const raw = s.action.name === 'search' ? a.query : a.url;
    const keys = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((q) => `${s.action.name}:${queryKey(q)}`);
    const repeat = keys.length > 0 && keys.every((k) => asked.has(k));
    for (const k of keys) asked.add(k);
    return repeat;
  });
}

/** The reward of each turn of an episode (see the top of this file). */
export function turnRewards(e: ChainEpisodeInput, w: TurnRewardWeights): TurnReward[] {
  const T = e.steps.length;
  if (T === 0) return [];
  const { phi, seen, hopped } = chainPotentials(e, w);
  const repeats = w.repeat !== 0 ? repeatedMoves(e.steps) : e.steps.map(() => false);
  const B = e.bridges.length;
  const last = e.steps[T - 1]!;
  const prediction = last.action.name === 'answer' ? String(last.action.arguments.answer ?? '') : null;
  const namesBridge = prediction !== null && e.bridges.some((b) => normalizeAnswer(b) === normalizeAnswer(prediction));
  return e.steps.map((s, t) => {
    const parts: Partial<Record<TurnKind, number>> = {};
    const add = (k: TurnKind, v: number): void => {
      if (v !== 0) parts[k] = (parts[k] ?? 0) + v;
    };
    const delta = phi[t + 1]! - phi[t]!;
    if (t < T - 1) {
      // Progress inside the episode: what this turn's hop and observation added.
      const dSeen = B === 0 ? 0 : (w.seen * (seen[t + 1]! - seen[t]!)) / B;
      const dHop = B === 0 ? 0 : (w.hop * (hopped[t + 1]! - hopped[t]!)) / B;
      add('seen', dSeen);
      add('hop', dHop);
    } else {
      add(e.correct ? 'answer' : namesBridge ? 'answered_bridge' : 'dropped', delta);
    }
    add('discount', (w.gamma - 1) * phi[t + 1]!);
    if (repeats[t]) add('repeat', -w.repeat);
    const reward = Object.values(parts).reduce((a, v) => a + v, 0);
    return { reward, parts };
  });
}

/**
 * Credit per turn: each turn's advantage is its episode's (group-relative, outcome) advantage plus the turn's
 * own reward. The shaped part is myopic like MT-GRPO's turn rewards: a turn is credited with the progress it
 * made, not with what later turns made of it (the episode advantage carries the outcome to every turn).
 */
export function turnAdvantages(episodeAdvantage: number, rewards: readonly TurnReward[]): number[] {
  return rewards.map((r) => episodeAdvantage + r.reward);
}

/** The shaped rewards of an episode added up (the episode-level alternative: it joins the outcome reward). */
export function episodeShaping(rewards: readonly TurnReward[]): number {
  return rewards.reduce((a, r) => a + r.reward, 0);
}

/** Mean turn reward per rollout by kind (`turn/<kind>`), and the share of rollouts with any turn reward. */
export function turnRewardMetrics(episodes: readonly (readonly TurnReward[])[]): Record<string, number> {
  if (episodes.length === 0) return {};
  const m: Record<string, number> = {};
  for (const k of TURN_KINDS) m[`turn/${k}`] = episodes.reduce((a, e) => a + e.reduce((b, r) => b + (r.parts[k] ?? 0), 0), 0) / episodes.length;
  m['turn/rewarded_frac'] = episodes.filter((e) => e.some((r) => r.reward !== 0)).length / episodes.length;
  return m;
}
