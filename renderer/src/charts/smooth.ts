// Smoothing for training curves, as TensorBoard does it: an exponential moving average debiased by
// the weight of the terms seen so far, so the first points are not pulled toward zero. Gaps (null)
// stay gaps and do not reset the average. Pure: unit-tested, no DOM.

/**
 * Fewer points than this are drawn raw whatever the smoothing: an average of a handful of evaluations draws
 * values that never occurred (four evaluations smoothed at 0.6 end far below the last one).
 */
export const SMOOTH_MIN_POINTS = 20;

/** Whether a series is dense enough to smooth: smoothing on and at least SMOOTH_MIN_POINTS finite values. */
export function smoothable(ys: ArrayLike<number | null | undefined>, weight: number): boolean {
  if (!(weight > 0)) return false;
  let n = 0;
  for (let i = 0; i < ys.length; i++) {
    const y = ys[i];
    if (y !== null && y !== undefined && Number.isFinite(y) && ++n >= SMOOTH_MIN_POINTS) return true;
  }
  return false;
}

export function emaSmooth(ys: ArrayLike<number | null | undefined>, weight: number): Array<number | null> {
  const w = Math.min(Math.max(weight, 0), 0.999);
  const out: Array<number | null> = new Array(ys.length);
  let last = 0;
  let seen = 0;
  for (let i = 0; i < ys.length; i++) {
    const y = ys[i];
    if (y === null || y === undefined || !Number.isFinite(y)) {
      out[i] = null;
      continue;
    }
    last = last * w + (1 - w) * y;
    seen++;
    const debias = w === 0 ? 1 : 1 - Math.pow(w, seen);
    out[i] = last / debias;
  }
  return out;
}

/**
 * Merges series sampled at different x values into one table with a shared, sorted x column
 * (the shape uPlot draws), filling positions a series has no value for with null.
 */
export function alignSeries(series: ReadonlyArray<{ xs: ArrayLike<number>; ys: ArrayLike<number | null> }>): [number[], ...Array<Array<number | null>>] {
  const xsAll = new Set<number>();
  for (const s of series) for (let i = 0; i < s.xs.length; i++) xsAll.add(s.xs[i]!);
  const xs = [...xsAll].sort((a, b) => a - b);
  const at = new Map(xs.map((x, i) => [x, i]));
  const cols = series.map((s) => {
    const col: Array<number | null> = new Array(xs.length).fill(null);
    for (let i = 0; i < s.xs.length; i++) col[at.get(s.xs[i]!)!] = s.ys[i] ?? null;
    return col;
  });
  return [xs, ...cols];
}
