// App-wide facts: transport, environment report, compute backend, store counts.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { AppInfo, BackendReport, StoreSummary } from '@contract';
import { lab } from '../api/client';

export const useApp = defineStore('app', () => {
  const info = ref<AppInfo | null>(null);
  const backend = ref<BackendReport | null>(null);
  const summary = ref<StoreSummary | null>(null);
  const error = ref<string | null>(null);
  const transport = lab().transport;

  async function load(): Promise<void> {
    try {
      info.value = await lab().call('app.info');
      backend.value ??= info.value.backend;
      summary.value = await lab().call('store.summary');
      error.value = null;
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
    }
  }

  lab().on('app.backend', (report) => (backend.value = report));
  return { info, backend, summary, error, transport, load };
});
