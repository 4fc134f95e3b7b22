// Trajectory sets: the list, the open set with its rows, filters and sort, the open trajectory, the side
// by side comparison, and rollout jobs. A set can hold thousands of rows: they sit in shallowRefs and are
// filtered by plain computeds; full trajectories are fetched one at a time (and a few are kept).
import { useEndpoints } from './endpoints';
import { defineStore } from 'pinia';
import { computed, reactive, ref, shallowRef } from 'vue';
import { isCorrect, type JobParamsInput, ArtefactRecord, ComparisonInfo, DatasetInfo, GraphInfo, TrajDetail, TrajSetView, TrajSummary } from '@contract';
import { lab, onLab } from '../api/client';
import { fetchTrajDetail } from './trajDetails';
import { useSideBySide } from '../composables/useSideBySide';
import { useArtefacts } from './opened';
import { message } from '../util/errors';
import { useJobLauncher } from './jobs';
import { useRuns } from './runs';
import { datasetLabels, groupTrajSets, policyLabel, runUses, trajSetTitle, type SetContext } from '../util/labels';

export interface TrajRow {
  s: TrajSummary;
  question: string;
  /** The gold answer ('' when the set's dataset is gone). */
  answer: string;
  /** Lower-cased text the free-text filter looks in: question, answer, prediction, qa id. */
  hay: string;
}

export interface TrajFilters {
  termination: string;
  solved: '' | 'solved' | 'unsolved';
  policy: string;
  minTools: number | '';
  text: string;
}

export type SortKey = 'index' | 'reward' | 'turns' | 'tool_calls' | 'tokens';

export interface TrajRef {
  setId: string;
  trajId: string;
}

/** A trajectory of the same question in some set: what the side-by-side picker offers. */
export interface CompareCandidate extends TrajRef {
  setName: string;
  summary: TrajSummary;
}

export function isSolved(s: TrajSummary): boolean {
  return isCorrect(s.reward);
}

function tally(values: Iterable<string>): Array<[string, number]> {
  const m = new Map<string, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

const SORTERS: Record<SortKey, (s: TrajSummary) => number> = {
  index: (s) => s.index,
  reward: (s) => s.reward.total,
  turns: (s) => s.turns,
  tool_calls: (s) => s.tool_calls,
  tokens: (s) => s.tokens.generated,
};

export const useTrajectories = defineStore('trajectories', () => {
  const artefacts = useArtefacts(
    'trajectories.list',
    (id) => lab().call('trajectories.get', { id }),
    {
      // Opening another item starts it clean.
      reset: () => {
        closeTraj();
        clearFilters();
        mode.value = 'inspect';
      },
    },
    { loadOnce: true },
  );
  const { list, load, currentId, current, open } = artefacts;

  const filters = reactive<TrajFilters>({ termination: '', solved: '', policy: '', minTools: '', text: '' });
  const sort = reactive<{ key: SortKey; desc: boolean }>({ key: 'index', desc: false });

  const openId = ref<string | null>(null);
  const detail = shallowRef<TrajDetail | null>(null);
  const detailError = ref<string | null>(null);
  const showModelText = ref(false);

  const mode = ref<'inspect' | 'compare'>('inspect');
  const { left, right, leftDetail, rightDetail, error: compareError, setSide } = useSideBySide();
  /** Other sets of the same dataset, loaded for the side-by-side picker. */
  const otherSets = shallowRef<TrajSetView[]>([]);

  const graphs = shallowRef<ArtefactRecord<GraphInfo>[]>([]);
  const datasets = shallowRef<ArtefactRecord<DatasetInfo>[]>([]);
  const comparisons = shallowRef<ArtefactRecord<ComparisonInfo>[]>([]);

  // ---------- labels: sets by run, comparison or rollout; datasets by role and style ----------
  const runs = useRuns();
  const uses = computed(() => runUses(runs.list));
  const runName = (id: string): string | undefined => runs.list.find((r) => r.artefact.id === id)?.artefact.name;
  const graphName = (id: string): string | undefined => graphs.value.find((g) => g.id === id)?.name;
  /** A dataset as the lists show it: "300 one-hop lookups · held-out · graph quick graph". */
  const withGraph = computed(() => datasetLabels(datasets.value, uses.value, graphName));
  const withoutGraph = computed(() => datasetLabels(datasets.value, uses.value, null));
  function datasetText(id: string, graph = true): string | undefined {
    return (graph ? withGraph : withoutGraph).value.get(id);
  }
  const endpoints = useEndpoints();
  const endpointName = (spec: string): string | undefined => endpoints.bySpec(spec)?.name;
  const labelContext: SetContext = {
    runName,
    datasetName: (id) => datasetText(id, false),
    comparisonName: (id) => comparisons.value.find((c) => c.id === id)?.name,
    endpointName,
  };
  const groups = computed(() => groupTrajSets(list.value, labelContext));
  /** The open set's title: its group and label ("tiny SFT 2000 · evaluation at step 2000 · held-out questions"). */
  const currentTitle = computed(() => (current.value ? (trajSetTitle(current.value.artefact.id, groups.value) ?? current.value.artefact.name) : null));
  const describePolicy = (spec: string): string => policyLabel(spec, runName, endpointName);

  // ---------- rows ----------
  const rows = computed<TrajRow[]>(() => {
    const v = current.value;
    if (!v) return [];
    return v.trajectories.map((s) => {
      const q = v.questions[s.qa_id];
      const question = q?.question ?? '';
      const answer = q?.answer ?? '';
      return { s, question, answer, hay: `${s.qa_id}\n${s.id}\n${question}\n${answer}\n${s.prediction ?? ''}`.toLowerCase() };
    });
  });
  const facets = computed(() => ({
    terminations: tally(rows.value.map((r) => r.s.termination)),
    policies: tally(rows.value.map((r) => r.s.policy)),
  }));
  const filtered = computed<TrajRow[]>(() => {
    const f = filters;
    const text = f.text.trim().toLowerCase();
    const minTools = typeof f.minTools === 'number' && Number.isFinite(f.minTools) ? f.minTools : 0;
    const out = rows.value.filter(
      (r) =>
        (!f.termination || r.s.termination === f.termination) &&
        (!f.solved || (f.solved === 'solved') === isSolved(r.s)) &&
        (!f.policy || r.s.policy === f.policy) &&
        r.s.tool_calls >= minTools &&
        (!text || r.hay.includes(text)),
    );
    if (sort.key !== 'index' || sort.desc) {
      const key = SORTERS[sort.key];
      const sign = sort.desc ? -1 : 1;
      out.sort((a, b) => sign * (key(a.s) - key(b.s)) || a.s.index - b.s.index);
    }
    return out;
  });
  const openSummary = computed(() => (openId.value ? (current.value?.trajectories.find((t) => t.id === openId.value) ?? null) : null));
  /** Trajectories per question in the open set (for "has other attempts"). */
  const perQuestion = computed(() => {
    const m = new Map<string, TrajSummary[]>();
    for (const s of current.value?.trajectories ?? []) (m.get(s.qa_id) ?? m.set(s.qa_id, []).get(s.qa_id)!).push(s);
    return m;
  });

  function setSort(key: SortKey): void {
    if (sort.key === key) {
      if (key === 'index' && sort.desc) sort.desc = false;
      else if (sort.desc || key === 'index') Object.assign(sort, { key: 'index', desc: false });
      else sort.desc = true;
    } else Object.assign(sort, { key, desc: key !== 'index' });
  }

  function clearFilters(): void {
    Object.assign(filters, { termination: '', solved: '', policy: '', minTools: '', text: '' });
  }

  // ---------- loading ----------
  async function loadInputs(): Promise<void> {
    try {
      const [g, d, c] = await Promise.all([lab().call('graphs.list'), lab().call('datasets.list'), lab().call('comparisons.list'), runs.load(), endpoints.load()]);
      graphs.value = g;
      datasets.value = d;
      comparisons.value = c;
    } catch (err) {
      rolloutError.value = message(err);
    }
  }

  async function openTraj(trajId: string): Promise<void> {
    const setId = currentId.value;
    if (!setId) return;
    openId.value = trajId;
    detailError.value = null;
    if (detail.value?.setId !== setId || detail.value.trajectory.id !== trajId) detail.value = null;
    try {
      const d = await fetchTrajDetail(setId, trajId);
      if (openId.value === trajId) detail.value = d;
    } catch (err) {
      if (openId.value === trajId) detailError.value = message(err);
    }
  }

  function closeTraj(): void {
    openId.value = null;
    detail.value = null;
    detailError.value = null;
  }

  // ---------- side by side ----------
  const compareQaId = computed(() => leftDetail.value?.trajectory.qa_id ?? null);
  const candidates = computed<CompareCandidate[]>(() => {
    const qaId = compareQaId.value;
    const set = current.value;
    if (!qaId || !set) return [];
    const sets = [set, ...otherSets.value.filter((o) => o.artefact.id !== set.artefact.id)];
    return sets.flatMap((v) =>
      v.trajectories.filter((s) => s.qa_id === qaId).map((s) => ({ setId: v.artefact.id, trajId: s.id, setName: v.artefact.name, summary: s })),
    );
  });

  async function loadOtherSets(): Promise<void> {
    const set = current.value;
    const datasetId = set?.artefact.info.datasetId;
    if (!set || typeof datasetId !== 'string') {
      otherSets.value = [];
      return;
    }
    const same = list.value.filter((a) => a.id !== set.artefact.id && a.info.datasetId === datasetId).slice(0, 6);
    const loaded = await Promise.all(same.map((a) => lab().call('trajectories.get', { id: a.id }).catch(() => null)));
    otherSets.value = loaded.filter((v): v is TrajSetView => v !== null);
  }

  /** Opens the side-by-side view on a trajectory and, opposite, the next attempt at the same question. */
  async function startCompare(trajId: string): Promise<void> {
    const setId = currentId.value;
    if (!setId) return;
    mode.value = 'compare';
    rightDetail.value = null;
    right.value = null;
    await setSide('left', { setId, trajId });
    await loadOtherSets();
    const others = candidates.value.filter((c) => !(c.setId === setId && c.trajId === trajId));
    const sameSet = others.filter((c) => c.setId === setId);
    // Opposite: the next attempt in this set (the one after it, wrapping), else the same question elsewhere.
    const me = candidates.value.findIndex((c) => c.setId === setId && c.trajId === trajId);
    const pick = sameSet.find((_c, i) => i >= me) ?? sameSet[0] ?? others[0];
    if (pick) await setSide('right', { setId: pick.setId, trajId: pick.trajId });
  }

  // ---------- rollouts ----------
  const rollout = useJobLauncher('rollout', async (job, mine) => {
    await load();
    if (mine) {
      currentId.value = null; // open the new set even if another is open
      await open(job.id);
    }
  });
  const rolloutJob = rollout.job;
  const rolling = rollout.running;
  const rolloutError = rollout.error;
  const rolloutIssues = rollout.issues;

  async function startRollout(form: JobParamsInput<'rollout'>): Promise<void> {
    await rollout.start({ ...form });
  }

  // A new graph or dataset is something new to roll out on; a comparison adds sets.
  let trainTimer: ReturnType<typeof setTimeout> | null = null;
  onLab('job.updated', (job) => {
    if (job.status === 'succeeded' && (job.kind === 'kg.build' || job.kind === 'synth' || job.kind === 'compare')) void loadInputs();
    if (job.kind === 'compare' && job.status === 'succeeded') void load();
    // A training run writes evaluations and RL steps as it goes: list them again at most every 5 s, and when it stops.
    if (job.kind === 'train' && !trainTimer) {
      trainTimer = setTimeout(
        () => {
          trainTimer = null;
          void load();
          void loadInputs();
        },
        job.status === 'running' ? 5000 : 0,
      );
    }
  });

  return {
    ...artefacts,
    filters,
    sort,
    rows,
    facets,
    filtered,
    perQuestion,
    openId,
    openSummary,
    detail,
    detailError,
    showModelText,
    mode,
    left,
    right,
    leftDetail,
    rightDetail,
    compareError,
    candidates,
    graphs,
    datasets,
    groups,
    currentTitle,
    datasetText,
    describePolicy,
    rolloutJob,
    rolloutError,
    rolloutIssues,
    rolling,
    setSort,
    clearFilters,
    loadInputs,
    openTraj,
    closeTraj,
    setSide,
    startCompare,
    startRollout,
  };
});
