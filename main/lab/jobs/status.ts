// A job's status changes here and nowhere else: which changes are allowed, and what each one writes beside the
// status (when it started or ended, the progress message, the result or error). The manager and recovery at
// start call `transition`; a change the table does not allow is a bug in the caller, so it throws.
import type { JobStatus } from '../contract';
import type { StoreJob } from '../store/db';

/** The statuses a job may go to from each status; an ended job goes nowhere. */
export const JOB_TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  // Waiting in line: it starts, or leaves without running (cancelled; the app closed or its process died).
  queued: ['running', 'cancelled', 'interrupted'],
  running: ['succeeded', 'failed', 'cancelled', 'interrupted'],
  succeeded: [],
  failed: [],
  cancelled: [],
  interrupted: [],
};

export const isEnded = (status: JobStatus): boolean => JOB_TRANSITIONS[status].length === 0;

export const canTransition = (from: JobStatus, to: JobStatus): boolean => JOB_TRANSITIONS[from].includes(to);

/** What an ended job carries besides its status. */
export interface JobEnding {
  result?: unknown;
  error?: string;
}

/**
 * The job after moving to `to` at `now` (a new record; the one given is left as it was). Starting sets
 * `startedAt` and a fresh progress; ending sets `endedAt`, and the result or error.
 */
export function transition(job: StoreJob, to: JobStatus, now: string, ending: JobEnding = {}): StoreJob {
  if (!canTransition(job.status, to)) {
    throw new Error(`job ${job.id}: a ${job.status} job cannot become ${to} (allowed: ${JOB_TRANSITIONS[job.status].join(', ') || 'none, it has ended'})`);
  }
  if (to === 'running') return { ...job, status: to, startedAt: now, progress: { fraction: 0, message: 'starting' } };
  const ended: StoreJob = { ...job, status: to, endedAt: now };
  if (to === 'succeeded') ended.progress = { ...job.progress, fraction: 1, message: 'done' };
  if (to === 'cancelled') ended.progress = { ...job.progress, message: 'cancelled' };
  if (ending.result !== undefined) ended.result = ending.result;
  if (ending.error !== undefined) ended.error = ending.error;
  return ended;
}

/** A new job's first record: running at once, or queued behind others. */
export function firstStatus(startsNow: boolean): Pick<StoreJob, 'status' | 'progress'> {
  return startsNow ? { status: 'running', progress: { fraction: 0, message: 'starting' } } : { status: 'queued', progress: { fraction: 0, message: 'queued' } };
}
