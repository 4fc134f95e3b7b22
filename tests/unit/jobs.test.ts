// Jobs run in real worker threads, write real streams, and end in the right status.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { LabCore } from '../../main/lab/app/core';
import type { DatasetView, JobRecord } from '../../main/lab/contract';
import { LabError } from '../../main/lab/base/errors';
import { heartbeatPath, HEARTBEAT_STALE_MS, tryLock } from '../../main/lab/store/lockfile';
import { waitForStatus } from '../support/helpers';

const cores: LabCore[] = [];
async function openCore(home = mkdtempSync(join(tmpdir(), 'sailor-jobs-'))): Promise<LabCore> {
  const core = await LabCore.open({ home, detectBackend: false });
  cores.push(core);
  return core;
}
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
});

describe('jobs', () => {
  it('a demo job streams its records, reports progress and succeeds', async () => {
    const core = await openCore();
    const progress: number[] = [];
    core.on('job.updated', (j) => progress.push(j.progress.fraction));
    const job = (await core.call('jobs.start', { kind: 'demo', params: { records: 12, intervalMs: 15 } })) as JobRecord;
    expect(job.status).toBe('running');
    const done = await waitForStatus(core, job.id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    expect(done.result).toEqual({ records: 12 });
    expect(done.progress.fraction).toBe(1);
    expect(progress.some((f) => f > 0 && f < 1)).toBe(true);
    const page = (await core.call('jobs.stream', { id: job.id })) as { records: Array<{ i: number }>; tornTail: boolean };
    expect(page.records.map((r) => r.i)).toEqual([...Array(12).keys()]);
    expect(page.tornTail).toBe(false);
    // The finished status is on disk, not only in memory.
    const reopened = await openCore(core.home);
    expect(reopened.jobs.get(job.id).status).toBe('succeeded');
  });

  it('a job that throws ends failed with its message', async () => {
    const core = await openCore();
    const job = (await core.call('jobs.start', { kind: 'demo', params: { records: 10, intervalMs: 5, failAt: 3 } })) as JobRecord;
    const done = await waitForStatus(core, job.id, ['succeeded', 'failed']);
    expect(done.status).toBe('failed');
    expect(done.error).toContain('failed on purpose at record 3');
  });

  it('cancel stops a running job', async () => {
    const core = await openCore();
    const started = new Promise<void>((resolve) => core.on('job.updated', (j) => (j.progress.done ?? 0) >= 2 && resolve()));
    const job = (await core.call('jobs.start', { kind: 'demo', params: { records: 1000, intervalMs: 20 } })) as JobRecord;
    await started; // cancel a job that is really running, however slow the machine is
    await core.call('jobs.cancel', { id: job.id });
    const done = await waitForStatus(core, job.id, ['cancelled', 'succeeded', 'failed']);
    expect(done.status).toBe('cancelled');
    const page = (await core.call('jobs.stream', { id: job.id, limit: 10_000 })) as { records: unknown[] };
    expect(page.records.length).toBeGreaterThan(0);
    expect(page.records.length).toBeLessThan(1000);
  });

  it('bad params and unknown kinds are refused before any worker starts', async () => {
    const core = await openCore();
    await expect(core.call('jobs.start', { kind: 'nope' })).rejects.toThrow(/unknown job kind 'nope'/);
    // Names of Object.prototype's members are unknown kinds too (they answered 500 through the prototype).
    for (const kind of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const e = await core.call('jobs.start', { kind }).catch((x: unknown) => x);
      expect((e as LabError).code, kind).toBe('bad_request');
      expect((e as LabError).message).toContain(`unknown job kind '${kind}'`);
    }
    const err = await core.call('jobs.start', { kind: 'demo', params: { records: 'many' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LabError);
    expect((err as LabError).code).toBe('bad_request');
    expect((err as LabError).message).toContain('records');
    expect(core.jobs.list()).toHaveLength(0);
    await expect(core.call('jobs.get', { id: 'missing' })).rejects.toThrow(/no job with id 'missing'/);
    await expect(core.call('no.such.method', {})).rejects.toThrow(/unknown method/);
  });

  it('jobs left running by a dead process are marked interrupted on the next start', async () => {
    const core = await openCore();
    await core.db.update((data) => data.jobs.push({
      id: 'old-1',
      kind: 'demo',
      title: 'Demo job',
      params: {},
      status: 'running',
      progress: { fraction: 0.4, message: 'record 4 of 10' },
      createdAt: '2026-01-01T00:00:00.000Z',
      owner: { pid: 2 ** 22 + 12345, session: 'gone' }, // no such process
    }));
    const next = await openCore(core.home);
    const job = next.jobs.get('old-1');
    expect(job.status).toBe('interrupted');
    expect(job.progress.fraction).toBe(0.4);
  });

  it('a job of another process that still runs is left running; a reused pid does not count as its owner', async () => {
    const core = await openCore();
    const base = { kind: 'demo', title: 'Demo job', params: {}, status: 'running' as const, progress: { fraction: 0.1, message: '' }, createdAt: '2026-01-01T00:00:00.000Z' };
    // A live process beats under its session; a job whose pid runs (here: reused by this process) but whose
    // session has no heartbeat is an orphan.
    mkdirSync(dirname(heartbeatPath(core.home, 'another process')), { recursive: true });
    const beat = tryLock(heartbeatPath(core.home, 'another process'), { staleMs: HEARTBEAT_STALE_MS });
    expect(beat.acquired).toBe(true);
    await core.db.update((data) => {
      data.jobs.push({ ...base, id: 'other-live', owner: { pid: process.pid, session: 'another process' } });
      data.jobs.push({ ...base, id: 'reused-pid', owner: { pid: process.pid, session: 'long gone' } });
    });
    const next = await openCore(core.home);
    expect(next.jobs.get('other-live').status).toBe('running');
    expect(next.jobs.get('reused-pid').status).toBe('interrupted');
    if (beat.acquired) beat.release();
  });
});

describe('synthesis job options', () => {
  it('builds questions over subgraphs of at most maxEdges edges, and names a bad size range', { timeout: 60_000 }, async () => {
    const core = await openCore();
    const graph = (await core.call('jobs.start', { kind: 'kg.build', params: { rng: 7, maxEdges: 300 } })) as JobRecord;
    expect((await waitForStatus(core, graph.id, ['succeeded', 'failed'], 60_000)).status).toBe('succeeded');
    const synth = (await core.call('jobs.start', { kind: 'synth', params: { graphId: graph.id, count: 40, rng: 3, minEdges: 1, maxEdges: 2 } })) as JobRecord;
    expect((await waitForStatus(core, synth.id, ['succeeded', 'failed'], 60_000)).status).toBe('succeeded');
    const view = (await core.call('datasets.get', { id: synth.id })) as DatasetView;
    expect(view.qas).toHaveLength(40);
    expect(Math.max(...view.qas.map((q) => q.subgraph.edges.length))).toBeLessThanOrEqual(2);
    expect(view.qas.some((q) => q.subgraph.edges.length === 1)).toBe(true); // minEdges 1 reaches one-edge questions
    await expect(core.call('jobs.start', { kind: 'synth', params: { graphId: graph.id, count: 5, minEdges: 3, maxEdges: 2 } })).rejects.toThrow(/minEdges: minEdges must not exceed maxEdges/);

    // Lookups, and a held-out set kept off the training set's edges.
    const lookup = { kinds: [], anchorProb: 1, maxConstraints: 0, perShape: 1000, minEdges: 1, maxEdges: 1 };
    const train = (await core.call('jobs.start', { kind: 'synth', params: { graphId: graph.id, count: 60, rng: 4, ...lookup } })) as JobRecord;
    expect((await waitForStatus(core, train.id, ['succeeded', 'failed'], 60_000)).status).toBe('succeeded');
    const held = (await core.call('jobs.start', { kind: 'synth', params: { graphId: graph.id, count: 20, rng: 5, excludeDatasetId: train.id, ...lookup } })) as JobRecord;
    expect((await waitForStatus(core, held.id, ['succeeded', 'failed'], 60_000)).status).toBe('succeeded');
    const trainQas = ((await core.call('datasets.get', { id: train.id })) as DatasetView).qas;
    const heldQas = ((await core.call('datasets.get', { id: held.id })) as DatasetView).qas;
    const trainEdges = new Set(trainQas.flatMap((q) => q.subgraph.edges));
    expect(heldQas).toHaveLength(20);
    expect(heldQas.flatMap((q) => q.subgraph.edges).filter((e) => trainEdges.has(e))).toEqual([]);
    for (const qa of [...trainQas, ...heldQas]) expect(qa.obfuscations).toEqual([]);
    // A dataset of another graph cannot be excluded from this one.
    const other = (await core.call('jobs.start', { kind: 'kg.build', params: { rng: 8, maxEdges: 60, seed: 'country:JPN' } })) as JobRecord;
    expect((await waitForStatus(core, other.id, ['succeeded', 'failed'], 60_000)).status).toBe('succeeded');
    const wrong = (await core.call('jobs.start', { kind: 'synth', params: { graphId: other.id, count: 5, excludeDatasetId: train.id, ...lookup } })) as JobRecord;
    const failed = await waitForStatus(core, wrong.id, ['succeeded', 'failed'], 60_000);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/excludeDatasetId: dataset .* shares no edge with the graph/);
  });
});
