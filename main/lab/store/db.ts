// The run store's metadata: one JSON document (db.json) in the data directory, shared by every process
// on it (the app or `sailor serve`, CLI commands, several at once).
//
// Why a lock and mutations rather than per-process journals: db.json stays the one readable file it always
// was, and a change is small (a record pushed, a job's status set). So every change is a function applied
// under an O_EXCL lock file (db.json.lock, held only for one read-modify-write): the file is re-read inside
// the lock, the change applied to what is on disk now, and the result written atomically (temp file + fsync
// + rename). No process ever writes back a stale snapshot, so no record another process wrote is lost.
// Readers see other processes' changes because `data` re-reads the file whenever it was replaced.
// A file that is corrupt or was written by a newer Sailor Lab is refused and left exactly as it is.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ArtefactRecord, JobRecord } from '../contract';

export type { ArtefactRecord };
import { jsonSyntaxMessage, LabError } from '../errors';
import { removeAbandonedTemps, writeJsonAtomic } from './files';
import { isProcessAlive, tryLock, type LockHolder, type ProcessIdentity } from './lockfile';

export const STORE_FORMAT = 'sailor.store';
export const STORE_VERSION = 1;

export interface StoreData {
  format: typeof STORE_FORMAT;
  version: number;
  projects: ArtefactRecord[];
  graphs: ArtefactRecord[];
  datasets: ArtefactRecord[];
  runs: ArtefactRecord[];
  checkpoints: ArtefactRecord[];
  /** Trajectory sets (rollouts): one JSON Lines file each, `sailor.traj/1`. */
  trajectories: ArtefactRecord[];
  comparisons: ArtefactRecord[];
  jobs: StoreJob[];
}

/** Which process runs a job: a job is interrupted only once that process is gone. */
export interface JobOwner extends Partial<ProcessIdentity> {
  pid: number;
  session: string;
}

export type StoreJob = JobRecord & { owner?: JobOwner };

export function emptyStore(): StoreData {
  return {
    format: STORE_FORMAT,
    version: STORE_VERSION,
    projects: [],
    graphs: [],
    datasets: [],
    runs: [],
    checkpoints: [],
    trajectories: [],
    comparisons: [],
    jobs: [],
  };
}

/** Checks a parsed db.json; returns it with any collections that an older version lacked filled in. */
export function checkStoreData(file: string, value: unknown): StoreData {
  const moveAside = 'It was left untouched; move it aside to start a fresh store.';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new LabError('corrupt', `${file}: expected a JSON object. ${moveAside}`);
  }
  const rec = value as Record<string, unknown>;
  if (rec.format !== STORE_FORMAT) {
    throw new LabError('corrupt', `${file}: format is ${JSON.stringify(rec.format)}, expected "${STORE_FORMAT}". ${moveAside}`);
  }
  if (typeof rec.version !== 'number' || !Number.isInteger(rec.version)) {
    throw new LabError('corrupt', `${file}: version is missing or not an integer. ${moveAside}`);
  }
  if (rec.version > STORE_VERSION) {
    throw new LabError(
      'unsupported',
      `${file}: written by a newer Sailor Lab (store version ${rec.version}, this build reads up to ${STORE_VERSION}). ` +
        'Not opened, so that it is not overwritten; update Sailor Lab or use another SAILOR_HOME.',
    );
  }
  const data = { ...emptyStore(), ...rec } as StoreData;
  for (const key of ['projects', 'graphs', 'datasets', 'runs', 'checkpoints', 'trajectories', 'comparisons', 'jobs'] as const) {
    if (!Array.isArray(data[key])) throw new LabError('corrupt', `${file}: "${key}" must be an array. ${moveAside}`);
  }
  return data;
}

const LOCK_STALE_MS = 30_000; // a holder keeps the lock for one read-modify-write: milliseconds
const LOCK_WAIT_MS = 20_000;

/** Parses db.json's text; a syntax error names the file and leaves it as it is. */
export function parseStoreText(file: string, text: string): StoreData {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new LabError(
      'corrupt',
      `${file}: not valid JSON (${jsonSyntaxMessage(err)}). It was left untouched; move it aside to start a fresh store.`,
    );
  }
  return checkStoreData(file, value);
}

interface FileStamp {
  ino: number;
  size: number;
  mtimeMs: number;
}

function stampOf(file: string): FileStamp | null {
  try {
    const { ino, size, mtimeMs } = statSync(file);
    return { ino, size, mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

const sameStamp = (a: FileStamp | null, b: FileStamp | null): boolean =>
  a === b || (a !== null && b !== null && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class StoreDb {
  private cached: StoreData = emptyStore();
  private stamp: FileStamp | null = null;
  /** Changes from this process, applied one after another in call order. */
  private queue: Promise<unknown> = Promise.resolve();
  readonly lockFile: string;

  constructor(readonly file: string) {
    this.lockFile = `${file}.lock`;
  }

  /** The metadata as on disk now (re-read when another process or thread replaced the file). Treat as read-only. */
  get data(): StoreData {
    const now = stampOf(this.file);
    if (!sameStamp(now, this.stamp)) this.load(now);
    return this.cached;
  }

  /**
   * Applies `change` to the metadata on disk, under the lock, and writes the result. `change` must be a
   * mutation of what it is given (it may run on a newer document than `data` showed); what it returns is
   * handed back. Changes from this process keep their call order.
   */
  update<T>(change: (data: StoreData) => T): Promise<T> {
    const next = this.queue.then(() => this.updateLocked(change));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private load(stamp: FileStamp | null): void {
    if (stamp === null) {
      this.cached = emptyStore();
      this.stamp = null;
      return;
    }
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      return this.load(null);
    }
    // Stamp taken before the read: a replacement in between is seen (and read) on the next access.
    this.cached = parseStoreText(this.file, text);
    this.stamp = stamp;
  }

  private async updateLocked<T>(change: (data: StoreData) => T): Promise<T> {
    const release = await this.lock();
    try {
      this.load(stampOf(this.file));
      const draft = structuredClone(this.cached);
      const result = change(draft);
      writeJsonAtomic(this.file, draft, true);
      this.cached = draft;
      this.stamp = stampOf(this.file);
      return result;
    } finally {
      release();
    }
  }

  private async lock(): Promise<() => void> {
    const deadline = Date.now() + LOCK_WAIT_MS;
    let holder: LockHolder | null = null;
    for (let wait = 2; Date.now() < deadline; wait = Math.min(wait * 2, 50)) {
      const attempt = tryLock(this.lockFile, { maxAgeMs: LOCK_STALE_MS });
      if (attempt.acquired) return attempt.release;
      holder = attempt.holder;
      await sleep(wait * (0.5 + Math.random()));
    }
    const who = holder ? `process ${holder.pid} since ${holder.since}` : 'another process';
    throw new LabError('conflict', `${this.lockFile}: held by ${who} for longer than ${LOCK_WAIT_MS / 1000} s; is a process stuck? Remove the file if none runs.`);
  }
}

export async function openStoreDb(home: string): Promise<StoreDb> {
  const db = new StoreDb(join(home, 'db.json'));
  void db.data; // reads and checks it now: a corrupt store is refused at open
  removeAbandonedTemps(home, (pid) => isProcessAlive({ pid }));
  return db;
}
