// What kinds of job exist and what params each takes. Light on purpose (schemas only): the main thread
// validates a start request here before any worker is spawned. The code that runs lives in runners.ts.
import { z } from 'zod';

export interface JobSpec<P extends z.ZodType = z.ZodType> {
  kind: string;
  title: string;
  description: string;
  params: P;
  /** Whether the job writes a JSON Lines stream (job dir/stream.jsonl). */
  streams: boolean;
}

export const demoParams = z
  .object({
    records: z.number().int().min(1).max(100_000).default(40),
    intervalMs: z.number().int().min(0).max(10_000).default(100),
    failAt: z.number().int().min(1).optional(),
  })
  .strict();
export type DemoParams = z.output<typeof demoParams>;

export const jobSpecs: Record<string, JobSpec> = {
  demo: {
    kind: 'demo',
    title: 'Demo job',
    description: 'Writes a stream of records in a worker thread and reports progress: proves the job path end to end.',
    params: demoParams,
    streams: true,
  },
};
