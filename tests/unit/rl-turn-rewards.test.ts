// Turn rewards from the graph (train/policy/turn-rewards.ts) on hand-made episodes of "Vance Air Force Base serves a city.
// Which country contains the city?" (bridge Enid, answer United States): a bridge found and used, a bridge lost,
// a bridge answered; and the shaping orders no two episodes differently from their outcome rewards.
import { describe, expect, it } from 'vitest';
import type { AgentStep } from '../../main/lab/agent/react';
import { combineReward } from '../../main/lab/agent/reward';
import { chainPotentials, episodeShaping, repeatedMoves, turnAdvantages, turnRewardMetrics, turnRewards, type TurnRewardWeights } from '../../main/lab/train/policy/turn-rewards';
import { answer, hop, s1, s2, search, visit } from '../support/chain-steps';

const ep = (steps: AgentStep[], correct: boolean) => ({ steps, bridges: ['Enid'], correct });
const W: TurnRewardWeights = { seen: 0.2, hop: 0.3, repeat: 0, gamma: 1 };
const rewards = (steps: AgentStep[], correct: boolean, w = W) => turnRewards(ep(steps, correct), w).map((r) => Math.round(r.reward * 1e9) / 1e9);

describe('turnRewards', () => {
  it('a bridge found and used: the reading turn gets seen, the search naming it hop, the right answer nothing more', () => {
    const steps = [s1, s2, hop, answer('United States')];
    expect(chainPotentials(ep(steps, true), W).phi).toEqual([0, 0, 0.2, 0.5, 0.5]);
    expect(rewards(steps, true)).toEqual([0, 0.2, 0.3, 0]);
    const parts = turnRewards(ep(steps, true), W).map((r) => r.parts);
    expect(parts).toEqual([{}, { seen: 0.2 }, { hop: 0.3 }, {}]);
  });

  it('a bridge lost: found, never used, a wrong answer gives the progress back at the last turn', () => {
    const steps = [s1, s2, search('Air Force', 'nothing'), answer('Kansas')];
    expect(rewards(steps, false)).toEqual([0, 0.2, 0, -0.2]);
    expect(turnRewards(ep(steps, false), W)[3]!.parts).toEqual({ dropped: -0.2 });
  });

  it('a bridge answered: the answer that names the bridge is its own kind, and costs what was found', () => {
    const steps = [s1, s2, answer('Enid')];
    expect(rewards(steps, false)).toEqual([0, 0.2, -0.2]);
    expect(turnRewards(ep(steps, false), W)[2]!.parts).toEqual({ answered_bridge: -0.2 });
  });

  it('a right answer that skipped the chain gets the whole chain at the answer; a hop before the bridge was seen is none', () => {
    expect(rewards([search('Enid', 'nothing'), answer('United States')], true)).toEqual([0, 0.5]);
  });

  it('a question without a bridge has no potential; repeats cost only with their weight', () => {
    const steps = [s1, s1, answer('Kansas')];
    expect(turnRewards({ steps, bridges: [], correct: false }, W).map((r) => r.reward)).toEqual([0, 0, 0]);
    expect(repeatedMoves(steps)).toEqual([false, true, false]);
    expect(turnRewards({ steps, bridges: [], correct: false }, { ...W, repeat: 0.1 }).map((r) => r.reward)).toEqual([0, -0.1, 0]);
  });

  it('gamma < 1 adds a discount part: F = gamma Phi(next) - Phi(now)', () => {
    const steps = [s1, s2, hop, answer('United States')];
    const r = turnRewards(ep(steps, true), { ...W, gamma: 0.9 });
    expect(r.map((x) => Math.round(x.reward * 1e9) / 1e9)).toEqual([0, 0.18, 0.25, -0.05]);
    expect(r[1]!.parts).toEqual({ seen: 0.2, discount: expect.closeTo(-0.02, 9) as number });
  });
});

describe('the shaping is a potential', () => {
  // Every episode shape of the tests above and more, right and wrong, well-formed or not.
  const episodes: { steps: AgentStep[]; correct: boolean; format: number }[] = [
    { steps: [s1, s2, hop, answer('United States')], correct: true, format: 1 },
    { steps: [search('Enid', 'nothing'), answer('United States')], correct: true, format: 0.5 },
    { steps: [s1, s2, hop, hop, hop, answer('United States')], correct: true, format: 1 },
    { steps: [s1, s2, hop, answer('Oklahoma')], correct: false, format: 1 },
    { steps: [s1, s2, answer('Enid')], correct: false, format: 1 },
    { steps: [s1, s2, search('Air Force', 'nothing'), answer('Kansas')], correct: false, format: 0.75 },
    { steps: [s1, visit('sim://Vance', 'Vance is a town.'), answer('Canada')], correct: false, format: 1 },
    { steps: [s1, s2, hop], correct: false, format: 0.5 },
  ];

  it("an episode's shaped rewards add up to (seen + hop) x correct, so the outcome ordering is unchanged", () => {
    const outcome = episodes.map((e) => combineReward(e.format, e.correct ? 1 : 0).total);
    const shaped = episodes.map((e, i) => outcome[i]! + episodeShaping(turnRewards(ep(e.steps, e.correct), W)));
    episodes.forEach((e, i) => expect(shaped[i]! - outcome[i]!).toBeCloseTo(e.correct ? 0.5 : 0, 9));
    for (let i = 0; i < episodes.length; i++) {
      for (let j = 0; j < episodes.length; j++) expect(Math.sign(shaped[i]! - shaped[j]!)).toBe(Math.sign(outcome[i]! - outcome[j]!));
    }
  });

  it('per-turn credit moves the advantage between turns: the bridge turn up, the answer that dropped it down', () => {
    const lost = turnRewards(ep([s1, s2, search('Air Force', 'nothing'), answer('Kansas')], false), W);
    expect(turnAdvantages(0, lost).map((a) => Math.round(a * 1e9) / 1e9)).toEqual([0, 0.2, 0, -0.2]);
    expect(turnAdvantages(0.5, lost).map((a) => Math.round(a * 1e9) / 1e9)).toEqual([0.5, 0.7, 0.5, 0.3]);
  });

  it('metrics: mean reward per rollout by kind, the share of rollouts with one', () => {
    const m = turnRewardMetrics([turnRewards(ep([s1, s2, hop, answer('United States')], true), W), turnRewards(ep([s1, answer('Kansas')], false), W)]);
    expect(m['turn/seen']).toBeCloseTo(0.1, 9);
    expect(m['turn/hop']).toBeCloseTo(0.15, 9);
    expect(m['turn/rewarded_frac']).toBe(0.5);
  });
});
