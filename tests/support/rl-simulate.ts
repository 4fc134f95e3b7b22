// Fully asynchronous rollouts on a simulated clock, for the tests of main/lab/rl/async.ts's rules (only tests use
// it, so it lives here, out of the lab core): simulateRollouts replays a list of rollout durations, async (rollout
// workers never wait for the trainer) or sync (each batch waits for its longest rollout, then the update), and
// reports the batches, their staleness, the drops and the total time.
import { LabError } from '../../main/lab/base/errors';
import { AsyncBuffer, staleness, type Versioned } from '../../main/lab/rl/async';

export interface SimOptions {
  /** Duration of each rollout, in start order; no rollout starts once they are used up. */
  durations: readonly number[];
  /** Rollouts running at once (async mode; sync runs batchSize at once). */
  concurrency: number;
  batchSize: number;
  maxStaleness: number;
  /** Duration of one update. */
  trainTime: number;
  /** Stop after this many updates. */
  maxUpdates: number;
  mode: 'async' | 'sync';
}

export interface SimBatch {
  /** Update start and end times. */
  start: number;
  end: number;
  /** Version updated from. */
  version: number;
  /** Rollout indices (into durations) and their staleness. */
  ids: number[];
  staleness: number[];
}

export interface SimResult {
  batches: SimBatch[];
  /** Rollouts dropped as stale: index, version started under, trainer version when dropped. */
  dropped: Array<{ id: number; version: number; droppedAt: number }>;
  /** Time the last update ended (or the last event, if fewer than maxUpdates happened). */
  endTime: number;
  updates: number;
}

interface Running {
  id: number;
  version: number;
  end: number;
}

/** Replays rollouts and updates on a simulated clock (see the top of this file). Deterministic. */
export function simulateRollouts(opts: SimOptions): SimResult {
  if (opts.durations.some((d) => !(d >= 0))) throw new LabError('bad_request', 'durations must be >= 0');
  return opts.mode === 'sync' ? simulateSync(opts) : simulateAsync(opts);
}

function simulateAsync(opts: SimOptions): SimResult {
  const buffer = new AsyncBuffer<Versioned & { idx: number }>({ batchSize: opts.batchSize, maxStaleness: opts.maxStaleness });
  const running: Running[] = [];
  const batches: SimBatch[] = [];
  let time = 0;
  let version = 0;
  let next = 0;
  let training: { end: number } | null = null;
  const done = (): boolean => batches.length >= opts.maxUpdates && training === null;
  while (!done()) {
    while (running.length < opts.concurrency && next < opts.durations.length) {
      running.push({ id: next, version, end: time + opts.durations[next]! });
      next++;
    }
    if (training === null) {
      const b = buffer.release(version);
      if (b && batches.length < opts.maxUpdates) {
        training = { end: time + opts.trainTime };
        batches.push({ start: time, end: training.end, version, ids: b.samples.map((s) => s.idx), staleness: b.samples.map((s) => staleness(s, version)) });
        continue;
      }
    }
    // Next event: the earliest rollout end (lowest index on ties), or the update's end, whichever is first.
    let first = -1;
    for (let i = 0; i < running.length; i++) {
      const r = running[i]!;
      if (first < 0 || r.end < running[first]!.end || (r.end === running[first]!.end && r.id < running[first]!.id)) first = i;
    }
    if (training !== null && (first < 0 || training.end <= running[first]!.end)) {
      time = training.end;
      version++;
      training = null;
      continue;
    }
    if (first < 0) break; // nothing running, nothing training, not enough for a batch: out of rollouts
    const [r] = running.splice(first, 1) as [Running];
    time = r.end;
    buffer.push({ id: String(r.id), idx: r.id, version: r.version }, version);
  }
  return {
    batches,
    dropped: buffer.dropped.map((d) => ({ id: d.sample.idx, version: d.sample.version, droppedAt: d.atVersion })),
    endTime: time,
    updates: batches.length,
  };
}

function simulateSync(opts: SimOptions): SimResult {
  const batches: SimBatch[] = [];
  let time = 0;
  let next = 0;
  while (batches.length < opts.maxUpdates && next + opts.batchSize <= opts.durations.length) {
    const ids = Array.from({ length: opts.batchSize }, (_, i) => next + i);
    next += opts.batchSize;
    const start = time + Math.max(...ids.map((i) => opts.durations[i]!)); // the batch waits for its longest rollout
    time = start + opts.trainTime;
    batches.push({ start, end: time, version: batches.length, ids, staleness: ids.map(() => 0) });
  }
  return { batches, dropped: [], endTime: time, updates: batches.length };
}
