// File primitives with crash safety. Every whole-file write goes to a temporary file in the same
// directory, is flushed, then renamed over the target: a reader sees the old or the new file, never half.
// JSON Lines streams are append-only; a line torn by a crash is detected on read and skipped.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
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
