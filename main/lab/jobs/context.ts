// What a job's code sees while it runs in its worker thread.
import type { JobProgress } from '../contract';
import type { JsonlAppender } from '../store/jsonl';

export interface JobContext {
  jobId: string;
  /** The data directory. */
  home: string;
  /** The job's own directory (absolute), created before the job starts. */
  dir: string;
  /** The job's output stream (dir/stream.jsonl), for jobs whose spec says `streams`. */
  stream: JsonlAppender | null;
  /** Aborted when the user cancels; long loops check it and stop. */
  signal: AbortSignal;
  progress(p: JobProgress): void;
  log(message: string): void;
  /** Sends an event to every client (e.g. a training run's new metric records), relayed by the manager. */
  publish(name: string, payload: unknown): void;
}

export type JobRunner = (params: unknown, ctx: JobContext) => Promise<unknown>;

/** Throws when the job was cancelled: call between units of work. */
export function throwIfCancelled(ctx: JobContext): void {
  if (ctx.signal.aborted) throw new CancelledError();
}

export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

/** A zero-delay pause so the worker can receive the cancel message between steps. */
export function yieldToEvents(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
