// Runs jobs in worker threads and keeps their records in the store. The main thread only validates,
// spawns, relays progress and persists status, so the UI and the API stay responsive while work runs.
import type { Worker } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { spawnWorker } from '../util/worker-spawn';
import type { JobProgress, JobRecord, StreamPage } from '../contract';
import { fieldIssues, issuesText } from '../contract/field-issues';
import { isJobKind } from '../contract/jobs';
import { LabError } from '../base/errors';
import type { ArtefactRecord, JobOwner, StoreData, StoreDb, StoreJob } from '../store/db';
import { heartbeatPath, HEARTBEAT_STALE_MS, ownerAlive, tryLock } from '../store/lockfile';
import { readJsonl } from '../store/files';
import { jobSpecs, type ArtefactCollection } from './specs';
import { defaultJobLimits, ordinal, startable, waitReason, type JobLimits } from './queue';
import type { FromWorker, WorkerInput } from './protocol';
import { firstStatus, transition, type JobEnding } from './status';

export interface WorkerEntry {
  /**
   * The worker script (the lab's job-worker.ts, which knows every job's code: core.ts finds it). A .ts file
   * is run through tsx (source mode: CLI and tests).
   */
  file: string;
}

type Listener = (job: JobRecord) => void;
/**
 * Reserves what a job of some kind needs to itself (a run's trainer) before it starts, or throws saying who
 * holds it; returns the release, called when the job ends.
 */
export type JobClaim = (params: unknown, jobId: string) => Promise<() => void>;
type EventListener = (name: string, payload: unknown, job: JobRecord) => void;

const PERSIST_EVERY_MS = 1000; // progress reaches db.json at most once a second; status changes at once
const EMIT_EVERY_MS = 100; // and reaches clients at most ten times a second
const EXIT_GRACE_MS = 2000; // a worker still alive this long after its job ended is terminated

interface Live {
  worker: Worker;
  /** The job as this process knows it: progress runs ahead of db.json, which gets it once a second. */
  job: StoreJob;
  lastPersist: number;
  lastEmit: number;
  cancelTimer?: NodeJS.Timeout;
  cancelRequested: boolean;
  release?: () => void;
  /** The store write that moved a queued job to running: its end is written after it, never before. */
  started: Promise<void>;
}

/** A job waiting for its turn (queue.ts says when): its record and what its worker will get. */
interface Waiting {
  job: StoreJob;
  input: WorkerInput;
  release?: () => void;
}

const QUEUE_POLL_MS = 1000; // a queue held back by memory alone is looked at again this often

export class JobManager {
  private readonly live = new Map<string, Live>();
  private readonly waiting: Waiting[] = [];
  /** Jobs that just left the queue (cancelled, or the app closing) while their ended record is being stored. */
  private readonly leaving = new Map<string, StoreJob>();
  private pollTimer?: NodeJS.Timeout;
  private readonly listeners = new Set<Listener>();
  private readonly eventListeners = new Set<EventListener>();
  private readonly claims = new Map<string, JobClaim>();
  readonly session = randomUUID();
  /** This process's heartbeat, beating from its first job until close: other processes see its jobs as live. */
  private heartbeat: (() => void) | null = null;
  private starting: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: StoreDb,
    private readonly home: string,
    private readonly entry: WorkerEntry,
    readonly limits: JobLimits = defaultJobLimits(),
  ) {}

  /** Marks jobs left running by a process that is gone as interrupted. Call once at start. */
  async recoverInterrupted(): Promise<number> {
    const orphaned = (job: StoreJob): boolean => (job.status === 'running' || job.status === 'queued') && !this.ownerRuns(job.owner);
    if (!this.db.data.jobs.some(orphaned)) return 0;
    const now = new Date().toISOString();
    return this.db.update((data) => {
      let count = 0;
      data.jobs = data.jobs.map((job) => {
        if (!orphaned(job)) return job;
        count++;
        return transition(job, 'interrupted', now, { error: 'the process running this job stopped before it finished' });
      });
      return count;
    });
  }

  /** Whether the process that owns a job still runs it (jobs of older stores have no owner: theirs is gone). */
  private ownerRuns(owner: JobOwner | undefined): boolean {
    if (!owner) return false;
    if (owner.session === this.session) return true;
    return ownerAlive(this.home, owner);
  }

  /** Every job of `kind` passes `claim` first, whichever path starts it. */
  setClaim(kind: string, claim: JobClaim): void {
    this.claims.set(kind, claim);
  }

  onUpdate(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Events that jobs publish from their workers (see JobContext.publish). */
  onEvent(listener: EventListener): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  list(): JobRecord[] {
    return this.db.data.jobs.map((job) => this.publicWithQueue(this.current(job.id) ?? job)).reverse();
  }

  get(id: string): JobRecord {
    return this.publicWithQueue(this.find(id));
  }

  /** The public record, with its place in line while it waits. */
  private publicWithQueue(job: StoreJob): JobRecord {
    const record = publicRecord(job);
    const at = this.waiting.findIndex((w) => w.job.id === job.id);
    if (at < 0) return record;
    const reason = waitReason(this.limits, this.runningKinds(), process.memoryUsage.rss(), job.kind) ?? 'jobs started before it go first';
    record.queue = { position: at + 1, reason };
    record.progress = { ...record.progress, message: `queued: ${ordinal(at + 1)} in line (${reason})` };
    return record;
  }

  /** Starts a job; `title` names this one ("Training run: <name>") where the kind's title alone would not say which. */
  /**
   * Starts one after another: whether a job may run now is decided from the jobs running, and the store write
   * between that decision and the worker's spawn awaits a lock, so concurrent starts would each see a free slot.
   */
  start(kind: string, rawParams: Record<string, unknown>, opts: { title?: string } = {}): Promise<JobRecord> {
    const next = this.starting.then(() => this.startNow(kind, rawParams, opts));
    this.starting = next.catch(() => undefined);
    return next;
  }

  private async startNow(kind: string, rawParams: Record<string, unknown>, opts: { title?: string }): Promise<JobRecord> {
    // Own keys only: a kind such as __proto__ or toString must be unknown, not a lookup through the prototype.
    const spec = isJobKind(kind) ? jobSpecs[kind] : undefined;
    if (!spec) {
      throw new LabError('bad_request', `unknown job kind '${kind}'; known kinds: ${Object.keys(jobSpecs).join(', ')}`);
    }
    const parsed = spec.params.safeParse(rawParams);
    if (!parsed.success) {
      // In words, by path, also on the wire (details.issues): a form shows each at its field.
      const issues = fieldIssues(parsed.error);
      throw new LabError('bad_request', `${kind} job: invalid params: ${issuesText(issues)}`, { issues });
    }
    if (!existsSync(this.entry.file)) {
      throw new LabError('internal', `job worker script not found at ${this.entry.file}`);
    }
    if (this.waiting.length >= this.limits.queued) {
      throw new LabError('busy', `${kind} job: ${this.waiting.length} jobs are already waiting (the limit is ${this.limits.queued}); start it once some have run`);
    }
    const id = `${new Date().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14)}-${kind}-${randomUUID().slice(0, 8)}`;
    const dirRel = join('jobs', id);
    const now = new Date().toISOString();
    // Straight to running when nothing waits and the limits allow it; else in line, oldest first.
    const reason = this.waiting.length ? 'jobs started before it go first' : waitReason(this.limits, this.runningKinds(), process.memoryUsage.rss(), kind);
    const job: StoreJob = {
      id,
      kind,
      title: opts.title ?? spec.title,
      params: parsed.data as Record<string, unknown>,
      ...firstStatus(reason === null),
      createdAt: now,
      ...(reason === null ? { startedAt: now } : {}),
      ...(spec.streams ? { stream: join(dirRel, 'stream.jsonl') } : {}),
      owner: { pid: process.pid, session: this.session },
    };
    this.beat();
    const release = await this.claims.get(kind)?.(parsed.data, id);
    try {
      await this.db.update((data) => void data.jobs.push(structuredClone(job)));
    } catch (err) {
      release?.();
      throw err;
    }
    const input: WorkerInput = {
      jobId: id,
      kind,
      params: parsed.data,
      home: this.home,
      dir: join(this.home, dirRel),
      streams: spec.streams,
    };
    if (reason === null) {
      this.spawn(job, input, release, Promise.resolve());
      return publicRecord(job);
    }
    this.waiting.push({ job, input, ...(release ? { release } : {}) });
    this.emitQueue();
    this.pump();
    return this.get(id);
  }

  /** Kinds of the jobs running in this process. */
  private runningKinds(): string[] {
    return [...this.live.values()].map((l) => l.job.kind);
  }

  /** Starts the waiting jobs the limits allow now; looks again later while memory alone holds one back. */
  private pump(): void {
    const rss = process.memoryUsage.rss();
    const starts = startable(this.limits, this.waiting.map((w) => w.job.kind), this.runningKinds(), rss);
    for (const i of starts.reverse()) {
      const [w] = this.waiting.splice(i, 1);
      const job = transition(w!.job, 'running', new Date().toISOString());
      // finish() awaits this write before storing the end, so a quick job's end is never overwritten by its start.
      const started = this.db
        .update((data) => {
          const at = data.jobs.findIndex((j) => j.id === job.id);
          if (at >= 0 && data.jobs[at]!.status === 'queued') data.jobs[at] = structuredClone(job);
        })
        .catch(() => undefined); // the end record replaces the whole job, so a failed start write heals there
      this.spawn(job, w!.input, w!.release, started);
    }
    if (starts.length) this.emitQueue();
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    if (this.waiting.length && this.live.size > 0) {
      this.pollTimer = setTimeout(() => this.pump(), QUEUE_POLL_MS);
      this.pollTimer.unref();
    }
  }

  /** Tells clients each waiting job's place in line (it changes as jobs ahead start or leave). */
  private emitQueue(): void {
    for (const w of this.waiting) this.emit(w.job);
  }

  private spawn(job: StoreJob, input: WorkerInput, release: (() => void) | undefined, started: Promise<void>): void {
    const { id } = job;
    const worker = spawnWorker(this.entry.file, input);
    const live: Live = { worker, job, lastPersist: 0, lastEmit: 0, cancelRequested: false, started, ...(release ? { release } : {}) };
    this.live.set(id, live);
    worker.on('message', (msg: FromWorker) => void this.onMessage(id, msg));
    worker.on('error', (err) => void this.finish(id, 'failed', { error: `worker crashed: ${err.message}` }));
    worker.on('exit', (code) => {
      // A worker that exits without a result (terminated, or crashed natively) still ends its job.
      if (this.live.get(id) === live) {
        const status = live.cancelRequested ? 'cancelled' : 'failed';
        void this.finish(id, status, status === 'failed' ? { error: `worker exited with code ${code}` } : {});
      }
    });
    this.emit(job);
  }

  /** The job as this process knows it now: running or waiting here; undefined for any other. */
  private current(id: string): StoreJob | undefined {
    return this.live.get(id)?.job ?? this.waiting.find((w) => w.job.id === id)?.job ?? this.leaving.get(id);
  }

  /** A waiting job leaves the queue without running (cancelled, or the app closing). */
  private async dropWaiting(id: string, status: 'cancelled' | 'interrupted', error?: string): Promise<StoreJob | undefined> {
    const at = this.waiting.findIndex((w) => w.job.id === id);
    if (at < 0) return undefined;
    const [w] = this.waiting.splice(at, 1);
    w!.release?.();
    const job = transition(w!.job, status, new Date().toISOString(), error === undefined ? {} : { error });
    // Until the store has it, a second cancel (or a get) reads the ended record here, not the queued one on disk.
    this.leaving.set(id, job);
    try {
      await this.db.update((data) => {
        const i = data.jobs.findIndex((j) => j.id === id);
        if (i >= 0) data.jobs[i] = structuredClone(job);
      });
    } finally {
      this.leaving.delete(id);
    }
    this.emit(job);
    this.emitQueue();
    return job;
  }

  async cancel(id: string): Promise<JobRecord> {
    const job = this.find(id);
    const dropped = await this.dropWaiting(id, 'cancelled');
    if (dropped) return publicRecord(dropped);
    const live = this.live.get(id);
    if (!live) return publicRecord(job);
    live.cancelRequested = true;
    live.worker.postMessage({ type: 'cancel' });
    // Jobs check for cancellation between steps; one that does not answer in time is terminated.
    live.cancelTimer = setTimeout(() => void live.worker.terminate(), 5000);
    return publicRecord(job);
  }

  /** Reads a page of a job's output stream; tolerant of a torn last line. */
  stream(id: string, offset: number, limit: number): StreamPage {
    const job = this.find(id);
    if (!job.stream) throw new LabError('not_found', `job ${id} has no output stream`);
    const path = join(this.home, job.stream);
    if (!existsSync(path)) return { records: [], next: offset, tornTail: false };
    const { records, tornTail } = readJsonl(path);
    const page = records.slice(offset, offset + limit).map((r) => r.value);
    return { records: page, next: offset + page.length, tornTail };
  }

  /** Stops every running job at shutdown; they are marked interrupted, as after a crash. */
  async stopAll(): Promise<void> {
    clearTimeout(this.pollTimer);
    for (const w of [...this.waiting].reverse()) await this.dropWaiting(w.job.id, 'interrupted', 'the app was closed while this job waited');
    await Promise.all(
      [...this.live.entries()].map(async ([id, live]) => {
        live.cancelRequested = true;
        await this.finish(id, 'interrupted', { error: 'the app was closed while this job ran' });
        await live.worker.terminate();
      }),
    );
    this.heartbeat?.();
    this.heartbeat = null;
  }

  /** Starts this process's heartbeat (once): its session is unique, so the lock is always free. */
  private beat(): void {
    if (this.heartbeat) return;
    const path = heartbeatPath(this.home, this.session);
    mkdirSync(dirname(path), { recursive: true });
    const lock = tryLock(path, { staleMs: HEARTBEAT_STALE_MS });
    if (lock.acquired) this.heartbeat = lock.release;
  }

  private find(id: string): StoreJob {
    const current = this.current(id);
    if (current) return current;
    const job = this.db.data.jobs.find((j) => j.id === id);
    if (!job) throw new LabError('not_found', `no job with id '${id}'`);
    return job;
  }

  private async onMessage(id: string, msg: FromWorker): Promise<void> {
    const live = this.live.get(id);
    if (!live) return;
    const { job } = live;
    switch (msg.type) {
      case 'progress': {
        job.progress = clampProgress(msg.progress);
        const now = Date.now();
        if (now - live.lastEmit >= EMIT_EVERY_MS) {
          live.lastEmit = now;
          this.emit(job);
        }
        if (now - live.lastPersist >= PERSIST_EVERY_MS) {
          live.lastPersist = now;
          const progress = job.progress;
          await this.db.update((data) => {
            const stored = data.jobs.find((j) => j.id === id);
            if (stored?.status === 'running') stored.progress = progress;
          });
        }
        break;
      }
      case 'event': {
        const record = publicRecord(job);
        for (const listener of this.eventListeners) listener(msg.name, msg.payload, record);
        break;
      }
      case 'log':
        job.progress = { ...job.progress, message: msg.message };
        this.emit(job);
        break;
      case 'result':
        await this.finish(id, 'succeeded', { result: msg.result });
        break;
      case 'error':
        await this.finish(id, msg.cancelled || live.cancelRequested ? 'cancelled' : 'failed', msg.cancelled ? {} : { error: msg.message });
        break;
    }
  }

  /** Ends a live job once (a result and the worker's exit both come here); the record and what it made are stored together. */
  private async finish(id: string, status: 'succeeded' | 'failed' | 'cancelled' | 'interrupted', extra: JobEnding): Promise<void> {
    const live = this.live.get(id);
    if (!live) return;
    this.live.delete(id);
    if (live.cancelTimer) clearTimeout(live.cancelTimer);
    live.release?.();
    endWorker(live.worker);
    const job = transition(live.job, status, new Date().toISOString(), extra);
    live.job = job;
    await live.started;
    await this.db.update((data) => {
      const at = data.jobs.findIndex((j) => j.id === id);
      if (at >= 0) data.jobs[at] = structuredClone(job);
      else data.jobs.push(structuredClone(job));
      if (status === 'succeeded') registerArtefacts(data, job);
    });
    this.emit(job);
    this.pump();
  }

  private emit(job: StoreJob): void {
    const record = this.publicWithQueue(job);
    for (const listener of this.listeners) listener(record);
  }
}

/** A finished job's worker exits by itself; one kept alive by a handle its job left open is terminated. */
function endWorker(worker: Worker): void {
  const timer = setTimeout(() => void worker.terminate(), EXIT_GRACE_MS);
  worker.once('exit', () => clearTimeout(timer));
}

/**
 * Records what a finished job made in the store: `result.artefact` in the collection its spec names,
 * and `result.also` (e.g. a comparison's per-checkpoint trajectory sets) in theirs.
 */
function registerArtefacts(data: StoreData, job: StoreJob): void {
  const result = job.result as { artefact?: ArtefactRecord; also?: Array<{ collection: ArtefactCollection; artefact: ArtefactRecord }> } | undefined;
  const collection = isJobKind(job.kind) ? jobSpecs[job.kind].registers : undefined;
  const items = [...(result?.also ?? []), ...(collection && result?.artefact ? [{ collection, artefact: result.artefact }] : [])];
  for (const { collection: c, artefact } of items) {
    const list = data[c];
    const at = list.findIndex((a) => a.id === artefact.id);
    if (at >= 0) list[at] = artefact;
    else list.push(artefact);
  }
}

function publicRecord(job: StoreJob): JobRecord {
  const { owner: _owner, ...rest } = job;
  return structuredClone(rest);
}

function clampProgress(p: JobProgress): JobProgress {
  const fraction = Number.isFinite(p.fraction) ? Math.min(1, Math.max(0, p.fraction)) : 0;
  return { ...p, fraction, message: String(p.message ?? '').slice(0, 500) };
}
