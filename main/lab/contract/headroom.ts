// The headroom curve as run metrics: the RL stage measures pass@k, k = 1, 2, 4, ... G, before its first update on
// a sample of its own questions and of the held-out set (train/rl-headroom.ts), and records each point as
// `headroom/<set>/pass@<k>` with RL step 1's metrics; the dashboard reads the curve back from them. Compare
// draws the same curve from a comparison's samples. Pure: the renderer bundles this file.
import { passAtKCurve, type PassAtKPoint } from './stats';

/** The question sets the RL stage measures its headroom on. */
export const HEADROOM_SETS = { rl: 'RL questions', heldout: 'held-out questions' } as const;
export type HeadroomSet = keyof typeof HEADROOM_SETS;

const KEY = /^headroom\/(rl|heldout)\/pass@(\d+)$/;

/** A curve as metrics: `headroom/<set>/pass@<k>`. */
export function headroomMetrics(set: HeadroomSet, curve: readonly PassAtKPoint[]): Record<string, number> {
  return Object.fromEntries(curve.map((p) => [`headroom/${set}/pass@${p.k}`, p.passAtK]));
}

/** The same questions played under the evaluation's own protocol (greedy, as the dashboard's pass@1): `headroom/<set>/eval_pass@1`. */
export const evaluationMetric = (set: HeadroomSet): string => `headroom/${set}/eval_pass@1`;

/** The evaluation-protocol pass@1 beside each curve, where the run measured it. */
export function evaluationFromMetrics(metrics: Readonly<Record<string, number | undefined>>): Partial<Record<HeadroomSet, number>> {
  const out: Partial<Record<HeadroomSet, number>> = {};
  for (const set of Object.keys(HEADROOM_SETS) as HeadroomSet[]) {
    const v = metrics[evaluationMetric(set)];
    if (v !== undefined && Number.isFinite(v)) out[set] = v;
  }
  return out;
}

/** The curves a run's metrics hold (last value of each key), by set; sets without points are left out. */
export function headroomFromMetrics(metrics: Readonly<Record<string, number | undefined>>): Partial<Record<HeadroomSet, PassAtKPoint[]>> {
  const out: Partial<Record<HeadroomSet, PassAtKPoint[]>> = {};
  for (const [key, v] of Object.entries(metrics)) {
    const m = KEY.exec(key);
    if (!m || v === undefined || !Number.isFinite(v)) continue;
    (out[m[1] as HeadroomSet] ??= []).push({ k: Number(m[2]), passAtK: v });
  }
  for (const c of Object.values(out)) c.sort((a, b) => a.k - b.k);
  return out;
}

/** A checkpoint's curve from a comparison's per-question results (its samples: correct of n); null with one sample a question. */
export function headroomOfResults(results: readonly { correct: number; n: number }[]): PassAtKPoint[] | null {
  const sampled = results.filter((r) => r.n > 0);
  if (!sampled.some((r) => r.n > 1)) return null;
  return passAtKCurve(sampled);
}
