// Live jobs: loaded once, then kept current by the job.updated event stream.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { JobRecord } from '../../../main/lab/contract';
import { lab } from '../api/client';

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
      error.value = err instanceof Error ? err.message : String(err);
    }
  }

  async function start(kind: string, params: Record<string, unknown> = {}): Promise<JobRecord | null> {
    try {
      error.value = null;
      const job = await lab().call('jobs.start', { kind, params });
      put(job);
      return job;
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
      return null;
    }
  }

  async function cancel(id: string): Promise<void> {
    try {
      put(await lab().call('jobs.cancel', { id }));
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
    }
  }

  lab().on('job.updated', put);
  return { byId, list, running, error, load, start, cancel };
});
