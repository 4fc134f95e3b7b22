// Messages between the job manager (main thread) and a job worker.
import type { JobProgress } from '../contract';

export interface WorkerInput {
  jobId: string;
  kind: string;
  params: unknown;
  home: string;
  dir: string;
  streams: boolean;
}

export type ToWorker = { type: 'cancel' };

export type FromWorker =
  | { type: 'progress'; progress: JobProgress }
  | { type: 'log'; message: string }
  | { type: 'event'; name: string; payload: unknown }
  | { type: 'result'; result: unknown }
  | { type: 'error'; message: string; cancelled: boolean };
