// The run store's metadata: one JSON document (db.json) in the data directory, shared by every process
// on it (the app or `sailor serve`, CLI commands, several at once), kept through lowdb.
//
// lowdb gives the document and its adapter; what one process alone would not need is added here. Every change
// is a function applied under a cross-process lock (db.json.lock, proper-lockfile, held only for one
// read-modify-write): the file is re-read inside the lock, the change applied to what is on disk now, and the
// result written atomically (temp file + fsync + rename). No process ever writes back a stale snapshot, so no
// record another process wrote is lost. Readers see other processes' changes because `data` re-reads the file
// whenever it was replaced. A file that is corrupt or was written by a newer Sailor Lab is refused and left
// exactly as it is.
import { readFileSync, statSync } from 'node:fs';
import { LowSync, type SyncAdapter } from 'lowdb';
import { dirname, join } from 'node:path';
import type { ArtefactRecord, JobRecord } from '../contract';
import type { Endpoint } from '../contract/endpoints';

export type { ArtefactRecord };
import { jsonSyntaxMessage, LabError } from '../base/errors';
import { ensureWritableFolder, readOnlyFolderError, removeAbandonedTemps, writeJsonAtomic } from './files';
import { pidExists, removeStaleHeartbeats, waitLock } from './lockfile';

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
  /** Saved model endpoints (contract/endpoints.ts): never a key, only the name of the variable holding it. */
  endpoints: Endpoint[];
  jobs: StoreJob[];
}

/** Which process runs a job: a job is interrupted only once that process is gone (lockfile.ts ownerAlive). */
export interface JobOwner {
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
    endpoints: [],
    jobs: [],
  };
}

const MOVE_ASIDE = 'It was left untouched; move it aside to start a fresh store.';

/** Checks a parsed db.json; returns it with any collections that an older version lacked filled in. */
export function checkStoreData(file: string, value: unknown): StoreData {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new LabError('corrupt', `${file}: expected a JSON object. ${MOVE_ASIDE}`);
  }
  const rec = value as Record<string, unknown>;
  if (rec.format !== STORE_FORMAT) {
    throw new LabError('corrupt', `${file}: format is ${JSON.stringify(rec.format)}, expected "${STORE_FORMAT}". ${MOVE_ASIDE}`);
  }
  if (typeof rec.version !== 'number' || !Number.isInteger(rec.version)) {
    throw new LabError('corrupt', `${file}: version is missing or not an integer. ${MOVE_ASIDE}`);
  }
  if (rec.version > STORE_VERSION) {
    throw new LabError(
      'unsupported',
      `${file}: written by a newer Sailor Lab (store version ${rec.version}, this build reads up to ${STORE_VERSION}). ` +
        'Not opened, so that it is not overwritten; update Sailor Lab or use another SAILOR_HOME.',
    );
  }
  const data = { ...emptyStore(), ...rec } as StoreData;
  for (const key of ['projects', 'graphs', 'datasets', 'runs', 'checkpoints', 'trajectories', 'comparisons', 'endpoints', 'jobs'] as const) {
    if (!Array.isArray(data[key])) throw new LabError('corrupt', `${file}: "${key}" must be an array. ${MOVE_ASIDE}`);
  }
  return data;
}

const LOCK_STALE_MS = 5_000; // a holder keeps the lock for one read-modify-write (milliseconds) and beats meanwhile
const LOCK_WAIT_MS = 20_000;

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

/** lowdb's adapter for db.json: reads and checks it (null when absent), writes it atomically. */
export class StoreFile implements SyncAdapter<StoreData> {
  constructor(readonly file: string) {}

  read(): StoreData | null {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      return checkStoreData(this.file, JSON.parse(text));
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err;
      throw new LabError('corrupt', `${this.file}: not valid JSON (${jsonSyntaxMessage(err)}). ${MOVE_ASIDE}`);
    }
  }

  write(data: StoreData): void {
    // A rename would replace a file its owner made read-only (even root's writes honour this): refused instead.
    const mode = stampOf(this.file) === null ? null : statSync(this.file).mode;
    if (mode !== null && (mode & 0o222) === 0) throw new LabError('conflict', `${this.file}: read-only; not replaced. Make it writable (chmod u+w) to change the store`);
    writeJsonAtomic(this.file, data, true);
  }
}

export class StoreDb {
  private readonly low: LowSync<StoreData>;
  private stamp: FileStamp | null = null;
  /** Changes from this process, applied one after another in call order. */
  private queue: Promise<unknown> = Promise.resolve();
  readonly lockFile: string;

  constructor(readonly file: string) {
    this.lockFile = `${file}.lock`;
    this.low = new LowSync(new StoreFile(file), emptyStore());
  }

  /** The metadata as on disk now (re-read when another process or thread replaced the file). Treat as read-only. */
  get data(): StoreData {
    const now = stampOf(this.file);
    if (!sameStamp(now, this.stamp)) this.load(now);
    return this.low.data;
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

  /** Stamp taken before the read: a replacement in between is seen (and read) on the next access. */
  private load(stamp: FileStamp | null): void {
    this.low.data = emptyStore();
    this.low.read(); // keeps the empty store when the file is absent
    this.stamp = stamp;
  }

  private async updateLocked<T>(change: (data: StoreData) => T): Promise<T> {
    // A folder made read-only after the store was opened refuses the lock's mkdir: said in one line.
    const lock = await waitLock(this.lockFile, { staleMs: LOCK_STALE_MS, waitMs: LOCK_WAIT_MS }).catch((err: unknown) => {
      throw readOnlyFolderError(dirname(this.file), err) ?? err;
    });
    if (!lock.acquired) {
      const who = lock.holder ? `process ${lock.holder.pid} since ${lock.holder.since}` : 'another process';
      throw new LabError('conflict', `${this.lockFile}: held by ${who} for longer than ${LOCK_WAIT_MS / 1000} s; is a process stuck?`);
    }
    try {
      this.load(stampOf(this.file));
      const draft = structuredClone(this.low.data);
      const result = change(draft);
      this.low.data = draft;
      this.low.write();
      this.stamp = stampOf(this.file);
      return result;
    } finally {
      lock.release();
    }
  }
}

export async function openStoreDb(home: string): Promise<StoreDb> {
  ensureWritableFolder(home);
  const db = new StoreDb(join(home, 'db.json'));
  void db.data; // reads and checks it now: a corrupt store is refused at open
  // What killed processes left: their temporary files and their heartbeats.
  removeAbandonedTemps(home, pidExists);
  removeStaleHeartbeats(home);
  return db;
}
