import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMetrics, readMetrics } from '../../main/lab/runs/metrics';
import { summarise } from '../../main/lab/contract';
import type { MetricRecord } from '../../main/lab/formats';

const file = (): string => join(mkdtempSync(join(tmpdir(), 'sailor-metrics-')), 'metrics.jsonl');

describe('run metrics stream', () => {
  it('resuming from a checkpoint drops later steps so the stream stays continuous', () => {
    const path = file();
    const w = openMetrics(path, 0);
    for (let s = 1; s <= 7; s++) w.write(s, { 'sft/loss': 10 - s });
    w.close();
    // The run was killed after step 7; its last checkpoint is step 5.
    const resumed = openMetrics(path, 5);
    for (let s = 6; s <= 9; s++) resumed.write(s, { 'sft/loss': 10 - s });
    resumed.close();
    expect(readMetrics(path).map((r) => r.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('survives a torn last line from a kill', () => {
    const path = file();
    writeFileSync(path, '{"step":1,"time":"t","metrics":{"a":1}}\n{"step":2,"time":"t","metr');
    const w = openMetrics(path, 1);
    w.write(2, { a: 2 });
    w.close();
    expect(readMetrics(path).map((r) => r.step)).toEqual([1, 2]);
    expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
  });

  it('drops non-finite values instead of writing invalid JSON', () => {
    const path = file();
    const w = openMetrics(path, 0);
    w.write(1, { good: 1, bad: Number.NaN, worse: Infinity });
    w.close();
    expect(readMetrics(path)[0]!.metrics).toEqual({ good: 1 });
  });

  it('summarises last, min, max and best (min for losses, max for rewards)', () => {
    const recs: MetricRecord[] = [
      { step: 1, time: '', metrics: { 'sft/loss': 3, 'eval/pass@1': 0.1 } },
      { step: 2, time: '', metrics: { 'sft/loss': 1 } },
      { step: 3, time: '', metrics: { 'sft/loss': 2, 'eval/pass@1': 0.3 } },
    ];
    expect(summarise(recs)).toEqual({
      'sft/loss': { last: 2, min: 1, max: 3, best: 1 },
      'eval/pass@1': { last: 0.3, min: 0.1, max: 0.3, best: 0.3 },
    });
  });

  it('adds records to an earlier summary as summarising them all at once does, skipping non-finite values', () => {
    const recs: MetricRecord[] = [
      { step: 1, time: '', metrics: { 'sft/loss': 3, 'eval/pass@1': 0.1 } },
      { step: 2, time: '', metrics: { 'sft/loss': 1, 'eval/pass@1': Number.NaN } },
      { step: 3, time: '', metrics: { 'sft/loss': 2, 'eval/pass@1': 0.3, 'reward/mean': Infinity } },
    ];
    const first = summarise(recs.slice(0, 1));
    const frozen = structuredClone(first);
    expect(summarise(recs.slice(1), first)).toEqual(summarise(recs));
    expect(first).toEqual(frozen);
    expect(summarise(recs)).not.toHaveProperty('reward/mean');
  });
});
