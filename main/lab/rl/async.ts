// Fully asynchronous rollouts (ASearcher, on AReaL's design), as a pure scheduler model: no model, no tools,
// just versions and a clock, so the rules can be tested and the run loop can reuse them.
//
// - Every sample (a trajectory, or for GRPO-family methods a completed group of them) is tagged with the
//   policy version it STARTED under. The trainer holds version v while it computes the update that makes
//   v + 1, so a sample's staleness is v - sample.version: 0 means it was sampled by exactly the weights
//   being updated (on-policy), k means k updates happened since it started.
// - admit(sample, v, maxStaleness) accepts it while staleness <= maxStaleness.
// - AsyncBuffer collects finished samples in finish order and releases a batch (FIFO) as soon as batchSize
//   admissible samples are there; samples too stale at arrival or at release time are dropped and counted
//   (their rollouts are lost work: the count is worth watching). Nothing waits for a sample still running,
//   so one very long trajectory never blocks a batch; it is either used when it finishes (still fresh
//   enough) or dropped.
// - GroupAssembler turns independently finishing trajectories into complete groups of G (advantages need the
//   whole group); a group's version is its OLDEST member's, so the staleness bound holds for every member.
// - simulateRollouts replays a list of rollout durations on a simulated clock, async (rollout workers never
//   wait for the trainer) or sync (each batch waits for its longest rollout, then the update), and reports
//   the batches, their staleness, the drops and the total time.
import { LabError } from '../base/errors';

export interface Versioned {
  id: string;
  /** Policy version the sample started under. */
  version: number;
}

export function staleness(sample: Versioned, currentVersion: number): number {
  return currentVersion - sample.version;
}

/** The sample may train the update from currentVersion: its staleness is within the bound. */
export function admit(sample: Versioned, currentVersion: number, maxStaleness: number): boolean {
  const s = staleness(sample, currentVersion);
  if (s < 0) throw new LabError('bad_request', `sample ${sample.id} has version ${sample.version}, newer than the current ${currentVersion}`);
  return s <= maxStaleness;
}

export interface AsyncBatch<S extends Versioned> {
  samples: S[];
  /** Version the update starts from (the trainer's current version). */
  version: number;
  stalenessMax: number;
  stalenessMean: number;
  /** Samples dropped as stale since the previous released batch. */
  droppedStale: number;
  /** rollout/staleness_max and rollout/stale_dropped. */
  metrics: Record<string, number>;
}

export class AsyncBuffer<S extends Versioned> {
  readonly batchSize: number;
  readonly maxStaleness: number;
  private queue: S[] = [];
  private droppedSinceRelease = 0;
  /** Every sample dropped as stale, in drop order, with the trainer version that dropped it. */
  readonly dropped: Array<{ sample: S; atVersion: number }> = [];

  constructor(opts: { batchSize: number; maxStaleness: number }) {
    if (!(Number.isInteger(opts.batchSize) && opts.batchSize > 0)) throw new LabError('bad_request', `batchSize must be a positive integer, got ${opts.batchSize}`);
    if (!(Number.isInteger(opts.maxStaleness) && opts.maxStaleness >= 0)) throw new LabError('bad_request', `maxStaleness must be an integer >= 0, got ${opts.maxStaleness}`);
    this.batchSize = opts.batchSize;
    this.maxStaleness = opts.maxStaleness;
  }

  /** Finished samples waiting. */
  get size(): number {
    return this.queue.length;
  }

  /** A finished sample arrives; false (and counted as dropped) when already too stale. */
  push(sample: S, currentVersion: number): boolean {
    if (admit(sample, currentVersion, this.maxStaleness)) {
      this.queue.push(sample);
      return true;
    }
    this.drop(sample, currentVersion);
    return false;
  }

  /** Drops what has gone stale, then the oldest batchSize samples as a batch, or null if fewer are there. */
  release(currentVersion: number): AsyncBatch<S> | null {
    const fresh: S[] = [];
    for (const s of this.queue) {
      if (admit(s, currentVersion, this.maxStaleness)) fresh.push(s);
      else this.drop(s, currentVersion);
    }
    this.queue = fresh;
    if (fresh.length < this.batchSize) return null;
    const samples = this.queue.splice(0, this.batchSize);
    const st = samples.map((s) => staleness(s, currentVersion));
    const stalenessMax = Math.max(...st);
    const droppedStale = this.droppedSinceRelease;
    this.droppedSinceRelease = 0;
    return {
      samples,
      version: currentVersion,
      stalenessMax,
      stalenessMean: st.reduce((a, x) => a + x, 0) / st.length,
      droppedStale,
      metrics: { 'rollout/staleness_max': stalenessMax, 'rollout/stale_dropped': droppedStale },
    };
  }

  private drop(sample: S, atVersion: number): void {
    this.dropped.push({ sample, atVersion });
    this.droppedSinceRelease++;
  }
}

/** Collects trajectories of the same question until groupSize are in; the group's version is the oldest. */
export class GroupAssembler<T extends { groupId: string; version: number }> {
  private readonly open = new Map<string, T[]>();

  constructor(readonly groupSize: number) {
    if (!(Number.isInteger(groupSize) && groupSize > 0)) throw new LabError('bad_request', `groupSize must be a positive integer, got ${groupSize}`);
  }

  /** Trajectories waiting for the rest of their group. */
  get pending(): number {
    let n = 0;
    for (const m of this.open.values()) n += m.length;
    return n;
  }

  /** Adds a finished trajectory; returns the group when it is complete. */
  add(t: T): { id: string; version: number; members: T[] } | null {
    const members = this.open.get(t.groupId) ?? [];
    members.push(t);
    if (members.length < this.groupSize) {
      this.open.set(t.groupId, members);
      return null;
    }
    this.open.delete(t.groupId);
    return { id: t.groupId, version: Math.min(...members.map((m) => m.version)), members };
  }
}

// ---------- simulated clock ----------

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
