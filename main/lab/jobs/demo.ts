import { demoParams } from '../contract/jobs';
import { throwIfCancelled, yieldToEvents, type JobContext } from './context';

/** Writes `records` lines to the job stream, one every `intervalMs`, reporting progress as it goes. */
export async function runDemo(raw: unknown, ctx: JobContext): Promise<{ records: number }> {
  const params = demoParams.parse(raw);
  for (let i = 0; i < params.records; i++) {
    throwIfCancelled(ctx);
    if (params.failAt !== undefined && i + 1 === params.failAt) {
      throw new Error(`demo job failed on purpose at record ${params.failAt}`);
    }
    ctx.stream?.append({ i, time: new Date().toISOString(), value: Math.sin(i / 5) });
    ctx.progress({ fraction: (i + 1) / params.records, message: `record ${i + 1} of ${params.records}`, done: i + 1, total: params.records });
    await yieldToEvents(params.intervalMs);
  }
  return { records: params.records };
}
