// Live jobs: loaded once, then kept current by the job.updated event stream.
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { FieldIssue, JobKind, JobParamsArg, JobParamsInput, JobRecord, JobStartParams } from '@contract';
import { issuesOf, message } from '../util/errors';
import { lab, onLab } from '../api/client';

/** `jobs.start`'s params for one kind (TypeScript cannot match a generic kind to its branch of the union itself). */
const startParams = <K extends JobKind>(kind: K, params: JobParamsInput<K> | undefined): JobStartParams => ({ kind, params: params ?? {} }) as JobStartParams;

export const useJobs = defineStore('jobs', () => {
  const byId = ref(new Map<string, JobRecord>());
  const error = ref<string | null>(null);

  const list = computed(() => [...byId.value.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt)));
  const running = computed(() => list.value.filter((j) => j.status === 'running'));

  function put(job: JobRecord): void {
    const next = new Map(byId.value);
    next.set(job.id, job);
    byId.value = next;
  }

  async function load(): Promise<void> {
    try {
      const jobs = await lab().call('jobs.list');
      byId.value = new Map(jobs.map((j) => [j.id, j]));
    } catch (err) {
      error.value = message(err);
    }
  }

  async function start<K extends JobKind>(kind: K, ...[params]: JobParamsArg<K>): Promise<JobRecord | null> {
    try {
      error.value = null;
      const job = await lab().call('jobs.start', startParams(kind, params));
      put(job);
      return job;
    } catch (err) {
      error.value = message(err);
      return null;
    }
  }

  async function cancel(id: string): Promise<void> {
    try {
      put(await lab().call('jobs.cancel', { id }));
    } catch (err) {
      error.value = message(err);
    }
  }

  /** The records a job has written to its output stream so far (the Jobs view shows their count and tail). */
  async function readStream(id: string): Promise<unknown[]> {
    return (await lab().call('jobs.stream', { id, offset: 0, limit: 10_000 })).records;
  }

  onLab('job.updated', put);
  return { byId, list, running, error, load, start, cancel, readStream };
});

/**
 * Starting one kind of job from a view and following it: the job record as it progresses, whether it is
 * running, the error when it could not start, and `onSucceeded` once it finishes (also for jobs of that
 * kind started elsewhere: `mine` says whether this launcher started it). Call inside a setup store or a
 * component's setup: it stops listening when that store or component goes.
 */
export function useJobLauncher<K extends JobKind>(kind: K, onSucceeded: (job: JobRecord, mine: boolean) => void | Promise<void>) {
  const jobs = useJobs();
  const jobId = ref<string | null>(null);
  const started = shallowRef<JobRecord | null>(null);
  const error = ref<string | null>(null);
  /** The fields main refused the last start for, in words: the form marks them (useFieldChecks), so `error` stays empty. */
  const issues = ref<FieldIssue[] | null>(null);
  const starting = ref(false);
  const job = computed<JobRecord | null>(() => (jobId.value ? (jobs.byId.get(jobId.value) ?? started.value) : null));
  const running = computed(() => starting.value || job.value?.status === 'running' || job.value?.status === 'queued');

  async function start(params: JobParamsInput<K>): Promise<JobRecord | null> {
    // A second click while the first start is on its way starts nothing (two synth jobs came from one form).
    if (starting.value) return null;
    error.value = null;
    issues.value = null;
    starting.value = true;
    try {
      const record = await lab().call('jobs.start', startParams(kind, params));
      started.value = record;
      jobId.value = record.id;
      // A quick job may have finished before this call returned: its event has already gone by.
      if (jobs.byId.get(record.id)?.status === 'succeeded') await onSucceeded(jobs.byId.get(record.id)!, true);
      return record;
    } catch (err) {
      issues.value = issuesOf(err);
      error.value = issues.value ? null : message(err);
      return null;
    } finally {
      starting.value = false;
    }
  }

  onLab('job.updated', (j) => {
    if (j.kind === kind && j.status === 'succeeded') void onSucceeded(j, j.id === jobId.value);
  });
  return { jobId, job, running, error, issues, start };
}
