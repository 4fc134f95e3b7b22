// Entry of a job worker thread: runs one job and reports back through the parent port. It sits above every
// layer because it is where each kind of job finds its code (jobs/specs.ts lists the kinds and their
// params); the imports are dynamic so a worker pays only for the job it runs.
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { openJsonlAppender } from '../store/jsonl';
import { CancelledError, type JobContext, type JobRunner } from '../jobs/context';
import type { FromWorker, ToWorker, WorkerInput } from '../jobs/protocol';
import { threadChannel } from '../util/worker-spawn';
import { isJobKind, type JobKind } from '../contract/jobs';

/** The code behind each job kind, loaded only inside the worker: a kind without a runner does not compile. */
const JOB_RUNNERS: { readonly [K in JobKind]: () => Promise<JobRunner> } = {
  demo: async () => (await import('../jobs/demo')).runDemo,
  'kg.build': async () => (await import('../jobs/lab-jobs')).runKgBuild,
  synth: async () => (await import('../jobs/lab-jobs')).runSynth,
  rollout: async () => (await import('../train/act/rollout-job')).runRollout,
  compare: async () => (await import('../train/act/compare-job')).runCompare,
  train: async () => (await import('../train/job/train-job')).runTrain,
  estimate: async () => (await import('../train/act/estimate')).runEstimate,
};

const { init: input, send, onMessage, done } = threadChannel<WorkerInput, ToWorker, FromWorker>('job-worker');

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
    const load = isJobKind(input.kind) ? JOB_RUNNERS[input.kind] : undefined;
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
