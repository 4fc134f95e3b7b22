// A run's metrics stream (runs/<id>/metrics.jsonl, docs/formats.md, 'Runs and the data directory'). Resuming from a
// checkpoint at step S first drops every record after S (they belong to work the checkpoint does not contain and will
// be recomputed), so the stream stays continuous: no duplicate and no missing steps.
import { existsSync } from 'node:fs';
import type { MetricRecord } from '../formats';
import { readJsonl, writeFileAtomic } from '../store/files';
import { openJsonlAppender, type JsonlAppender } from '../store/jsonl';

export function readMetrics(path: string): MetricRecord[] {
  if (!existsSync(path)) return [];
  return readJsonl(path).records.map((r) => r.value as MetricRecord);
}

export interface MetricsWriter {
  /** Records one step; `time` defaults to now. */
  write(step: number, metrics: Record<string, number>): void;
  close(): void;
}

/**
 * Opens the stream for a run that continues after the checkpoint at `fromStep`, or that starts over (STARTS_OVER,
 * a run with no checkpoint yet, fresh or resumed): records with a larger step are removed first (atomically), then
 * new records append. A resume before the first checkpoint writes step 0 again, so its earlier records go. Non-finite values are dropped so the
 * file stays valid JSON.
 */
export const STARTS_OVER = -1;

export function openMetrics(path: string, fromStep: number): MetricsWriter {
  const existing = readMetrics(path);
  const kept = existing.filter((r) => r.step <= fromStep);
  if (kept.length !== existing.length) writeFileAtomic(path, kept.map((r) => JSON.stringify(r) + '\n').join(''));
  const out: JsonlAppender = openJsonlAppender(path);
  return {
    write(step, metrics) {
      const clean: Record<string, number> = {};
      for (const [k, v] of Object.entries(metrics)) if (Number.isFinite(v)) clean[k] = v;
      const record: MetricRecord = { step, time: new Date().toISOString(), metrics: clean };
      out.append(record);
    },
    close: () => out.close(),
  };
}
