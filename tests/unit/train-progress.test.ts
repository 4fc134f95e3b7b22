// A training job's progress bar: the share of the run's steps done, as the dashboard counts them.
import { describe, expect, it } from 'vitest';
import { stepFraction } from '../../main/lab/train/policy/run';

describe('stepFraction', () => {
  it('is the share of the run steps done: step 200 of 2000 SFT steps is 10 % (it read 23 % with a fixed 15 % for data)', () => {
    expect(stepFraction(200, 2000)).toBe(0.1);
    expect(Math.round(stepFraction(200, 2000) * 100)).toBe(10);
  });

  it('counts SFT and RL steps together: SFT 2000 + RL 20, at the first RL step', () => {
    expect(stepFraction(2001, 2020)).toBeCloseTo(0.9906, 4);
    expect(stepFraction(2020, 2020)).toBe(1);
  });

  it('reads 0 before the first step (data preparation) and never leaves [0, 1]', () => {
    expect(stepFraction(0, 2000)).toBe(0);
    expect(stepFraction(-3, 10)).toBe(0);
    expect(stepFraction(12, 10)).toBe(1);
    expect(stepFraction(5, 0)).toBe(0);
    expect(stepFraction(Number.NaN, 10)).toBe(0);
  });
});
