import { describe, expect, it } from 'vitest';
import { groupAdvantages, isTruncatedNoAnswer, isZeroStd, meanStd } from '../../main/lab/rl/advantages';

describe('group-normalised advantages', () => {
  it('divides by the sample std by default, the population std on request', () => {
    // [1, 0, 0, 0]: mean 0.25; sample std sqrt(0.75 / 3) = 0.5; population std sqrt(0.75 / 4) = sqrt(3) / 4.
    const s = groupAdvantages([1, 0, 0, 0]);
    expect(s.mean).toBe(0.25);
    expect(s.std).toBeCloseTo(0.5, 12);
    expect(s.zeroStd).toBe(false);
    // 0.75 / (0.5 + 1e-6) = 1.499997: the eps shows in the 6th digit only.
    expect(s.advantages[0]).toBeCloseTo(1.5, 5);
    for (const a of s.advantages.slice(1)) expect(a).toBeCloseTo(-0.5, 5);
    expect(s.advantages[0]).toBeLessThan(1.5);
    const p = groupAdvantages([1, 0, 0, 0], { std: 'population' });
    expect(p.std).toBeCloseTo(Math.sqrt(3) / 4, 12);
    expect(p.advantages[0]).toBeCloseTo(Math.sqrt(3), 5); // 0.75 / (sqrt 3 / 4)
    expect(p.advantages[1]).toBeCloseTo(-1 / Math.sqrt(3), 5);
    expect(s.weights).toEqual([1, 1, 1, 1]);
  });

  it('handles the 0.1 format + 0.9 answer reward scale', () => {
    // [1, 0.1, 0.1, 0]: mean 0.3, deviations 0.7 -0.2 -0.2 -0.3, sum of squares 0.66, sample std sqrt(0.22) = 0.469042.
    const g = groupAdvantages([1, 0.1, 0.1, 0]);
    expect(g.std).toBeCloseTo(0.469041576, 8);
    expect(g.advantages[0]).toBeCloseTo(1.492402, 5);
    expect(g.advantages[1]).toBeCloseTo(-0.426401, 5);
    expect(g.advantages[3]).toBeCloseTo(-0.639601, 5);
    expect(g.advantages.reduce((a, x) => a + x, 0)).toBeCloseTo(0, 10);
  });

  it('gives exactly zero advantages to all-equal groups and flags them', () => {
    for (const r of [[1, 1, 1, 1], [0, 0, 0, 0], [0.1, 0.1], [1]]) {
      const g = groupAdvantages(r);
      expect(g.zeroStd).toBe(true);
      expect(g.advantages).toEqual(r.map(() => 0));
    }
    expect(groupAdvantages([1], { mode: 'leave_one_out' }).advantages).toEqual([0]);
    expect(isZeroStd([0.5, 0.5 + 1e-12])).toBe(true);
    expect(isZeroStd([0.5, 0.6])).toBe(false);
    expect(meanStd([])).toEqual({ mean: 0, std: 0 });
  });

  it('leave-one-out: R_i minus the mean of the others, no std', () => {
    // [1, 0, 0, 0]: 1 - 0 = 1; 0 - 1/3 = -1/3.
    const a = groupAdvantages([1, 0, 0, 0], { mode: 'leave_one_out' }).advantages;
    expect(a[0]).toBeCloseTo(1, 12);
    for (const x of a.slice(1)) expect(x).toBeCloseTo(-1 / 3, 12);
    // [1, 0.1, 0.1, 0]: 1 - 0.2/3 = 0.933333; 0.1 - 1.1/3 = -0.266667; 0 - 1.2/3 = -0.4.
    const b = groupAdvantages([1, 0.1, 0.1, 0], { mode: 'leave_one_out' }).advantages;
    expect(b[0]).toBeCloseTo(0.933333, 6);
    expect(b[1]).toBeCloseTo(-0.266667, 6);
    expect(b[3]).toBeCloseTo(-0.4, 12);
    // Identity: G / (G - 1) * (R_i - mean).
    b.forEach((x, i) => expect(x).toBeCloseTo((4 / 3) * ([1, 0.1, 0.1, 0][i]! - 0.3), 12));
  });
});

describe('excluding truncated negatives (V2)', () => {
  it('knows a truncated rollout: a limit and no prediction', () => {
    expect(isTruncatedNoAnswer({ termination: 'max_tokens', prediction: null })).toBe(true);
    expect(isTruncatedNoAnswer({ termination: 'max_steps', prediction: null })).toBe(true);
    expect(isTruncatedNoAnswer({ termination: 'max_steps', prediction: '' })).toBe(true);
    expect(isTruncatedNoAnswer({ termination: 'max_steps', prediction: 'Paris' })).toBe(false); // answered after the notice
    expect(isTruncatedNoAnswer({ termination: 'format_error', prediction: null })).toBe(false);
    expect(isTruncatedNoAnswer({ termination: 'answer', prediction: 'Paris' })).toBe(false);
  });

  it('gives weight 0 to truncated rollouts with A < 0 and leaves everything else as it was', () => {
    const rewards = [1, 0, 0, 0];
    const truncated = [false, true, false, false];
    const plain = groupAdvantages(rewards, {}, truncated);
    expect(plain.weights).toEqual([1, 1, 1, 1]); // option off: the flag alone changes nothing
    expect(plain.excluded).toEqual([]);
    const ex = groupAdvantages(rewards, { excludeTruncatedNegatives: true }, truncated);
    expect(ex.weights).toEqual([1, 0, 1, 1]);
    expect(ex.excluded).toEqual([1]);
    // The group statistics still count it: same mean, std and advantages as without the option.
    expect(ex.advantages).toEqual(plain.advantages);
    expect(ex.mean).toBe(plain.mean);
    expect(ex.std).toBe(plain.std);
    expect(ex.advantages[1]).toBeCloseTo(-0.5, 5);
  });

  it('keeps truncated rollouts whose advantage is not negative', () => {
    // Zero-std group of truncated failures: A = 0, nothing negative to exclude.
    expect(groupAdvantages([0, 0, 0], { excludeTruncatedNegatives: true }, [true, true, true]).weights).toEqual([1, 1, 1]);
    // A truncated rollout above the mean (possible with graded rewards) keeps its weight.
    const g = groupAdvantages([0.5, 0, 0, 0], { excludeTruncatedNegatives: true, mode: 'leave_one_out' }, [true, true, false, false]);
    expect(g.advantages[0]).toBeGreaterThan(0);
    expect(g.weights).toEqual([1, 0, 1, 1]);
  });

  it('rejects malformed input', () => {
    expect(() => groupAdvantages([1, 0], {}, [true])).toThrow(/truncated has 1 entries/);
    expect(() => groupAdvantages([1, Number.NaN])).toThrow(/finite/);
    expect(() => groupAdvantages([1, 0], { mode: 'ppo' as never })).toThrow(/unknown advantage mode/);
  });
});
