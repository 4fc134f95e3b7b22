// The statistics a comparison of checkpoints reports, shared by main (evaluation reports) and the renderer
// (Compare's summary): a confidence interval for a success rate, a paired test on two checkpoints'
// answers to the same questions, and pass@k with the headroom it leaves RL. Pure, no imports: the renderer
// bundles this file.

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

/**
 * Unbiased pass@k from n samples of which c are correct (Chen et al. 2021): 1 - C(n-c, k) / C(n, k), the
 * chance that k samples drawn without replacement from the n include a correct one. The ratio is computed as
 * the product of (1 - k / i) over i = n-c+1 .. n, which never forms a binomial coefficient (C(32, 16) is
 * already 6e8) and stays in [0, 1]. k above n is read as n.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (k <= 0 || n <= 0) return 0;
  if (k > n) k = n;
  if (n - c < k) return 1;
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/** The k of a headroom curve: 1, 2, 4, ... up to n (n itself last when it is no power of two). */
export function curveKs(n: number): number[] {
  const ks: number[] = [];
  for (let k = 1; k <= n; k *= 2) ks.push(k);
  if (n >= 1 && ks[ks.length - 1] !== n) ks.push(n);
  return ks;
}

/** One point of a pass@k curve: the mean over questions of the unbiased pass@k. */
export interface PassAtKPoint {
  k: number;
  passAtK: number;
}

/**
 * The pass@k curve of a set of questions, each sampled n times with `correct[q]` right: the mean over
 * questions of passAtK(n, c, k) for k = 1, 2, 4, ... n. Questions may have different n (each is estimated
 * from its own); a k above a question's n counts that question at its n.
 */
export function passAtKCurve(samples: readonly { n: number; correct: number }[], ks: readonly number[] = curveKs(Math.max(0, ...samples.map((s) => s.n)))): PassAtKPoint[] {
  return ks.map((k) => ({ k, passAtK: samples.length ? samples.reduce((a, s) => a + passAtK(s.n, s.correct, k), 0) / samples.length : 0 }));
}

/**
 * What a headroom curve measures, in one sentence. RL with verifiable rewards reweights what the policy already
 * samples, so pass@k at the largest k measured is the room it has for the SAMPLED pass@1 (docs/learning.md 4b).
 * That is no bound on a greedy evaluation (the dashboard's figure): greedy can sit above sampled pass@k, and RL
 * can lift it past that. `evaluated`, when given, is pass@1 of the same questions under the evaluation's own
 * protocol, said beside the sampled curve and never subtracted from it.
 */
export function headroomSentence(curve: readonly PassAtKPoint[], evaluated?: number): string {
  if (curve.length === 0) return 'no samples: headroom not measured';
  const top = curve[curve.length - 1]!;
  const first = curve[0]!;
  const gain = Math.max(0, top.passAtK - first.passAtK);
  const sampled = `sampled pass@1 ${first.passAtK.toFixed(2)}, pass@${top.k} ${top.passAtK.toFixed(2)}: +${gain.toFixed(2)} of these questions solved in ${top.k} samples and not in one, the room RL has to sharpen the sampled pass@1`;
  if (evaluated === undefined) return `${sampled} (no bound on the greedy evaluation)`;
  const greedy = `the evaluation's protocol scores ${evaluated.toFixed(2)} on the same questions`;
  return evaluated >= top.passAtK ? `${sampled}; ${greedy}, already at or above pass@${top.k}: the curve bounds nothing there` : `${sampled}; ${greedy}`;
}
