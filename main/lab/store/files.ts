// File primitives with crash safety. Every whole-file write goes to a temporary file in the same
// directory, is flushed, then renamed over the target: a reader sees the old or the new file, never half.
// JSON Lines streams are append-only; a line torn by a crash is detected on read and skipped.
import { accessSync, closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, writeFileSync, type Stats } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { threadId } from 'node:worker_threads';
import { inputError, jsonSyntaxMessage, LabError } from '../base/errors';

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

/** What the disk could not take: no space, a quota, the process's file-size limit (ulimit -f). */
const NO_SPACE: Record<string, string> = { ENOSPC: 'no space left on the device', EDQUOT: 'over the disk quota', EFBIG: 'over the file-size limit' };

/** True for an error that says the disk (or a quota) is full. */
export function isNoSpace(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code !== undefined && (err as NodeJS.ErrnoException).code! in NO_SPACE;
}

/** The one-line error a full disk gives, naming the file the lab was writing and what is left as it was. */
export function diskFullError(path: string, err: unknown, kept = 'the previous version is kept'): LabError {
  const code = (err as NodeJS.ErrnoException).code!;
  return new LabError('no_space', `${path}: disk full (${NO_SPACE[code]}, ${code}); not written, ${kept}. Free some space and try again`, { file: path, errno: code });
}

/** What a read-only folder or filesystem answers a write with (EROFS: mounted read-only, even for root). */
const READ_ONLY = new Set(['EACCES', 'EPERM', 'EROFS']);

/** The one-line error for a folder the lab cannot write in (as a read-only db.json's: `conflict`, HTTP 409). */
export function readOnlyFolderError(folder: string, err: unknown): LabError | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (!code || !READ_ONLY.has(code)) return null;
  return new LabError('conflict', `${folder}: the data folder is read-only (${code}); the lab keeps its store there. Make it writable, or choose another with --home or SAILOR_HOME`, { folder, errno: code });
}

/**
 * Makes sure the data folder `home` exists and this process may write in it, at once: without this a read-only
 * folder surfaced 20 s later as a raw `EACCES rmdir` from the store's lock, or as a stack trace.
 */
export function ensureWritableFolder(home: string): void {
  try {
    mkdirSync(home, { recursive: true });
    accessSync(home, constants.W_OK);
  } catch (err) {
    throw readOnlyFolderError(home, err) ?? err;
  }
}

/**
 * Writes `data` whole to `path` or not at all: into a temporary file beside it, flushed, renamed over it. Node's
 * writeFileSync on the descriptor loops until every byte is in (one write(2) near a full disk writes only part
 * and reports no error; the next one fails with ENOSPC). A full disk leaves the old file as it was and throws
 * a `no_space` error naming `path`.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = tempName(path);
  try {
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(tmp, 'w');
    try {
      writeFileSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw isNoSpace(err) ? diskFullError(path, err) : err;
  }
}

export function writeJsonAtomic(path: string, value: unknown, pretty = false): void {
  writeFileAtomic(path, JSON.stringify(value, null, pretty ? 2 : undefined) + '\n');
}

// ---------- reading a path someone gave us ----------

/**
 * Caps on what the lab reads from one file: a whole JSON file becomes one string, so it stays well under V8's
 * string limit (about 512 M characters); JSON Lines are read line by line, so the cap is on the records kept.
 * `SAILOR_MAX_INPUT_BYTES` lowers (or raises) both, for tests and for a machine with less memory.
 */
export function inputCaps(): { jsonBytes: number; jsonlBytes: number; lineBytes: number } {
  const env = Number(process.env.SAILOR_MAX_INPUT_BYTES);
  const override = Number.isSafeInteger(env) && env > 0 ? env : undefined;
  return { jsonBytes: override ?? 256 * MiB, jsonlBytes: override ?? GiB, lineBytes: Math.min(override ?? 64 * MiB, 64 * MiB) };
}
const MiB = 1 << 20;
const GiB = 1 << 30;

const bytesText = (n: number): string => (n >= GiB ? `${+(n / GiB).toFixed(2)} GiB` : n >= MiB ? `${+(n / MiB).toFixed(1)} MiB` : `${n} bytes`);

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Opens a file a user named for reading: regular files only. The open never blocks (a FIFO with no writer would
 * hang the process, and with it a server's every client), and the check is on what was opened (a link to
 * /dev/zero is a device), so nothing can swap the file between the check and the read. Caller closes `fd`.
 */
export function openInputFile(path: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new LabError('not_found', `${path}: no such file`);
    if (code === 'EISDIR') throw inputError(path, 'is a directory, expected a regular file');
    if (code === 'EACCES' || code === 'EPERM') throw inputError(path, 'not readable (permission denied)');
    if (code === 'ELOOP') throw inputError(path, 'is a symbolic link loop');
    throw err;
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw inputError(path, `is ${kindOf(st)}, expected a regular file`);
  }
  return { fd, size: st.size };
}

function overCap(path: string, size: number, cap: number, what: string): LabError {
  return inputError(path, `is ${bytesText(size)}, over the ${bytesText(cap)} the lab reads as ${what} (set SAILOR_MAX_INPUT_BYTES to change it)`);
}

/** Bytes of `fd` from `offset`, at most `max` (a file that grows while read is cut there). */
function readFd(fd: number, offset: number, max: number): Buffer {
  const buf = Buffer.alloc(max);
  let got = 0;
  while (got < max) {
    const n = readSync(fd, buf, got, max - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** A user's file as bytes, checked (regular file) and capped before a byte is read. */
export function readInputBytes(path: string, cap = inputCaps().jsonlBytes, what = 'one file'): Buffer {
  return readInputFrom(path, 0, cap, what).bytes;
}

/** The bytes of a user's file from `offset` on, checked and capped; `size` is the offset reached. */
export function readInputFrom(path: string, offset: number, cap = inputCaps().jsonBytes, what = 'one file'): { bytes: Buffer; size: number } {
  const { fd, size } = openInputFile(path);
  try {
    const want = Math.max(0, size - offset);
    if (want > cap) throw overCap(path, want, cap, what);
    const bytes = readFd(fd, offset, want);
    return { bytes, size: offset + bytes.length };
  } finally {
    closeSync(fd);
  }
}

function readText(path: string): string {
  return readInputBytes(path, inputCaps().jsonBytes, 'one JSON document').toString('utf8');
}

/** Reads a JSON file; a syntax error names the file (and the position JSON.parse reports). */
export function readJsonFile(path: string): unknown {
  const text = readText(path);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw inputError(path, `not valid JSON (${jsonSyntaxMessage(err)})`);
  }
}

/**
 * The lines of a user's JSON Lines file, read in chunks: never one string of the whole file, so a file of any
 * size up to the cap is read (a 2 GB dataset as one string is over V8's limit). `last` marks a final line with
 * no newline after it. A line over the line cap stops the read, naming it.
 */
export function *inputLines(path: string, caps = inputCaps(), chunkBytes = 4 * MiB): Generator<{ line: number; text: string; last: boolean }> {
  const { fd, size } = openInputFile(path);
  try {
    if (size > caps.jsonlBytes) throw overCap(path, size, caps.jsonlBytes, 'JSON Lines');
    const decoder = new StringDecoder('utf8');
    const chunk = Buffer.alloc(Math.min(chunkBytes, Math.max(1, size)));
    let pending = '';
    let line = 0;
    let offset = 0;
    for (;;) {
      const n = offset < caps.jsonlBytes ? readSync(fd, chunk, 0, Math.min(chunk.length, caps.jsonlBytes - offset), offset) : 0;
      offset += n;
      pending += n > 0 ? decoder.write(chunk.subarray(0, n)) : decoder.end();
      let start = 0;
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n', start)) {
        yield { line: ++line, text: pending.slice(start, nl), last: false };
        start = nl + 1;
      }
      pending = pending.slice(start);
      if (pending.length > caps.lineBytes) throw inputError(path, `a line over ${bytesText(caps.lineBytes)}: the lab reads shorter lines`, { line: line + 1 });
      if (n === 0) break;
    }
    if (pending !== '') yield { line: ++line, text: pending, last: true };
  } finally {
    closeSync(fd);
  }
}

/** The first line of a user's file (a set's header), without reading the rest. */
export function firstInputLine(path: string): string {
  for (const { text } of inputLines(path)) return text; // leaving the loop closes the file
  return '';
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
  const records: JsonlLine[] = [];
  for (const { line, text, last } of inputLines(path)) {
    const raw = text.trim();
    if (raw === '') continue;
    try {
      records.push({ line, value: JSON.parse(raw) as unknown });
    } catch (err) {
      if (last) return { records, tornTail: true };
      throw inputError(path, `not valid JSON (${jsonSyntaxMessage(err)})`, { line });
    }
  }
  return { records, tornTail: false };
}
