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
// (tests/support/rl-simulate.ts replays rollout durations through these rules on a simulated clock.)
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
