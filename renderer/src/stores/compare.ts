// Checkpoint comparisons: the past comparisons, the open one (which two checkpoints are A and B, the
// outcome filter, the open question with its two trajectories aligned step by step), and the form that
// starts a `compare` job (the checkpoints of every run to choose from, the datasets, the job's progress).
// Comparisons are small (questions × checkpoints); trajectories are fetched one at a time, a few kept.
import { defineStore } from 'pinia';
import { computed, reactive, ref, shallowReactive, shallowRef, watch } from 'vue';
import { endpointIdOf, isCorrect, protocolDifferences, runEvalProtocol, trajSummary, type ArtefactRecord, type ComparisonInfo, type DatasetInfo, type EvalProtocol, type JobParamsInput, type JobRecord, type RunDetail, type TrajSetView } from '@contract';
import { lab, onLab } from '../api/client';
import { peekTrajDetail } from './trajDetails';
import { useSideBySide } from '../composables/useSideBySide';
import { useArtefacts } from './opened';
import { message } from '../util/errors';
import { useJobLauncher, useJobs } from './jobs';
import type { CompareCandidate, TrajRef } from './trajectories';
import { letter, questionRows, tallyOutcomes, validateForm, type CheckpointHead, type CompareForm, type Outcome } from '../components/compare/compareModel';
import { defaultQuestionCount, defaultQuestionSet, heldOutIds } from '../components/compare/questionSet';
import { datasetLabels, runUses } from '../util/labels';
import { useEndpoints } from './endpoints';

/** Runs whose checkpoints the picker reads (newest first); older runs are rarely compared. */
const MAX_RUNS = 40;
/** A headroom comparison: this many questions × samples (pass@k up to k = 16). */
export const HEADROOM_QUESTIONS = 50;
export const HEADROOM_SAMPLES = 16;

export const useCompare = defineStore('compare', () => {
  const endpoints = useEndpoints();
  // ---------- past comparisons and the open one ----------
  const artefacts = useArtefacts('comparisons.list', (id) => lab().call('comparisons.get', { id }), {
    // Opening another item starts it clean.
    reset: () => {
      closeQuestion();
      outcomeFilter.value = '';
      textFilter.value = '';
      sets.clear();
    },
    loaded: (view) => Object.assign(pair, { a: 0, b: Math.min(1, view.checkpoints.length - 1) }),
  });
  const { load, currentId, current, open } = artefacts;
  /** Which two checkpoints the outcome table compares (indexes into current.checkpoints). */
  const pair = reactive<{ a: number; b: number }>({ a: 0, b: 1 });
  const outcomeFilter = ref<Outcome | ''>('');
  const textFilter = ref('');

  const rows = computed(() => (current.value ? questionRows(current.value, pair.a, pair.b) : []));
  const tally = computed(() => tallyOutcomes(rows.value));
  const filteredRows = computed(() => {
    const t = textFilter.value.trim().toLowerCase();
    return rows.value.filter((r) => (!outcomeFilter.value || r.outcome === outcomeFilter.value) && (!t || `${r.qaId}\n${r.text}`.toLowerCase().includes(t)));
  });

  function setPair(side: 'a' | 'b', index: number): void {
    const other = side === 'a' ? pair.b : pair.a;
    // Picking the other side's checkpoint swaps the two.
    if (index === other) Object.assign(pair, side === 'a' ? { a: index, b: pair.a } : { a: pair.b, b: index });
    else pair[side] = index;
    outcomeFilter.value = '';
    closeQuestion();
  }

  // ---------- one question, two trajectories aligned ----------
  const openQaId = ref<string | null>(null);
  const { left, right, leftDetail, rightDetail, error: questionError, setSide, clearSides } = useSideBySide({ clearOnPick: true });
  /** The checkpoints' trajectory sets (their rows: what the side-by-side picker offers). */
  const sets = shallowReactive(new Map<string, TrajSetView | null>());

  async function loadSet(setId: string): Promise<void> {
    if (sets.has(setId)) return;
    sets.set(setId, null);
    try {
      sets.set(setId, await lab().call('trajectories.get', { id: setId }));
    } catch {
      // A set deleted since: its trajectories cannot be opened either; the side says so.
      sets.delete(setId);
    }
  }

  /** Every trajectory of the open question in every checkpoint's set, labelled with the checkpoint. */
  const candidates = computed<CompareCandidate[]>(() => {
    const view = current.value;
    const qaId = openQaId.value;
    if (!view || !qaId) return [];
    const q = view.questions.find((x) => x.qa_id === qaId);
    if (!q) return [];
    void [leftDetail.value, rightDetail.value]; // the fallback below reads the (plain) detail cache
    const ds = view.checkpoints.map((c) => describe(c.ref));
    const sameRun = ds.every((d) => d.runId === ds[0]!.runId);
    return view.checkpoints.flatMap((c, i) => {
      const set = sets.get(c.setId);
      const setName = `${letter(i)} · ${ds[i]!.label}${sameRun ? '' : ` · ${ds[i]!.run}`}`;
      return (q.results[i]?.trajIds ?? []).flatMap((trajId): CompareCandidate[] => {
        const s = set?.trajectories.find((t) => t.id === trajId);
        if (s) return [{ setId: c.setId, trajId, setName, summary: s }];
        // Without the set's rows, the trajectories already fetched still make an entry.
        const d = peekTrajDetail(c.setId, trajId);
        return d ? [{ setId: c.setId, trajId, setName, summary: trajSummary(d.trajectory, 0) }] : [];
      });
    });
  });

  /** Opens a question: A's trajectory left, B's right (a correct attempt when the checkpoint solved it). */
  async function openQuestion(qaId: string): Promise<void> {
    const view = current.value;
    const q = view?.questions.find((x) => x.qa_id === qaId);
    if (!view || !q) return;
    openQaId.value = qaId;
    clearSides();
    questionError.value = null;
    const pick = (i: number): TrajRef | null => {
      const c = view.checkpoints[i];
      const r = q.results[i];
      if (!c || !r?.trajIds.length) return null;
      return { setId: c.setId, trajId: r.trajIds[0]! };
    };
    const a = pick(pair.a);
    const b = pick(pair.b);
    if (!a || !b) questionError.value = `No trajectory of ${qaId} for ${!a ? letter(pair.a) : letter(pair.b)}.`;
    void Promise.all([pair.a, pair.b].map((i) => (view.checkpoints[i] ? loadSet(view.checkpoints[i]!.setId) : null))).then(() => {
      // With the rows in, prefer a correct attempt on a side whose checkpoint solved the question.
      if (openQaId.value !== qaId) return;
      for (const [side, i] of [['left', pair.a], ['right', pair.b]] as const) {
        const c = view.checkpoints[i];
        const r = q.results[i];
        const cur = side === 'left' ? left.value : right.value;
        if (!c || !r || r.correct === 0 || !cur) continue;
        const rowsOf = sets.get(c.setId)?.trajectories ?? [];
        const good = r.trajIds.find((id) => rowsOf.some((t) => t.id === id && isCorrect(t.reward)));
        if (good && good !== cur.trajId) void setSide(side, { setId: c.setId, trajId: good });
      }
    });
    await Promise.all([a ? setSide('left', a) : null, b ? setSide('right', b) : null]);
  }

  function closeQuestion(): void {
    openQaId.value = null;
    clearSides();
    questionError.value = null;
  }

  // ---------- the new-comparison form ----------
  const runs = shallowRef<RunDetail[]>([]);
  const runsError = ref<string | null>(null);
  const runsLoaded = ref(false);
  const datasets = shallowRef<ArtefactRecord<DatasetInfo>[]>([]);
  const form = reactive<CompareForm>({ name: '', checkpoints: [], datasetId: '', questions: 300, samples: 1, temperature: 0, rng: 0 });
  /** The user chose the dataset: stop following the first checkpoint's held-out set. */
  const datasetChosen = ref(false);
  const formErrors = computed(() => validateForm(form, datasets.value.map((d) => d.id), startIssues.value ?? []));

  async function loadInputs(): Promise<void> {
    try {
      const [summaries, ds] = await Promise.all([lab().call('runs.list'), lab().call('datasets.list'), endpoints.load()]);
      datasets.value = ds;
      const details = await Promise.all(summaries.slice(0, MAX_RUNS).map((r) => lab().call('runs.get', { id: r.artefact.id }).catch(() => null)));
      runs.value = details.filter((d): d is RunDetail => d !== null);
      runsError.value = null;
    } catch (err) {
      runsError.value = message(err);
    } finally {
      runsLoaded.value = true;
    }
  }

  /** The held-out questions of a run (its config's data.heldOutDatasetId). */
  function heldOutOf(runId: string | undefined): string | null {
    const data = (runs.value.find((r) => r.artefact.id === runId)?.config as { data?: { heldOutDatasetId?: unknown } } | undefined)?.data;
    return typeof data?.heldOutDatasetId === 'string' ? data.heldOutDatasetId : null;
  }
  const runOfRef = (ck: string): string | undefined => /^(.*)\/(\d+|last)$/.exec(ck)?.[1];

  /** A checkpoint reference in words: its run's name and the step. */
  function describe(ck: string): CheckpointHead {
    const ep = endpoints.bySpec(ck);
    if (ep || endpointIdOf(ck) !== null) {
      // An endpoint: named by itself (its "run" says only that it is an endpoint), or as the imported run's step it serves.
      const runId = ep?.serves?.runId ?? ck;
      const run = ep?.serves ? (runs.value.find((r) => r.artefact.id === runId)?.artefact.name ?? runId) : 'endpoint';
      return { ref: ck, runId, run, step: String(ep?.serves?.step ?? ''), label: ep?.serves ? `step ${ep.serves.step} (${ep.name})` : (ep?.name ?? ck) };
    }
    const m = /^(.*)\/(\d+|last)$/.exec(ck);
    const runId = m?.[1] ?? ck;
    const step = m?.[2] ?? '?';
    return { ref: ck, runId, run: runs.value.find((r) => r.artefact.id === runId)?.artefact.name ?? runId, step, label: step === 'last' ? 'last checkpoint' : `step ${step}` };
  }

  /** A comparison's name for people: the default name (checkpoint references) rewritten as run · steps. */
  function displayName(a: ArtefactRecord<ComparisonInfo>): string {
    const refs = a.info.params?.checkpoints ?? [];
    const auto = refs.join(' vs ');
    if (!refs.length || !a.name.startsWith(auto)) return a.name;
    const ds = refs.map(describe);
    const sameRun = ds.every((d) => d.runId === ds[0]!.runId);
    // A plain endpoint (its own run) is named by its name alone: "tiny A vs tiny B".
    const body = sameRun ? `${ds[0]!.run}: ${ds.map((d) => d.label).join(' vs ')}` : ds.map((d) => (d.runId === d.ref ? d.label : `${d.run} ${d.label}`)).join(' vs ');
    return body + a.name.slice(auto.length);
  }

  /** Datasets whose recorded role is held-out (the form's list marks them). */
  const heldOutSetIds = computed(() => heldOutIds(datasets.value, runUses(runs.value)));
  /** The natural dataset: the first picked checkpoint's run's held-out set, else the newest run's, else the newest held-out set. */
  const defaultDatasetId = computed(() =>
    defaultQuestionSet(heldOutOf(form.checkpoints[0] ? runOfRef(form.checkpoints[0]) : runs.value[0]?.artefact.id), datasets.value, runUses(runs.value)),
  );
  watch(
    defaultDatasetId,
    (id) => {
      if (!datasetChosen.value || !form.datasetId) form.datasetId = id;
    },
    { immediate: true },
  );

  // ---------- the protocol: the dashboard's evaluation unless the user asks otherwise ----------
  const PROTOCOL_FIELDS = ['questions', 'samples', 'temperature', 'rng'] as const;
  type ProtocolField = (typeof PROTOCOL_FIELDS)[number];
  /** Protocol fields the user changed: they stop following the run's evaluation. */
  const edited = reactive(new Set<ProtocolField>());
  const configOf = (runId: string | undefined): unknown => runs.value.find((r) => r.artefact.id === runId)?.config;
  /** The in-run evaluation of the first picked checkpoint's run (else the newest run's): what the dashboard shows. */
  const runProtocol = computed<EvalProtocol | null>(() => runEvalProtocol(configOf(form.checkpoints[0] ? runOfRef(form.checkpoints[0]) : runs.value[0]?.artefact.id)));
  watch(
    runProtocol,
    (p) => {
      if (p) for (const f of PROTOCOL_FIELDS) if (!edited.has(f)) form[f] = p[f];
    },
    { immediate: true },
  );
  // Without a run's protocol to follow, the form asks the whole chosen set (the count its summary shows).
  watch(
    () => [form.datasetId, runProtocol.value, datasets.value] as const,
    ([id, p]) => {
      const n = defaultQuestionCount(datasets.value, id);
      if (!p && !edited.has('questions') && n) form.questions = n;
    },
    { immediate: true },
  );
  function editProtocol(field: ProtocolField): void {
    edited.add(field);
  }
  /** Back to the dashboard's protocol: the run's held-out set, question count, samples, temperature and seed. */
  function useRunProtocol(): void {
    edited.clear();
    datasetChosen.value = false;
    form.datasetId = defaultDatasetId.value;
    const p = runProtocol.value;
    if (p) for (const f of PROTOCOL_FIELDS) form[f] = p[f];
  }
  /** Each dataset in words, two alike told apart ("300 one-hop lookups · RL · rng 3"; util/labels.ts). */
  const datasetNames = computed(() => datasetLabels(datasets.value, runUses(runs.value), null));
  const datasetLabel = (id: string): string => datasetNames.value.get(id) ?? id;
  const datasetSize = (id: string): number | undefined => defaultQuestionCount(datasets.value, id) ?? undefined;
  /** How the form's protocol differs from the dashboard's evaluation, in words (none: the same protocol). */
  const formDifferences = computed(() => {
    const p = runProtocol.value;
    if (!p) return [];
    const used = { datasetId: form.datasetId, questions: Number(form.questions), samples: Number(form.samples), temperature: Number(form.temperature), rng: Number(form.rng) };
    return protocolDifferences(p, used, { dataset: datasetLabel, available: datasetSize(form.datasetId) });
  });
  /** How the open comparison's protocol differs from its first checkpoint's run's evaluation (null: not known). */
  const currentDifferences = computed<string[] | null>(() => {
    const view = current.value;
    const params = view?.artefact.info.params;
    const p = view ? runEvalProtocol(configOf(runOfRef(view.checkpoints[0]?.ref ?? ''))) : null;
    if (!params || !p) return null;
    // Made before comparisons followed the run's protocol: other seeds, and no temperature recorded.
    if (params.temperature === undefined) return ['an older comparison: its seeds are not the ones the dashboard evaluates with'];
    const used: EvalProtocol = {
      datasetId: params.datasetId ?? p.datasetId, questions: params.questions ?? p.questions, samples: params.samples ?? p.samples,
      temperature: params.temperature, rng: params.rng ?? p.rng,
    };
    return protocolDifferences(p, used, { dataset: datasetLabel, available: datasetSize(used.datasetId) });
  });

  function chooseDataset(id: string): void {
    datasetChosen.value = true;
    form.datasetId = id;
  }

  function toggleCheckpoint(ck: string, on: boolean): void {
    const has = form.checkpoints.includes(ck);
    if (on && !has) form.checkpoints = [...form.checkpoints, ck];
    if (!on && has) form.checkpoints = form.checkpoints.filter((r) => r !== ck);
  }
  function moveCheckpoint(ck: string, by: -1 | 1): void {
    const i = form.checkpoints.indexOf(ck);
    const j = i + by;
    if (i < 0 || j < 0 || j >= form.checkpoints.length) return;
    const next = [...form.checkpoints];
    [next[i], next[j]] = [next[j]!, next[i]!];
    form.checkpoints = next;
  }
  /** Prefills the form (another view's "compare these checkpoints"). */
  function prefill(checkpoints: string[], datasetId?: string): void {
    form.checkpoints = [...new Set(checkpoints)].slice(0, 6);
    edited.clear();
    if (datasetId) chooseDataset(datasetId);
    else {
      datasetChosen.value = false;
      form.datasetId = defaultDatasetId.value;
    }
  }

  // ---------- the job ----------
  // A finished comparison (this window's or another's) lists it; this window's opens.
  const launcher = useJobLauncher('compare', async (j, mine) => {
    await load();
    if (!mine) return;
    const id = (j.result as { artefact?: { id?: unknown } } | undefined)?.artefact?.id;
    currentId.value = null; // open the new comparison even if another is open
    await open(typeof id === 'string' ? id : j.id);
  });
  const job = launcher.job;
  const running = launcher.running;
  const startError = launcher.error;
  const startIssues = launcher.issues;
  // A refusal is about the values sent: once the form changes, it no longer applies.
  watch(
    () => JSON.stringify(form),
    () => (startIssues.value = null),
  );

  async function start(): Promise<boolean> {
    if (Object.keys(formErrors.value).length || running.value) return false;
    // validateForm has made the numeric fields whole numbers (none is '').
    const params: JobParamsInput<'compare'> = {
      checkpoints: [...form.checkpoints],
      datasetId: form.datasetId,
      questions: Number(form.questions),
      samples: Number(form.samples),
      temperature: Number(form.temperature),
      rng: Number(form.rng),
      ...(form.name.trim() ? { name: form.name.trim() } : {}),
    };
    return (await launcher.start(params)) !== null;
  }

  /**
   * The headroom of the open comparison's checkpoints: the same checkpoints and questions (the first
   * HEADROOM_QUESTIONS), HEADROOM_SAMPLES samples each at temperature 1, as a new comparison whose pass@k
   * curves Compare draws (CompareHeadroom.vue).
   */
  async function startHeadroom(): Promise<boolean> {
    const view = current.value;
    const d = view?.artefact.info.datasetId;
    if (!view || typeof d !== 'string' || running.value) return false;
    const params: JobParamsInput<'compare'> = {
      checkpoints: view.checkpoints.map((c) => c.ref),
      datasetId: d,
      questions: Math.min(HEADROOM_QUESTIONS, view.questions.length),
      samples: HEADROOM_SAMPLES,
      temperature: 1,
      rng: view.artefact.info.params?.rng ?? 0,
      // No name: a checkpoint ref's '/' is no name character; the job names it "A vs B on N questions".
    };
    return (await launcher.start(params)) !== null;
  }

  // ---------- stopping and resuming ----------
  const jobs = useJobs();
  /** The last comparison started, when it was stopped (by the user, or the app closing): it can be resumed. */
  const stopped = computed<JobRecord | null>(() => {
    const last = jobs.list.find((j) => j.kind === 'compare');
    return last && (last.status === 'cancelled' || last.status === 'interrupted') ? last : null;
  });
  async function stop(): Promise<void> {
    if (job.value && running.value) await jobs.cancel(job.value.id);
  }
  /** A new compare job of the same params that keeps the stopped one's episodes and plays the rest. */
  async function resume(): Promise<boolean> {
    const j = stopped.value;
    if (!j || running.value) return false;
    return (await launcher.start({ ...(j.params as JobParamsInput<'compare'>), resumeOf: j.id })) !== null;
  }

  let runsTimer: ReturnType<typeof setTimeout> | null = null;
  function refreshInputs(delayMs: number): void {
    if (runsTimer) clearTimeout(runsTimer);
    runsTimer = setTimeout(() => {
      runsTimer = null;
      void loadInputs();
    }, delayMs);
  }
  onLab('job.updated', (j) => {
    // A training run writes checkpoints as it goes (look again every 10 s while it runs, at once when it
    // stops); a new dataset is a new set of questions.
    if ((j.kind === 'train' || j.kind === 'synth') && runsLoaded.value) {
      if (j.status !== 'running' && j.status !== 'queued') refreshInputs(0);
      else if (j.kind === 'train' && !runsTimer) refreshInputs(10_000);
    }
  });

  return {
    ...artefacts,
    pair,
    outcomeFilter,
    textFilter,
    rows,
    tally,
    filteredRows,
    openQaId,
    left,
    right,
    leftDetail,
    rightDetail,
    questionError,
    candidates,
    runs,
    runsError,
    runsLoaded,
    datasets,
    datasetNames,
    form,
    formErrors,
    defaultDatasetId,
    job,
    startError,
    startIssues,
    running,
    startHeadroom,
    stopped,
    stop,
    resume,
    setPair,
    openQuestion,
    closeQuestion,
    setSide,
    loadInputs,
    heldOutOf,
    heldOutSetIds,
    describe,
    displayName,
    chooseDataset,
    toggleCheckpoint,
    moveCheckpoint,
    prefill,
    start,
    runProtocol,
    formDifferences,
    currentDifferences,
    editProtocol,
    useRunProtocol,
  };
});
