// The dashboard's RL helpers: which steps are RL steps, the advantage histogram of a step (copies
// counted, dropped groups left out), the colour scales, and the step pickers behind the group view.
import { describe, expect, it } from 'vitest';
import { RL_STALL_STEPS, rlCannotLearn, zeroAnswerStreak, type RlGroupView } from '../../main/lab/contract';
import { advantageColour, advantageHistogram, nearestStep, rewardColour, rlStepsOf, stepAtOrBefore, short } from '../../renderer/src/components/runs/rlView';

function group(status: RlGroupView['status'], copies: number, advantages: number[]): RlGroupView {
  return {
    group: `1/q${advantages.length}`,
    qa_id: 'q',
    rewards: advantages.map(() => 0),
    mean: 0,
    std: 0,
    advantages,
    status,
    copies,
    question: null,
    rollouts: advantages.map((advantage) => ({
      trajId: null, reward: 0, advantage, answer: null, format: null, termination: null, policy_version: null, staleness: null, turnAdvantages: null,
    })),
  };
}

describe('RL view helpers', () => {
  it('finds the RL steps of a run from the keys only RL steps write', () => {
    const byName = new Map([
      ['sft/loss', { steps: [1, 2, 3] }],
      ['reward/mean', { steps: [2, 4, 5] }], // SFT evaluations write it too: not a marker
      ['batch/skipped', { steps: [4, 5, 6] }],
      ['reward/std', { steps: [4, 5] }],
    ]);
    expect(rlStepsOf(byName)).toEqual([4, 5, 6]);
    expect(rlStepsOf(new Map())).toEqual([]);
  });

  it('picks steps for the group view and the click-through', () => {
    expect(stepAtOrBefore([21, 23, 25], 24)).toBe(23);
    expect(stepAtOrBefore([21, 23, 25], 99)).toBe(25);
    expect(stepAtOrBefore([21, 23, 25], 3)).toBe(21);
    expect(stepAtOrBefore([], 3)).toBeNull();
    expect(nearestStep([10, 20, 30], 26)).toBe(30);
    expect(nearestStep([], 26)).toBeNull();
  });

  it('histograms the advantages the update used: copies counted, dropped groups left out, 0 in the middle bin', () => {
    const h = advantageHistogram({ groups: [group('kept', 1, [1, -1, 1, -1]), group('duplicated', 3, [2, -0.5]), group('dropped', 0, [0, 0, 0])] }, 5);
    expect(h.scale).toBe(2);
    expect(h.total).toBe(4 + 2 * 3);
    expect(h.dropped).toBe(3);
    expect(h.bins.map((b) => b.count)).toEqual([0, 2 + 3, 0, 2, 3]);
    expect(h.bins[2]!.lo).toBeCloseTo(-0.4);
    expect(h.bins[2]!.hi).toBeCloseTo(0.4);
    expect(h.maxCount).toBe(5);
    const empty = advantageHistogram({ groups: [group('dropped', 0, [0, 0])] });
    expect(empty.total).toBe(0);
    expect(empty.bins.every((b) => b.count === 0)).toBe(true);
  });

  it('colours rewards red to green and advantages around a neutral grey', () => {
    expect(rewardColour(0)).toBe('rgb(239, 100, 97)');
    expect(rewardColour(1)).toBe('rgb(76, 195, 138)');
    expect(rewardColour(0.5)).toBe('rgb(232, 176, 75)');
    expect(rewardColour(7)).toBe(rewardColour(1));
    expect(advantageColour(2, 2)).toBe('rgb(76, 195, 138)');
    expect(advantageColour(-2, 2)).toBe('rgb(239, 100, 97)');
    expect(advantageColour(1, 0)).toBe('#2a3541');
    expect([short(1), short(0.1), short(-0.875), short(12.44), short(0)]).toEqual(['1', '0.1', '-0.88', '12.4', '0']);
  });
});

describe('rlCannotLearn: every group all-wrong for many RL steps', () => {
  it('counts the trailing steps with a zero answer reward', () => {
    expect(zeroAnswerStreak([])).toBe(0);
    expect(zeroAnswerStreak([0.1, 0, 0, 0])).toBe(3);
    expect(zeroAnswerStreak([0, 0, 0.05])).toBe(0);
  });

  it('holds from RL_STALL_STEPS (5) zero steps on, not before, and not once one group answers', () => {
    expect(RL_STALL_STEPS).toBe(5);
    expect(rlCannotLearn([0, 0, 0, 0])).toBe(false);
    expect(rlCannotLearn([0, 0, 0, 0, 0])).toBe(true);
    expect(rlCannotLearn([0.2, 0, 0, 0, 0, 0])).toBe(true);
    expect(rlCannotLearn([0, 0, 0, 0, 0, 0.0625])).toBe(false);
    expect(rlCannotLearn([0, 0, 0], 3)).toBe(true);
  });
});
