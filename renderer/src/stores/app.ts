// App-wide facts: transport, environment report, compute backend, store counts, and the licence notices
// the About section lists.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { AppInfo, BackendReport, LicenseNotice, StoreSummary } from '@contract';
import { message } from '../util/errors';
import { lab, onLab } from '../api/client';

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
      error.value = message(err);
    }
  }

  const licenses = ref<LicenseNotice[]>([]);
  async function loadLicenses(): Promise<void> {
    licenses.value = await lab().call('about.licenses');
  }

  onLab('app.backend', (report) => (backend.value = report));
  return { info, backend, summary, error, transport, licenses, load, loadLicenses };
});
