// Lock files shared by every process on one data directory: created with O_EXCL, holding the owner's pid
// and process start time, so a lock left by a killed process is recognised as stale and taken over.
// Used for db.json (held for one read-merge-write, milliseconds) and for a run's trainer (held for hours).
import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { threadId } from 'node:worker_threads';

export interface ProcessIdentity {
  pid: number;
  /** When the process started (Linux: clock ticks since boot from /proc), null where it cannot be read. */
  procStart: string | null;
}

export interface LockHolder extends ProcessIdentity {
  since: string;
  /** What the lock is held for, shown to whoever is refused (e.g. a job id). */
  note?: string;
}

/** The start time of a process, which tells a live process from a later one that reused its pid. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22; the command name (field 2) may hold spaces and parentheses, so count after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

let ownStart: string | null | undefined;

export function thisProcess(): ProcessIdentity {
  ownStart ??= processStart(process.pid);
  return { pid: process.pid, procStart: ownStart };
}

/** True while the process that recorded `who` still runs (a reused pid with another start time does not count). */
export function isProcessAlive(who: { pid: number; procStart?: string | null }): boolean {
  try {
    process.kill(who.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (!who.procStart) return true;
  const now = processStart(who.pid);
  return now === null || now === who.procStart;
}

export type LockAttempt = { acquired: true; release: () => void } | { acquired: false; holder: LockHolder | null };

function parseHolder(text: string): LockHolder | null {
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    return typeof v.pid === 'number' && typeof v.since === 'string' ? (v as LockHolder) : null;
  } catch {
    return null;
  }
}

/**
 * Stale: its process is gone, or (with maxAgeMs) it is older than any legitimate holder keeps it. A lock
 * whose content is not readable yet (just created, not yet written) is stale only by age.
 */
export function isStaleLock(holder: LockHolder | null, ageMs: number, maxAgeMs: number | undefined): boolean {
  if (maxAgeMs !== undefined && ageMs > maxAgeMs) return true;
  if (!holder) return ageMs > 10_000;
  return !isProcessAlive(holder);
}

function readLock(path: string): { text: string; holder: LockHolder | null; ageMs: number } | null {
  try {
    const text = readFileSync(path, 'utf8');
    return { text, holder: parseHolder(text), ageMs: Date.now() - statSync(path).mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Removes a stale lock whose content was `seen`. It is renamed aside first, so of two processes breaking
 * it at once only one removes it; if what was moved is no longer the stale lock (taken over in between),
 * it is put back.
 */
function breakLock(path: string, seen: string): void {
  const aside = `${path}.${process.pid}.${threadId}.${randomBytes(4).toString('hex')}.stale`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (readFileSync(aside, 'utf8') !== seen) {
    try {
      linkSync(aside, path);
    } catch {
      /* a newer lock is in place already */
    }
  }
  rmSync(aside, { force: true });
}

/** One attempt to take the lock at `path`; a stale lock is broken and the attempt repeated once. */
export function tryLock(path: string, opts: { note?: string; maxAgeMs?: number } = {}): LockAttempt {
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const found = readLock(path);
      if (!found) continue; // released in between
      if (!isStaleLock(found.holder, found.ageMs, opts.maxAgeMs)) return { acquired: false, holder: found.holder };
      breakLock(path, found.text);
      continue;
    }
    const holder: LockHolder = { ...thisProcess(), since: new Date().toISOString(), ...(opts.note ? { note: opts.note } : {}) };
    const content = JSON.stringify(holder);
    try {
      writeSync(fd, content);
    } finally {
      closeSync(fd);
    }
    return { acquired: true, release: () => releaseIfOurs(path, content) };
  }
  return { acquired: false, holder: readLock(path)?.holder ?? null };
}

/** Removes the lock only while it still holds what we wrote: a lock broken as stale and retaken is not ours. */
function releaseIfOurs(path: string, content: string): void {
  const found = readLock(path);
  if (found?.text === content) rmSync(path, { force: true });
}
