// A run's metrics summarised (last, min, max, best) and which way each metric is better: main summarises a run's
// stream with these, the renderer adds its live records with the same functions.
import type { MetricRecord } from '../formats';

export interface MetricSummary {
  last: number;
  min: number;
  max: number;
  best: number;
}

/** Which way a metric is better: `up` (accuracy, reward), `down` (losses, failure rates) or `neutral`. */
export type MetricDirection = 'up' | 'down' | 'neutral';

/**
 * The direction of a metric, by name. Behaviour that is neither good nor bad in itself (tool calls, turns,
 * generated tokens: an agent may need more calls to answer correctly) is neutral, so no view colours it.
 * Losses, norms, clip fractions, zero-std shares, timings, staleness and the ways an episode can fail are
 * better low (`termination/answer`, an episode that answered, is better high); everything else high.
 */
export function metricDirection(metric: string): MetricDirection {
  if (metric.startsWith('termination/')) return metric === 'termination/answer' ? 'up' : 'down';
  const failure = /(^|\/)failures\/(\w+)$/.exec(metric); // the failure breakdown (failures.ts): solved up, the rest down
  if (failure) return failure[2] === 'solved' ? 'up' : 'down';
  if (/tool_calls|turns|tokens|length/.test(metric)) return 'neutral';
  if (/loss|grad_norm|clipfrac|zero_std|timing|staleness|_error|fail/.test(metric)) return 'down';
  return 'up';
}

/** Whether lower values of a metric are better (metricDirection `down`). */
export function lowerIsBetter(metric: string): boolean {
  return metricDirection(metric) === 'down';
}

/**
 * Per-metric last, min, max and best (min where lower is better, max otherwise) of `records`, on top of an
 * earlier summary `from` (left as it is): main summarises a run's stream, the renderer adds live records to it.
 * Non-finite values are skipped.
 */
export function summarise(records: readonly MetricRecord[], from: Readonly<Record<string, MetricSummary>> = {}): Record<string, MetricSummary> {
  const out = { ...from };
  for (const r of records) {
    for (const [k, v] of Object.entries(r.metrics)) {
      if (!Number.isFinite(v)) continue;
      const s = out[k];
      const min = s ? Math.min(s.min, v) : v;
      const max = s ? Math.max(s.max, v) : v;
      out[k] = { last: v, min, max, best: lowerIsBetter(k) ? min : max };
    }
  }
  return out;
}
