// One trainer per run, whichever path starts it and in whichever process: a second start is refused
// with an error naming the run; a lock left by a process that is gone is taken over.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { LabCore } from '../../main/lab/app/core';
import { LabError } from '../../main/lab/base/errors';
import type { JobRecord, RunSummary } from '../../main/lab/contract';
import { trainerLockFile } from '../../main/lab/runs/layout';

import { DATA, labHome, SMALL } from '../support/rl-run-helpers';

const cores: LabCore[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
});

async function coreWithData(): Promise<LabCore> {
  const home = labHome();
  const core = await LabCore.open({ home, detectBackend: false });
  cores.push(core);
  const now = new Date().toISOString();
  await core.db.update((data) => {
    data.graphs.push({ id: DATA.graphId, name: 'g', path: 'graphs/g.json', createdAt: now, info: {} });
    data.datasets.push({ id: DATA.datasetId, name: 'train', path: 'datasets/train.jsonl', createdAt: now, info: {} });
    data.datasets.push({ id: DATA.heldOutDatasetId, name: 'held', path: 'datasets/held.jsonl', createdAt: now, info: {} });
  });
  return core;
}

const refusal = (p: Promise<unknown>): Promise<LabError> => p.then(() => Promise.reject(new Error('expected a refusal')), (e: unknown) => e as LabError);

function ended(core: LabCore, id: string): Promise<JobRecord> {
  return new Promise((resolve) => {
    const off = core.on('job.updated', (job) => {
      if (job.id === id && job.status !== 'running') {
        off();
        resolve(job);
      }
    });
  });
}

describe('one trainer per run', () => {
  it('refuses a second trainer on a running run, through jobs.start as through runs.resume', { timeout: 60_000 }, async () => {
    const core = await coreWithData();
    const run = (await core.call('runs.start', { config: { data: DATA, ...SMALL, sft: { steps: 5000 } } })) as RunSummary;
    const id = run.artefact.id;
    const direct = await refusal(core.call('jobs.start', { kind: 'train', params: { runId: id } }));
    expect(direct.code).toBe('conflict');
    expect(direct.message).toContain(`run ${id} is already being trained`);
    expect((await refusal(core.call('runs.resume', { id }))).code).toBe('conflict');
    expect(core.jobs.list().filter((j) => j.kind === 'train')).toHaveLength(1);
    // The job names its run: the Jobs page and the status bar say which run is training.
    expect(core.jobs.list().find((j) => j.id === run.jobId)?.title).toBe(`Training run: ${run.artefact.name}`);

    const done = ended(core, run.jobId!);
    await core.call('runs.cancel', { id });
    await done;
    // Once it ended, the run can be trained again; a job started through jobs.start joins the run.
    const again = (await core.call('jobs.start', { kind: 'train', params: { runId: id, resume: true } })) as JobRecord;
    expect(core.runs.get(id).jobId).toBe(again.id);
    const againDone = ended(core, again.id);
    await core.call('jobs.cancel', { id: again.id });
    await againDone;
  });

  it('refuses while another process holds the run, and takes over its lock once that process is gone', { timeout: 60_000 }, async () => {
    const core = await coreWithData();
    const run = (await core.call('runs.start', { config: { data: DATA, ...SMALL, sft: { steps: 5000 } } })) as RunSummary;
    const id = run.artefact.id;
    const first = ended(core, run.jobId!);
    await core.call('runs.cancel', { id });
    await first;

    // Another process takes the run's trainer lock (and keeps its heartbeat going), as a trainer elsewhere would.
    const lockfileModule = new URL('../../main/lab/store/lockfile.ts', import.meta.url).pathname;
    const holderCode = `import(${JSON.stringify(lockfileModule)}).then((m) => { m.tryLock(${JSON.stringify(trainerLockFile(core.home, id))}, { staleMs: 10000, note: 'job-elsewhere' }); console.log('held'); setTimeout(() => {}, 60000); })`;
    const other = spawn(process.execPath, ['--import', 'tsx', '-e', holderCode], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((r) => other.stdout!.once('data', r));
    const err = await refusal(core.call('runs.resume', { id }));
    expect(err.message).toContain(`run ${id} is already being trained by process ${other.pid} (job job-elsewhere)`);

    other.kill('SIGKILL');
    await new Promise((r) => other.once('exit', r));
    const resumed = (await core.call('runs.resume', { id })) as RunSummary;
    expect(resumed.status).toBe('running');
    const done = ended(core, resumed.jobId!);
    await core.call('runs.cancel', { id });
    await done;
  });
});
