// What a preset reaches as a range over seeds, and where one run's figure falls in it. A figure measured on one
// seed cannot say whether a run 0.09 below it is normal: the range over several seeds can. With fewer than
// MIN_SEEDS seeds the words say so, rather than implying a spread that was never measured.

/** Seeds a range needs before it can tell a normal run from a poor one. */
export const MIN_SEEDS = 3;

export interface SeedRange {
  low: number;
  high: number;
  seeds: number;
}

/** The lowest and highest of the figures measured on different seeds; null without any. */
export function seedRange(values: readonly number[]): SeedRange | null {
  const xs = values.filter((v) => Number.isFinite(v));
  if (!xs.length) return null;
  return { low: Math.min(...xs), high: Math.max(...xs), seeds: xs.length };
}

export interface RangePlace {
  where: 'below' | 'within' | 'above';
  /** How far outside the range (0 within it). */
  by: number;
  /** The run's figure against the range, in words. */
  words: string;
}

const f3 = (x: number): string => x.toFixed(3);

/** Where `actual` falls in `range`, in words that say how many seeds stand behind the range. */
export function placeInRange(actual: number, range: SeedRange): RangePlace {
  const span = range.seeds === 1 ? `${f3(range.low)} (one seed)` : `${f3(range.low)}–${f3(range.high)} (${range.seeds} seeds)`;
  const few = range.seeds < MIN_SEEDS ? `; with ${range.seeds} seed${range.seeds === 1 ? '' : 's'} measured the normal spread is not known, so a gap this size may be a seed's luck` : '';
  if (actual < range.low) return { where: 'below', by: range.low - actual, words: `${f3(actual)}, ${f3(range.low - actual)} below the measured ${span}${few}` };
  if (actual > range.high) return { where: 'above', by: actual - range.high, words: `${f3(actual)}, ${f3(actual - range.high)} above the measured ${span}${few}` };
  return { where: 'within', by: 0, words: `${f3(actual)}, within the measured ${span}${few}` };
}

/** A preset's final figures per seed measured (QUICK_PRESET.expectation.finalBySeed, and any preset's like it). */
export interface FinalBySeed {
  sft: readonly number[];
  rl: readonly number[];
}

/** The range a preset's run is judged against: after RL when the run has an RL stage, else after SFT. */
export function presetRange(finalBySeed: FinalBySeed, withRl: boolean): SeedRange | null {
  return seedRange(withRl ? finalBySeed.rl : finalBySeed.sft);
}

/** The range in words: "0.580–0.637 over 3 seeds", or one seed's figure saying the spread is not measured. */
export function rangeWords(range: SeedRange): string {
  if (range.seeds === 1 || range.low === range.high) {
    return `${f3(range.low)} (${range.seeds === 1 ? 'one seed' : `${range.seeds} seeds`}${range.seeds < MIN_SEEDS ? '; the spread over seeds is not measured yet' : ''})`;
  }
  return `${f3(range.low)}–${f3(range.high)} over ${range.seeds} seeds${range.seeds < MIN_SEEDS ? ` (fewer than ${MIN_SEEDS}: the spread may be wider)` : ''}`;
}
