// A WebSocket subscriber that reads slower than events come (issue #44, item 9): its events wait coalesced once its
// socket has buffered past the high-water mark, go out in order when it drains, and a hopeless one is closed.
// bench/speed/ws-slow-subscriber.ts measures the server's memory with a subscriber that never reads.
import { describe, expect, it } from 'vitest';
import { Outbox } from '../../main/lab/server/outbox';

const limits = { highWater: 1000, maxPendingBytes: 200, hopelessMs: 5000 };
const job = (id: string, done: number) => ({ id, progress: { done } });
const parsed = (texts: string[] | 'hopeless') => (texts === 'hopeless' ? texts : texts.map((t) => JSON.parse(t) as { event: string; payload: unknown }));

describe('a subscriber outbox', () => {
  it('sends at once while the socket keeps up', () => {
    const box = new Outbox(limits);
    expect(parsed(box.offer('job.updated', job('a', 1), 0, 0))).toEqual([{ event: 'job.updated', payload: job('a', 1) }]);
    expect(box.waiting).toBe(0);
  });

  it('while the socket is full, keeps each job\'s latest state and gathers a run\'s records, then sends them in order', () => {
    const box = new Outbox(limits);
    expect(box.offer('job.updated', job('a', 1), 1000, 0)).toEqual([]);
    expect(box.offer('run.metrics', { runId: 'r', records: [{ step: 1 }] }, 1500, 10)).toEqual([]);
    expect(box.offer('job.updated', job('a', 2), 1500, 20)).toEqual([]);
    expect(box.offer('run.metrics', { runId: 'r', records: [{ step: 2 }] }, 1500, 30)).toEqual([]);
    expect(box.waiting).toBe(2);
    expect(box.flush(999, 40)).not.toBe('hopeless');
    expect(box.waiting).toBe(0);
    // Sent in the order of the latest events: the job's state (20) before the run's gathered records (30).
    const again = new Outbox(limits);
    again.offer('job.updated', job('a', 1), 1000, 0);
    again.offer('run.metrics', { runId: 'r', records: [{ step: 1 }] }, 1000, 10);
    again.offer('job.updated', job('a', 2), 1000, 20);
    again.offer('run.metrics', { runId: 'r', records: [{ step: 2 }] }, 1000, 30);
    expect(parsed(again.flush(0, 40))).toEqual([
      { event: 'job.updated', payload: job('a', 2) },
      { event: 'run.metrics', payload: { runId: 'r', records: [{ step: 1 }, { step: 2 }] } },
    ]);
  });

  it('a thousand updates of one job held are one event: replaced states do not count against the limit', () => {
    const box = new Outbox(limits);
    for (let i = 0; i < 1000; i++) expect(box.offer('job.updated', job('a', i), 5000, i)).toEqual([]);
    expect(parsed(box.flush(0, 1000))).toEqual([{ event: 'job.updated', payload: job('a', 999) }]);
  });

  it('is hopeless once what waits passes its limit, or the socket stays full past the time limit', () => {
    const big = new Outbox(limits);
    let r: string[] | 'hopeless' = [];
    for (let step = 0; r !== 'hopeless' && step < 100; step++) r = big.offer('run.metrics', { runId: 'r', records: [{ step }] }, 5000, step);
    expect(r).toBe('hopeless');
    const stuck = new Outbox(limits);
    expect(stuck.offer('app.backend', { chosen: 'wasm' }, 5000, 0)).toEqual([]);
    expect(stuck.flush(5000, 5000)).toEqual([]);
    expect(stuck.flush(5000, 5001)).toBe('hopeless');
  });
});
