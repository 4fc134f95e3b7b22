import { describe, expect, it } from 'vitest';
import { alignSeries, emaSmooth } from '../../renderer/src/charts/smooth';

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
