// Append-only JSON Lines streams (metrics, trajectories, job output). Each record is one write of one
// line; a crash can at worst leave the last line torn, which readers skip (files.readJsonl) and the
// next appender trims before writing, so the stream never holds a broken line in the middle.
import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { diskFullError, isNoSpace } from './files';

export interface JsonlAppender {
  append(record: unknown): void;
  close(): void;
  /** Bytes of a torn last line removed when the stream was opened (0 when it was clean). */
  readonly repairedBytes: number;
}

/** Length of the file up to and including its last newline. */
function cleanLength(fd: number): number {
  const size = fstatSync(fd).size;
  const chunk = Buffer.alloc(64 * 1024);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const n = readSync(fd, chunk, 0, end - start, start);
    const idx = chunk.subarray(0, n).lastIndexOf(0x0a);
    if (idx >= 0) return start + idx + 1;
    end = start;
  }
  return 0;
}

export function openJsonlAppender(path: string): JsonlAppender {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, existsSync(path) ? 'r+' : 'w+');
  const size = fstatSync(fd).size;
  const clean = cleanLength(fd);
  if (clean < size) ftruncateSync(fd, clean);
  let position = clean;
  let open = true;
  return {
    repairedBytes: size - clean,
    append(record) {
      if (!open) throw new Error(`stream ${path} is closed`);
      const line = Buffer.from(JSON.stringify(record) + '\n');
      try {
        // One write(2) may write part of the line (a nearly full disk): write the rest until all is in.
        let done = 0;
        while (done < line.length) done += writeSync(fd, line, done, line.length - done, position + done);
      } catch (err) {
        try {
          ftruncateSync(fd, position); // no part of the line stays: the stream ends at its last whole record
        } catch {
          // a reader skips a torn last line, and the next appender trims it
        }
        throw isNoSpace(err) ? diskFullError(path, err, 'the records before it are kept') : err;
      }
      position += line.length;
    },
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
}
