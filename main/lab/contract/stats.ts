// The statistics a comparison of checkpoints reports, shared by main (evaluation reports) and the renderer
// (Compare's summary): a confidence interval for a success rate and a paired test on two checkpoints'
// answers to the same questions. Pure, no imports: the renderer bundles this file.

/**
 * The Wilson score interval of a success rate, `successes` of `n` (95% at z = 1.96): unlike the normal
 * approximation it stays inside [0, 1] and is honest at 0 of n, which a small policy's pass@1 often is.
 */
export function wilsonInterval(successes: number, n: number, z = 1.96): [number, number] {
  if (n <= 0) return [0, 1];
  const p = successes / n;
  const d = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / d;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/**
 * Exact McNemar test, two-sided: of the questions only one of two checkpoints solved (`b` only by the first,
 * `c` only by the second), under "equally good" each is a fair coin, so min(b, c) is binomial(b + c, 1/2).
 * The questions both or neither solved say nothing about the difference and do not enter. 1 when b + c = 0.
 */
export function mcnemarExactP(b: number, c: number): number {
  const n = b + c;
  const k = Math.min(b, c);
  if (n <= 0) return 1;
  // Sum C(n, i) / 2^n for i <= k in log space (2^-n underflows past n ≈ 1,000).
  const logs: number[] = [];
  let log = -n * Math.LN2;
  for (let i = 0; i <= k; i++) {
    logs.push(log);
    log += Math.log(n - i) - Math.log(i + 1);
  }
  const top = Math.max(...logs);
  const tail = Math.exp(top) * logs.reduce((s, l) => s + Math.exp(l - top), 0);
  return Math.min(1, 2 * tail);
}

/** A p-value as a summary writes it: two significant digits, "< 0.001" below that. */
export function formatP(p: number): string {
  if (p < 0.001) return 'p < 0.001';
  return `p = ${p < 0.01 ? p.toFixed(3) : p.toFixed(2)}`;
}
