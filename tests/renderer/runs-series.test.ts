// The runs store's metric series without a lab (renderer/src/stores/runs.ts): records appended in place,
// a resumed run's re-done steps replacing the old ones, and the lookups the dashboard makes on them.
import { describe, expect, it } from 'vitest';
import { canResume, lowerIsBetter } from '@contract';
import { appendRecords, lowerBound, type RunMetrics } from '../../renderer/src/stores/runs';

const empty = (): RunMetrics => ({ runId: 'r', steps: [], times: [], byName: new Map(), t0: null, loaded: true, error: null });
const rec = (step: number, secs: number, metrics: Record<string, number>) => ({ step, time: new Date(Date.UTC(2026, 0, 1) + secs * 1000).toISOString(), metrics });

describe('appendRecords', () => {
  it('adds each metric to its own series, with seconds since the first record', () => {
    const m = empty();
    expect(appendRecords(m, [rec(1, 0, { 'sft/loss': 3 }), rec(2, 1.5, { 'sft/loss': 2.5, 'actor/lr': 1e-3 })])).toBe(true);
    expect(m.steps).toEqual([1, 2]);
    expect(m.times).toEqual([0, 1.5]);
    expect(m.byName.get('sft/loss')).toEqual({ steps: [1, 2], times: [0, 1.5], values: [3, 2.5] });
    expect(m.byName.get('actor/lr')).toEqual({ steps: [2], times: [1.5], values: [1e-3] });
    expect(appendRecords(m, [])).toBe(false);
  });

  it('skips values that are not finite numbers', () => {
    const m = empty();
    appendRecords(m, [rec(1, 0, { a: Number.NaN, b: Infinity, c: 1 })]);
    expect([...m.byName.keys()]).toEqual(['c']);
  });

  it('lets a resumed run redo its steps: everything from the first re-sent step on is replaced', () => {
    const m = empty();
    appendRecords(m, [1, 2, 3, 4].map((s) => rec(s, s, { loss: 10 - s })));
    // Resumed from the step-2 checkpoint: steps 3 and 4 come again, with new values, then step 5.
    appendRecords(m, [rec(3, 10, { loss: 0.3 }), rec(4, 11, { loss: 0.4 }), rec(5, 12, { loss: 0.5 })]);
    expect(m.steps).toEqual([1, 2, 3, 4, 5]);
    expect(m.byName.get('loss')!.values).toEqual([9, 8, 0.3, 0.4, 0.5]);
    expect(m.times).toEqual([0, 1, 9, 10, 11]);
  });
});

describe('lookups', () => {
  it('finds the first index at or above a value', () => {
    expect([0, 1, 2, 5, 9, 10].map((x) => lowerBound([1, 2, 5, 9], x))).toEqual([0, 0, 1, 2, 3, 4]);
    expect(lowerBound([], 3)).toBe(0);
  });

  it('knows which metrics are better low and which runs can resume', () => {
    expect(['sft/loss', 'actor/grad_norm', 'timing/update_s', 'rollout/staleness_max'].every(lowerIsBetter)).toBe(true);
    expect(['eval/pass@1', 'reward/mean'].some(lowerIsBetter)).toBe(false);
    expect((['created', 'interrupted', 'failed', 'cancelled'] as const).every(canResume)).toBe(true);
    expect((['running', 'finished'] as const).some(canResume)).toBe(false);
  });
});
