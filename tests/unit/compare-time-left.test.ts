// A long comparison's time left (compare-job.ts timeLeftAt): the pace so far, extrapolated, hand-checked.
import { describe, expect, it } from 'vitest';
import { timeLeftAt } from '../../main/lab/train/act/compare-job';

describe('a comparison’s time left (compare-job.ts timeLeftAt)', () => {
  it('extrapolates the pace so far once a twentieth is done, and says nothing before or at the end', () => {
    expect(timeLeftAt(0.5, 10_000)).toEqual({ secondsLeft: 10 });
    expect(timeLeftAt(0.25, 30_000)).toEqual({ secondsLeft: 90 });
    expect(timeLeftAt(0.04, 30_000)).toEqual({});
    expect(timeLeftAt(1, 30_000)).toEqual({});
  });
});
