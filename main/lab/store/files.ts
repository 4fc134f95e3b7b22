// File primitives with crash safety. Every whole-file write goes to a temporary file in the same
// directory, is flushed, then renamed over the target: a reader sees the old or the new file, never half.
// JSON Lines streams are append-only; a line torn by a crash is detected on read and skipped.
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { threadId } from 'node:worker_threads';
import { inputError, LabError } from '../errors';

let tmpCounter = 0;

/**
 * A temporary name beside `path` that no other writer picks: worker threads share the pid and each starts
 * its own counter at 0, so the thread id and random bytes go in too.
 */
export function tempName(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${threadId}.${randomBytes(4).toString('hex')}.${tmpCounter++}.tmp`);
}

/** Temporary files (`.<file>.<pid>[.<thread>.<random>].<n>.tmp`) and checkpoint staging folders (`.<dir>.tmp-<pid>-<n>`, `.old-`). */
const TEMP_NAMES = [/^\..+\.(\d+)\.(?:\d+\.[0-9a-f]{8}\.)?\d+\.tmp$/, /^\..+\.(?:tmp|old)-(\d+)-\d+$/];

/** A writer takes seconds; a temporary file this old is abandoned even if its pid now belongs to a live process. */
export const TEMP_MAX_AGE_MS = 10 * 60_000;

/** The pid that wrote a temporary file or folder, from its name; null for any other name. */
export function tempWriterPid(name: string): number | null {
  for (const pattern of TEMP_NAMES) {
    const m = pattern.exec(name);
    if (m) return Number(m[1]);
  }
  return null;
}

/** Abandoned: its writer is gone (killed mid-write), or it is older than any write takes. */
export function isAbandonedTemp(writerPid: number, ageMs: number, writerAlive: (pid: number) => boolean): boolean {
  return ageMs > TEMP_MAX_AGE_MS || !writerAlive(writerPid);
}

/**
 * Removes temporary files and folders left by killed writers under `root` (folders `depth` levels down,
 * links not followed). A live writer's temporary file, in this or another process, stays. Returns what went.
 */
export function removeAbandonedTemps(root: string, writerAlive: (pid: number) => boolean, depth = 4, now = Date.now()): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const path = join(root, name);
    let info;
    try {
      info = lstatSync(path);
    } catch {
      continue; // gone in between
    }
    const pid = tempWriterPid(name);
    if (pid !== null && (info.isFile() || info.isDirectory()) && isAbandonedTemp(pid, now - info.mtimeMs, writerAlive)) {
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } else if (info.isDirectory() && depth > 0) {
      removed.push(...removeAbandonedTemps(path, writerAlive, depth - 1, now));
    }
  }
  return removed;
}

export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = tempName(path);
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, path);
}

export function writeJsonAtomic(path: string, value: unknown, pretty = false): void {
  writeFileAtomic(path, JSON.stringify(value, null, pretty ? 2 : undefined) + '\n');
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new LabError('not_found', `${path}: no such file`);
    if (code === 'EISDIR') throw inputError(path, 'is a directory, expected a file');
    throw err;
  }
}

/** Reads a JSON file; a syntax error names the file (and the position JSON.parse reports). */
export function readJsonFile(path: string): unknown {
  const text = readText(path);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw inputError(path, `not valid JSON (${(err as Error).message})`);
  }
}

export interface JsonlLine {
  line: number; // 1-based
  value: unknown;
}

export interface JsonlRead {
  records: JsonlLine[];
  /** true when the last line had no newline and did not parse: a write torn by a crash. */
  tornTail: boolean;
}

/**
 * Reads a JSON Lines file. Blank lines are skipped. A malformed line in the middle is an error naming
 * file and line; a malformed *last* line without a trailing newline is the signature of an interrupted
 * append and is reported as `tornTail` instead, so streams stay readable after a kill.
 */
export function readJsonl(path: string): JsonlRead {
  const text = readText(path);
  const lines = text.split('\n');
  const endsClean = text.length === 0 || text.endsWith('\n');
  const records: JsonlLine[] = [];
  let tornTail = false;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    try {
      records.push({ line: i + 1, value: JSON.parse(raw) as unknown });
    } catch (err) {
      const isLast = i === lines.length - 1;
      if (isLast && !endsClean) {
        tornTail = true;
        break;
      }
      throw inputError(path, `not valid JSON (${(err as Error).message})`, { line: i + 1 });
    }
  }
  return { records, tornTail };
}
