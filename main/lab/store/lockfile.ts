// Locks shared by every process on one data directory, on every OS, through proper-lockfile: a lock is a
// directory (mkdir is atomic everywhere) whose mtime its holder refreshes every `staleMs / 4` (a heartbeat).
// A lock whose heartbeat stopped for `staleMs` is stale and taken over, so a lock left by a killed process,
// or by one whose pid was since reused, frees itself; no process table is read.
// Beside the lock, `<lock>.holder.json` says who holds it (pid, since, what for) for the messages of those
// refused. Used for db.json (held for one read-modify-write), a run's trainer (hours) and each process's own
// heartbeat (its jobs' owner is alive while it beats).
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { diskFullError, isNoSpace } from './files';

export interface LockHolder {
  pid: number;
  since: string;
  /** What the lock is held for, shown to whoever is refused (e.g. a job id). */
  note?: string;
}

export type LockAttempt = { acquired: true; release: () => void } | { acquired: false; holder: LockHolder | null };

export interface LockOptions {
  /** A lock not refreshed for this long is stale (proper-lockfile's minimum is 2 s). */
  staleMs: number;
  note?: string;
}

const holderFile = (path: string): string => `${path}.holder.json`;

/** True while `pid` names a running process (it may be a later process that reused the pid: see heartbeats). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const readHolderText = (path: string): string | null => (existsSync(holderFile(path)) ? readFileSync(holderFile(path), 'utf8') : null);

/** Who holds the lock at `path`, as the holder wrote it; null when unreadable (being written, or none). */
export function readHolder(path: string): LockHolder | null {
  try {
    const v = JSON.parse(readHolderText(path) ?? 'null') as Partial<LockHolder> | null;
    return typeof v?.pid === 'number' && typeof v.since === 'string' ? (v as LockHolder) : null;
  } catch {
    return null;
  }
}

/** True while a lock exists at `path` and its heartbeat is younger than `staleMs`. */
export function isLockFresh(path: string, staleMs: number): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < staleMs;
  } catch {
    return false;
  }
}

function settings(path: string, staleMs: number) {
  return {
    lockfilePath: path,
    realpath: false,
    stale: staleMs,
    update: Math.max(1000, staleMs / 4),
    // A heartbeat that came too late (this thread was blocked for longer than staleMs) may have let another
    // process take the lock over: say so instead of proper-lockfile's default, which throws from a timer.
    onCompromised: (err: Error) => console.warn(`lock ${path}: ${err.message}; another process may have taken it over`),
  };
}

function held(path: string, note: string | undefined, release: () => void): () => void {
  const holder: LockHolder = { pid: process.pid, since: new Date().toISOString(), ...(note ? { note } : {}) };
  const text = JSON.stringify(holder);
  try {
    writeFileSync(holderFile(path), text);
  } catch (err) {
    // A full disk: the lock is given back and the user told which file could not be written, in one line.
    rmSync(holderFile(path), { force: true });
    release();
    throw isNoSpace(err) ? diskFullError(holderFile(path), err, 'nothing was changed') : err;
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // Only our own note: a lock taken over after a late heartbeat has its new holder's beside it.
    if (readHolderText(path) === text) rmSync(holderFile(path), { force: true });
    try {
      release();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ERELEASED' && (err as NodeJS.ErrnoException).code !== 'ENOTACQUIRED') throw err;
    }
  };
}

/** One attempt to take the lock at `path` (a stale one is taken over). */
export function tryLock(path: string, opts: LockOptions): LockAttempt {
  try {
    return { acquired: true, release: held(path, opts.note, lockfile.lockSync(path, settings(path, opts.staleMs))) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
    return { acquired: false, holder: readHolder(path) };
  }
}

/** Takes the lock at `path`, waiting up to `waitMs` for its holder to release it or to stop beating. */
export async function waitLock(path: string, opts: LockOptions & { waitMs: number }): Promise<LockAttempt> {
  // One attempt first: proper-lockfile retries on every error, so a folder it cannot write in (EROFS, EACCES)
  // would be reported only after the whole wait; here it throws at once.
  const first = tryLock(path, opts);
  if (first.acquired) return first;
  const retries = { retries: 10_000, minTimeout: 2, maxTimeout: 100, randomize: true, maxRetryTime: opts.waitMs };
  try {
    await lockfile.lock(path, { ...settings(path, opts.staleMs), retries });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
    return { acquired: false, holder: readHolder(path) };
  }
  return { acquired: true, release: held(path, opts.note, () => lockfile.unlockSync(path, { lockfilePath: path, realpath: false })) };
}

/**
 * Where a process's heartbeat lives: `<home>/procs/<session>`. A job records its process's session; the job
 * is still running while that heartbeat is fresh and its pid exists (a pid that is gone is dead at once).
 */
export const heartbeatPath = (home: string, session: string): string => join(home, 'procs', `${session}.lock`);
export const HEARTBEAT_STALE_MS = 15_000;

/** A heartbeat this old is abandoned even if its pid now names a live process (the pid was reused). */
const HEARTBEAT_ABANDONED_MS = 10 * 60_000;

/**
 * Removes the heartbeats that killed processes left in `<home>/procs` (a kill -9 skips the release, so each left
 * its `<session>.lock` folder and holder note behind): one whose holder's pid is gone (dead at once, as in
 * ownerAlive), one without a holder note that has not beaten for HEARTBEAT_STALE_MS (a note not yet written is
 * not enough), and one that has not beaten for 10 minutes (its pid reused). Returns the sessions removed.
 */
export function removeStaleHeartbeats(home: string, alive: (pid: number) => boolean = pidExists): string[] {
  let names: string[];
  try {
    names = readdirSync(join(home, 'procs'));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.endsWith('.lock')) continue;
    const path = join(home, 'procs', name);
    const holder = readHolder(path);
    const dead = holder ? !alive(holder.pid) : !isLockFresh(path, HEARTBEAT_STALE_MS);
    if (!dead && isLockFresh(path, HEARTBEAT_ABANDONED_MS)) continue;
    rmSync(path, { recursive: true, force: true });
    rmSync(holderFile(path), { force: true });
    removed.push(name.slice(0, -'.lock'.length));
  }
  return removed;
}

export function ownerAlive(home: string, owner: { pid: number; session: string }): boolean {
  return pidExists(owner.pid) && isLockFresh(heartbeatPath(home, owner.session), HEARTBEAT_STALE_MS);
}

/**
 * Takes a lock that a live holder keeps for long (a run's trainer): refused at once while its holder's
 * process runs; when that process is gone (killed), waits the few seconds until its heartbeat goes stale.
 */
export async function claimLock(path: string, opts: LockOptions): Promise<LockAttempt> {
  const first = tryLock(path, opts);
  if (first.acquired || (first.holder && pidExists(first.holder.pid))) return first;
  return waitLock(path, { ...opts, waitMs: opts.staleMs + 2000 });
}
