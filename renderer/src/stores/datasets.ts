// QA datasets: the list, the open dataset with its row index and filters, the open QA, and synthesis jobs.
// A dataset can hold thousands of QAs: they sit in shallowRefs and are filtered by plain computeds.
import { defineStore } from 'pinia';
import { computed, reactive, ref, watch } from 'vue';
import type { JobParamsInput, QaDetail } from '@contract';
import type { QA } from '@formats';
import { lab } from '../api/client';
import { useArtefacts, useOpened } from './opened';
import { useJobLauncher } from './jobs';

export interface QaRow {
  qa: QA;
  kinds: string[];
  /** Lower-cased text the free-text filter looks in. */
  hay: string;
}

export interface QaFilters {
  level: string;
  topology: string;
  kind: string;
  orbit: string;
  text: string;
}

/** The obfuscation kinds the synthesiser knows (docs/pipeline.md, 'Uncertainty injection'); datasets may show more. */
export const KNOWN_KINDS = ['vague_time', 'numeric_range', 'partial_name', 'description', 'multi_constraint', 'implicit_order', 'distractor'];

export const PAGE_SIZE = 50;

function toRow(qa: QA): QaRow {
  return {
    qa,
    kinds: [...new Set(qa.obfuscations.map((o) => o.kind))],
    hay: [qa.id, qa.question, qa.answer, qa.answer_id, ...qa.aliases].join('\n').toLowerCase(),
  };
}

function tally(values: Iterable<string>): Array<[string, number]> {
  const m = new Map<string, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m].sort((a, b) => a[0].localeCompare(b[0], undefined, { numeric: true }));
}

export const useDatasets = defineStore('datasets', () => {
  const artefacts = useArtefacts('datasets.list', (id) => lab().call('datasets.get', { id }), {
    // Opening another item starts it clean.
    reset: () => {
      closeQa();
      clearFilters();
    },
  });
  const { load, currentId, current, open } = artefacts;

  const filters = reactive<QaFilters>({ level: '', topology: '', kind: '', orbit: '', text: '' });
  const page = ref(0);

  // One QA of the open dataset, with its subgraph.
  const qa = useOpened<QaDetail>((qaId) => lab().call('datasets.qa', { id: currentId.value!, qaId }));
  const { currentId: openQaId, current: qaDetail, loading: qaLoading, error: qaError } = qa;

  const rows = computed<QaRow[]>(() => (current.value ? current.value.qas.map(toRow) : []));
  const facets = computed(() => ({
    levels: tally(rows.value.map((r) => String(r.qa.level))),
    topologies: tally(rows.value.map((r) => r.qa.topology)),
    kinds: tally(rows.value.flatMap((r) => r.kinds)),
    orbits: tally(rows.value.map((r) => String(r.qa.orbit))),
  }));
  const filtered = computed<QaRow[]>(() => {
    const f = filters;
    const text = f.text.trim().toLowerCase();
    return rows.value.filter(
      (r) =>
        (!f.level || String(r.qa.level) === f.level) &&
        (!f.topology || r.qa.topology === f.topology) &&
        (!f.kind || r.kinds.includes(f.kind)) &&
        (!f.orbit || String(r.qa.orbit) === f.orbit) &&
        (!text || r.hay.includes(text)),
    );
  });
  const pageCount = computed(() => Math.max(1, Math.ceil(filtered.value.length / PAGE_SIZE)));
  const pageRows = computed(() => filtered.value.slice(page.value * PAGE_SIZE, (page.value + 1) * PAGE_SIZE));
  watch(filters, () => (page.value = 0));

  // A finished synthesis (this window's or another's) lists the new dataset; this window's opens it.
  const synth = useJobLauncher('synth', async (job, mine) => {
    await load();
    if (mine) await open(job.id);
  });
  const synthJob = synth.job;
  const synthesising = synth.running;
  const synthError = synth.error;
  const synthIssues = synth.issues;

  function clearFilters(): void {
    Object.assign(filters, { level: '', topology: '', kind: '', orbit: '', text: '' });
  }

  async function openQa(qaId: string): Promise<void> {
    if (currentId.value) await qa.open(qaId);
  }

  function closeQa(): void {
    qa.close();
  }

  async function synthesise(params: JobParamsInput<'synth'>): Promise<void> {
    await synth.start({ ...params });
  }

  return {
    ...artefacts,
    filters,
    page,
    rows,
    facets,
    filtered,
    pageCount,
    pageRows,
    openQaId,
    qaDetail,
    qaLoading,
    qaError,
    synthJob,
    synthesising,
    synthError,
    synthIssues,
    openQa,
    closeQa,
    clearFilters,
    synthesise,
  };
});
