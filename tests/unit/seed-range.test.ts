// A preset's figure as a range over seeds, and a run's place in it (contract/seed-range.ts), on hand-checked cases.
import { describe, expect, it } from 'vitest';
import { placeInRange, presetRange, rangeWords, seedRange } from '../../main/lab/contract/seed-range';

describe('seed ranges', () => {
  it('spans the figures of several seeds', () => {
    expect(seedRange([0.61, 0.637, 0.58])).toEqual({ low: 0.58, high: 0.637, seeds: 3 });
    expect(seedRange([Number.NaN])).toBeNull();
    expect(seedRange([])).toBeNull();
  });

  it('places a run below, within or above, and says when one seed cannot tell', () => {
    const three = seedRange([0.58, 0.61, 0.637])!;
    expect(placeInRange(0.6, three)).toEqual({ where: 'within', by: 0, words: '0.600, within the measured 0.580–0.637 (3 seeds)' });
    const below = placeInRange(0.547, three);
    expect(below.where).toBe('below');
    expect(below.by).toBeCloseTo(0.033);
    expect(below.words).toBe('0.547, 0.033 below the measured 0.580–0.637 (3 seeds)');
    const one = placeInRange(0.547, seedRange([0.637])!);
    expect(one.words).toBe("0.547, 0.090 below the measured 0.637 (one seed); with 1 seed measured the normal spread is not known, so a gap this size may be a seed's luck");
    expect(placeInRange(0.7, seedRange([0.6, 0.65])!).where).toBe('above');
  });
});

describe('presetRange and rangeWords', () => {
  it('reads the figures after RL for a run with RL, after SFT otherwise, from the preset object given', () => {
    const bySeed = { sft: [0.62, 0.58, 0.6], rl: [0.637, 0.55, 0.61] };
    expect(presetRange(bySeed, true)).toEqual({ low: 0.55, high: 0.637, seeds: 3 });
    expect(presetRange(bySeed, false)).toEqual({ low: 0.58, high: 0.62, seeds: 3 });
    expect(presetRange({ sft: [], rl: [] }, true)).toBeNull();
  });

  it('says how many seeds stand behind the range, and when they are too few', () => {
    expect(rangeWords({ low: 0.55, high: 0.637, seeds: 3 })).toBe('0.550–0.637 over 3 seeds');
    expect(rangeWords({ low: 0.6, high: 0.637, seeds: 2 })).toBe('0.600–0.637 over 2 seeds (fewer than 3: the spread may be wider)');
    expect(rangeWords({ low: 0.637, high: 0.637, seeds: 1 })).toBe('0.637 (one seed; the spread over seeds is not measured yet)');
  });
});
