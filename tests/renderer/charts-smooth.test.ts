import { describe, expect, it } from 'vitest';
import { alignSeries, emaSmooth, SMOOTH_MIN_POINTS, smoothable } from '../../renderer/src/charts/smooth';
import { legendValue, tickLabel } from '../../renderer/src/charts/ticks';

describe('emaSmooth (debiased EMA)', () => {
  it('weight 0 is the raw series', () => {
    expect(emaSmooth([1, 5, 3], 0)).toEqual([1, 5, 3]);
  });

  it('hand-checked values at weight 0.5: the first point is not pulled toward 0', () => {
    // last: 0.5*0+0.5*2 = 1 -> /(1-0.5) = 2; then 0.5*1+0.5*4 = 2.5 -> /(1-0.25) = 3.333…
    const s = emaSmooth([2, 4], 0.5);
    expect(s[0]).toBeCloseTo(2, 12);
    expect(s[1]).toBeCloseTo(10 / 3, 12);
  });

  it('a constant series stays constant whatever the weight', () => {
    for (const w of [0.3, 0.9, 0.99]) for (const v of emaSmooth([7, 7, 7, 7], w)) expect(v).toBeCloseTo(7, 10);
  });

  it('keeps gaps as gaps without resetting the average', () => {
    const s = emaSmooth([2, null, 4], 0.5);
    expect(s[1]).toBeNull();
    expect(s[2]).toBeCloseTo(10 / 3, 12);
  });
});

describe('alignSeries', () => {
  it('merges different x samplings into one sorted x column with nulls', () => {
    expect(alignSeries([{ xs: [1, 3], ys: [10, 30] }, { xs: [2, 3], ys: [20, 31] }])).toEqual([
      [1, 2, 3],
      [10, null, 30],
      [null, 20, 31],
    ]);
  });
});

describe('smoothable: sparse series are drawn raw', () => {
  it('smooths only with smoothing on and at least SMOOTH_MIN_POINTS finite values', () => {
    const dense = Array.from({ length: SMOOTH_MIN_POINTS }, (_, i) => i);
    expect(smoothable(dense, 0.6)).toBe(true);
    expect(smoothable(dense, 0)).toBe(false);
    // Four evaluations (the case): raw, so no smoothed value that never occurred.
    expect(smoothable([0, 0.01, 0.02, 0.033], 0.6)).toBe(false);
    // Gaps do not count: 19 values among 40 slots stay raw.
    expect(smoothable([...dense.slice(1), ...Array<null>(21).fill(null)], 0.6)).toBe(false);
    // What smoothing would have drawn at the last of four evaluations: well below the value that occurred.
    expect(emaSmooth([0, 0.01, 0.02, 0.033], 0.6).at(-1)!).toBeLessThan(0.025);
  });
});

describe('tickLabel: axis ticks keep small values', () => {
  it('writes a learning rate as 2e-4, not 0', () => {
    expect([2e-4, 1.5e-4, -3e-5].map(tickLabel)).toEqual(['2e-4', '1.5e-4', '-3e-5']);
    expect([0, 0.5, 0.12345678, 3, 12000].map(tickLabel)).toEqual(['0', '0.5', '0.123457', '3', '12,000']);
  });
});

describe('legendValue: the legend read-out keeps small values', () => {
  it('writes a learning rate of 1e-6 as 1e-6, not 0, and rounds the rest to 4 digits', () => {
    expect([1e-6, 2.5e-7, -3e-5].map(legendValue)).toEqual(['1e-6', '2.5e-7', '-3e-5']);
    expect([0, 0.5, 0.123456, 3.14159, 12000, null, undefined, NaN].map(legendValue)).toEqual(['0', '0.5', '0.1235', '3.142', '12,000', '–', '–', '–']);
  });
});
