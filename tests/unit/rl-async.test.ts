import { describe, expect, it } from 'vitest';
import { admit, AsyncBuffer, GroupAssembler, staleness } from '../../main/lab/rl/async';
import { simulateRollouts, type SimOptions } from '../support/rl-simulate';
import { createRng } from '../../main/lab/util/rng';

const s = (id: string, version: number): { id: string; version: number } => ({ id, version });

describe('staleness and admission', () => {
  it('counts updates since the sample started; admits within the bound', () => {
    expect(staleness(s('a', 3), 5)).toBe(2);
    expect(admit(s('a', 3), 5, 2)).toBe(true);
    expect(admit(s('a', 3), 6, 2)).toBe(false);
    expect(admit(s('a', 5), 5, 0)).toBe(true);
    expect(() => admit(s('a', 6), 5, 2)).toThrow(/newer than the current/);
  });
});

describe('AsyncBuffer', () => {
  it('releases FIFO batches as soon as enough fresh samples are there, dropping and counting stale ones', () => {
    const buf = new AsyncBuffer<{ id: string; version: number }>({ batchSize: 2, maxStaleness: 1 });
    expect(buf.push(s('a', 0), 0)).toBe(true);
    expect(buf.release(0)).toBeNull();
    buf.push(s('b', 0), 0);
    const b1 = buf.release(0)!;
    expect(b1.samples.map((x) => x.id)).toEqual(['a', 'b']);
    expect(b1).toMatchObject({ version: 0, stalenessMax: 0, droppedStale: 0 });
    buf.push(s('c', 0), 1); // staleness 1: admitted
    buf.push(s('d', 2), 2);
    expect(buf.release(2)).toBeNull(); // c went stale waiting (staleness 2): dropped; d alone
    expect(buf.size).toBe(1);
    buf.push(s('e', 1), 2);
    const b2 = buf.release(2)!;
    expect(b2.samples.map((x) => x.id)).toEqual(['d', 'e']);
    expect(b2).toMatchObject({ version: 2, stalenessMax: 1, stalenessMean: 0.5, droppedStale: 1 });
    expect(b2.metrics).toEqual({ 'rollout/staleness_max': 1, 'rollout/stale_dropped': 1 });
    expect(buf.push(s('f', 0), 3)).toBe(false); // stale on arrival
    expect(buf.dropped.map((d) => [d.sample.id, d.atVersion])).toEqual([
      ['c', 2],
      ['f', 3],
    ]);
    expect(() => new AsyncBuffer({ batchSize: 0, maxStaleness: 1 })).toThrow(/batchSize/);
  });
});

describe('GroupAssembler', () => {
  it('emits a group when its G trajectories are in, versioned by the oldest', () => {
    const ga = new GroupAssembler<{ groupId: string; version: number; i: number }>(3);
    expect(ga.add({ groupId: 'q1', version: 0, i: 0 })).toBeNull();
    expect(ga.add({ groupId: 'q2', version: 0, i: 1 })).toBeNull();
    expect(ga.add({ groupId: 'q1', version: 2, i: 2 })).toBeNull();
    const g = ga.add({ groupId: 'q1', version: 1, i: 3 })!;
    expect(g).toMatchObject({ id: 'q1', version: 0 });
    expect(g.members.map((m) => m.i)).toEqual([0, 2, 3]);
    expect(ga.pending).toBe(1);
  });
});

describe('simulated clock', () => {
  // Long-tailed rollout durations: 80% take 1-3 units, 20% take 10-49, and the very first one takes 500.
  const rng = createRng(11);
  const durations = Array.from({ length: 1000 }, () => (rng.next() < 0.8 ? 1 + rng.int(3) : 10 + rng.int(40)));
  durations[0] = 500;
  const base: SimOptions = { durations, concurrency: 8, batchSize: 8, maxStaleness: 2, trainTime: 2, maxUpdates: 40, mode: 'async' };

  it('never releases a sample staler than the bound, and never reuses one', () => {
    for (const maxStaleness of [0, 1, 2, 4]) {
      const r = simulateRollouts({ ...base, maxStaleness });
      expect(r.updates).toBe(40);
      const seen = new Set<number>();
      r.batches.forEach((b, k) => {
        expect(b.version).toBe(k);
        expect(b.ids).toHaveLength(8);
        for (const st of b.staleness) {
          expect(st).toBeGreaterThanOrEqual(0);
          expect(st).toBeLessThanOrEqual(maxStaleness);
        }
        for (const id of b.ids) {
          expect(seen.has(id)).toBe(false);
          seen.add(id);
        }
      });
      for (const d of r.dropped) expect(d.droppedAt - d.version).toBeGreaterThan(maxStaleness);
    }
  });

  it('a long trajectory never blocks a batch; it is dropped when it comes back too stale', () => {
    const r = simulateRollouts(base);
    // Rollout 0 runs from t = 0 to t = 500; updates go on meanwhile.
    const during = r.batches.filter((b) => b.end <= 500);
    expect(during.length).toBeGreaterThan(10);
    expect(r.batches.some((b) => b.ids.includes(0))).toBe(false);
    expect(r.batches[0]!.start).toBeLessThan(20);
    expect(r.endTime).toBeLessThan(500); // all 40 updates done before it even finishes
    // Run on past t = 500: it comes back 60+ versions late and is dropped, counted.
    const longer = simulateRollouts({ ...base, maxUpdates: 90 });
    expect(longer.endTime).toBeGreaterThan(500);
    const long = longer.dropped.find((d) => d.id === 0)!;
    expect(long.version).toBe(0);
    expect(long.droppedAt).toBeGreaterThan(50);
    expect(longer.batches.some((b) => b.ids.includes(0))).toBe(false);
    // Sync: every batch waits for its longest rollout, the first one for 500 units.
    const sync = simulateRollouts({ ...base, mode: 'sync' });
    expect(sync.batches[0]!.start).toBe(500);
    expect(sync.batches.every((b) => b.staleness.every((x) => x === 0))).toBe(true);
    expect(r.endTime).toBeLessThan(sync.endTime / 2);
  });

  it('is deterministic', () => {
    expect(simulateRollouts(base)).toEqual(simulateRollouts(base));
  });
});
