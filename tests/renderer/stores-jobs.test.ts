// The renderer's jobs and app stores against a real lab on a loopback port (tests/support/ui-lab.ts): jobs
// listed, started, followed by events to the end, cancelled, refused; a job launcher that stops listening
// when its component goes; the app facts and licence notices. Demo jobs only: each takes a fraction of a second.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { effectScope } from 'vue';
import { createPinia, setActivePinia } from 'pinia';
import type { JobRecord } from '@contract';
import { eventsOpen, startUiLab, until, type UiLab } from '../support/ui-lab';
import { useApp } from '../../renderer/src/stores/app';
import { useJobLauncher, useJobs } from '../../renderer/src/stores/jobs';

let lab: UiLab;
beforeAll(async () => {
  lab = await startUiLab();
});
afterAll(async () => {
  await lab.close();
});
beforeEach(async () => {
  setActivePinia(createPinia());
  useJobs(); // the first store opens the event socket
  await until('the event socket', eventsOpen);
});

const DEMO = { records: 5, intervalMs: 10 };

describe('jobs store', () => {
  it('starts a job and follows it to the end through job.updated events', async () => {
    const jobs = useJobs();
    await jobs.load();
    const before = jobs.list.length;
    const job = await jobs.start('demo', DEMO);
    expect(job).not.toBeNull();
    expect(jobs.byId.get(job!.id)).toBeDefined();
    const done = await until('the demo job to succeed', () => (jobs.byId.get(job!.id)?.status === 'succeeded' ? jobs.byId.get(job!.id) : null));
    expect(done.progress.fraction).toBe(1);
    expect(jobs.list).toHaveLength(before + 1);
    expect(jobs.list[0]!.id).toBe(job!.id); // newest first
    expect(jobs.running).toEqual([]);
    expect(await jobs.readStream(job!.id)).toHaveLength(DEMO.records);
  });

  it('lists the jobs another client started, and cancels a running one', async () => {
    const jobs = useJobs();
    const other = (await lab.core.call('jobs.start', { kind: 'demo', params: { records: 400, intervalMs: 50 } })) as JobRecord;
    await until('the other job to show as running', () => jobs.running.some((j) => j.id === other.id));
    await jobs.cancel(other.id);
    await until('the cancellation', () => jobs.byId.get(other.id)?.status === 'cancelled');
    expect(jobs.error).toBeNull();
  });

  it('keeps the lab core refusal as its error', async () => {
    const jobs = useJobs();
    // @ts-expect-error an unknown kind does not type-check; a client that sends one anyway is refused by the lab
    expect(await jobs.start('no-such-kind')).toBeNull();
    expect(jobs.error).toMatch(/no-such-kind|kind/);
  });
});

describe('useJobLauncher', () => {
  it('follows its own job and calls back for every job of its kind, saying which was its own', async () => {
    const seen: Array<[string, boolean]> = [];
    const scope = effectScope();
    const launcher = scope.run(() => useJobLauncher('demo', (job, mine) => void seen.push([job.id, mine])))!;
    const own = await launcher.start(DEMO);
    expect(own).not.toBeNull();
    expect(launcher.jobId.value).toBe(own!.id);
    await until('its job to finish', () => launcher.job.value?.status === 'succeeded');
    expect(launcher.running.value).toBe(false);
    const other = (await lab.core.call('jobs.start', { kind: 'demo', params: DEMO })) as JobRecord;
    await until('the other job to be reported', () => seen.some(([id]) => id === other.id));
    expect(seen).toContainEqual([own!.id, true]);
    expect(seen).toContainEqual([other.id, false]);
    scope.stop();
  });

  it('stops listening when its scope ends (a component unmounting leaves no listener behind)', async () => {
    const callback = vi.fn();
    const scope = effectScope();
    scope.run(() => useJobLauncher('demo', callback));
    scope.stop();
    // A launcher that is still alive sees the next job finish; the stopped one must not.
    const witness = vi.fn();
    const live = effectScope();
    live.run(() => useJobLauncher('demo', witness));
    await lab.core.call('jobs.start', { kind: 'demo', params: DEMO });
    await until('the live launcher to see the job', () => witness.mock.calls.length > 0);
    expect(callback).not.toHaveBeenCalled();
    live.stop();
  });

  it('reports a start the lab core refuses, and is not running', async () => {
    const scope = effectScope();
    const launcher = scope.run(() => useJobLauncher('demo', () => undefined))!;
    expect(await launcher.start({ records: -1 })).toBeNull();
    // A refusal naming its fields comes as issues, for the form to mark the field; no raw text as the error.
    expect(launcher.issues.value?.map((i) => i.path)).toEqual(['records']);
    expect(launcher.issues.value?.[0]?.message).toMatch(/^must be at least/);
    expect(launcher.error.value).toBeNull();
    expect(launcher.running.value).toBe(false);
    scope.stop();
  });
});

describe('app store', () => {
  it('loads the app facts, the store summary and the licence notices over the web transport', async () => {
    const app = useApp();
    expect(app.transport).toBe('web');
    await app.load();
    expect(app.error).toBeNull();
    expect(app.info?.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(app.summary).not.toBeNull();
    await app.loadLicenses();
    expect(Array.isArray(app.licenses)).toBe(true);
  });
});
