// Entry of a job worker thread: runs one job and reports back through the parent port.
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { openJsonlAppender } from '../store/jsonl';
import { jobRunners } from './runners';
import { CancelledError, type JobContext } from './context';
import type { FromWorker, ToWorker, WorkerInput } from './protocol';
import { threadChannel } from '../util/worker-spawn';

const { init: input, send, onMessage, done } = threadChannel<WorkerInput, ToWorker, FromWorker>('jobs/worker');

const abort = new AbortController();
onMessage((msg) => {
  if (msg.type === 'cancel') abort.abort();
});

async function main(): Promise<void> {
  mkdirSync(input.dir, { recursive: true });
  const stream = input.streams ? openJsonlAppender(join(input.dir, 'stream.jsonl')) : null;
  const ctx: JobContext = {
    jobId: input.jobId,
    home: input.home,
    dir: input.dir,
    stream,
    signal: abort.signal,
    progress: (progress) => send({ type: 'progress', progress }),
    log: (message) => send({ type: 'log', message }),
    publish: (name, payload) => send({ type: 'event', name, payload }),
  };
  try {
    const load = Object.hasOwn(jobRunners, input.kind) ? jobRunners[input.kind] : undefined;
    if (!load) throw new Error(`no runner for job kind '${input.kind}'`);
    const run = await load();
    const result = await run(input.params, ctx);
    send({ type: 'result', result: result ?? null });
  } catch (err) {
    const cancelled = err instanceof CancelledError || abort.signal.aborted;
    send({ type: 'error', message: err instanceof Error ? err.message : String(err), cancelled });
  } finally {
    stream?.close();
    done(); // the thread ends here; the manager terminates one that a job's leftover handle keeps alive
  }
}

void main();
