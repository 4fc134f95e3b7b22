// The wizard's data step behind its form: the graphs and datasets (from their stores), sensible picks when
// those lists change, and the graph build and question syntheses started right in the wizard (the quick
// preset's forms), each followed by its own job launcher until its artefact is picked.
import { computed, reactive, watch } from 'vue';
import { QUICK_PRESET, questionShapeDifferences, type ArtefactRecord, type PresetQuestions, type ShapeDifference, type WizardPreset, type DatasetInfo, type GraphInfo, type JobParamsInput, type JobRecord } from '@contract';
import { useFieldChecks } from '../../../composables/useFieldChecks';
import { useDatasets } from '../../../stores/datasets';
import { useGraph } from '../../../stores/graph';
import { useJobLauncher } from '../../../stores/jobs';
import { QUESTION_STYLES, datasetSize, type DataChoice, type QuestionStyle } from '../runConfig';
import { datasetLabels as describeDatasets, datasetMadeAs } from '../../../util/labels';

export type QuestionKind = 'train' | 'heldOut' | 'rl';
export type MakeKind = 'graph' | QuestionKind;
export const MAKE_KINDS: readonly MakeKind[] = ['graph', 'train', 'heldOut', 'rl'];
type Field = 'datasetId' | 'heldOutDatasetId' | 'rlDatasetId';

export interface QuestionRow {
  kind: QuestionKind;
  field: Field;
  label: string;
  select: string;
  slug: string;
  optional?: boolean;
  none?: string;
  hint?: string;
}

/** The three question sets of the data step; later sets keep off the edges of the earlier ones. */
export const QUESTION_ROWS: QuestionRow[] = [
  {
    kind: 'train',
    field: 'datasetId',
    label: 'demonstrated questions',
    select: 'wiz-dataset',
    slug: 'train',
    hint: 'the demonstration budget: the expert solves each one, and SFT imitates its episodes',
  },
  { kind: 'heldOut', field: 'heldOutDatasetId', label: 'held-out questions', select: 'wiz-heldout', slug: 'heldout' },
  {
    kind: 'rl',
    field: 'rlDatasetId',
    label: 'answer-only questions (RL)',
    select: 'wiz-rl-dataset',
    slug: 'rl',
    optional: true,
    none: 'the demonstrated questions',
    hint: 'the RL stage’s pool: questions with answers and no demonstration, cheap to make; RL learns where the policy succeeds sometimes',
  },
];

type Num = number | '';
export interface QuestionForm {
  count: Num;
  rng: Num;
  /** Smallest subgraph in edges; absent (older remembered forms): 1. */
  minEdges?: Num;
  maxEdges: Num;
  style: QuestionStyle;
}
export interface MakeForms {
  graph: { rng: Num; maxEdges: Num };
  train: QuestionForm;
  heldOut: QuestionForm;
  rl: QuestionForm;
}

// The quick preset (contract QUICK_PRESET): a 12000-edge graph (the one the base model's episodes were kept
// off), one-hop named-entity lookups (search, visit, answer) to imitate, held-out ones off the training edges,
// and fresh ones for RL.
export function quickPreset(): MakeForms {
  const q = QUICK_PRESET.data;
  return { graph: { ...q.graph }, train: { ...q.train }, heldOut: { ...q.heldOut }, rl: { ...q.rl } };
}

/** A preset's data (contract WIZARD_PRESETS) as the data step's forms. */
export function presetForms(p: WizardPreset): MakeForms {
  const q = p.data;
  return { graph: { ...q.graph }, train: { ...q.train }, heldOut: { ...q.heldOut }, rl: { ...q.rl } };
}

/** The datasets a new set of `kind` keeps off: the training set, and for RL questions the held-out set too. */
export function excludedFor(kind: 'heldOut' | 'rl', d: DataChoice): string[] {
  return [d.datasetId, ...(kind === 'rl' ? [d.heldOutDatasetId] : [])].filter((id): id is string => !!id);
}

/** A form's value, or undefined for an empty input (the job's own default then applies). */
const given = <T>(v: T | ''): T | undefined => (v === '' ? undefined : v);
/** Leaves out the params that are undefined, so the job's defaults fill them. */
const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** The params of the job that makes `kind` (kg.build for the graph, synth for a question set). */
export function makeParams(kind: 'graph', make: MakeForms, d: DataChoice): JobParamsInput<'kg.build'>;
export function makeParams(kind: QuestionKind, make: MakeForms, d: DataChoice): JobParamsInput<'synth'>;
export function makeParams(kind: MakeKind, make: MakeForms, d: DataChoice): JobParamsInput<'kg.build'> | JobParamsInput<'synth'>;
export function makeParams(kind: MakeKind, make: MakeForms, d: DataChoice): JobParamsInput<'kg.build'> | JobParamsInput<'synth'> {
  if (kind === 'graph') return defined({ rng: given(make.graph.rng), maxEdges: given(make.graph.maxEdges) });
  const f = make[kind];
  const maxEdges = given(f.maxEdges);
  return defined({
    graphId: d.graphId,
    count: given(f.count),
    rng: given(f.rng),
    ...(maxEdges === undefined ? {} : { minEdges: given(f.minEdges ?? '') ?? 1, maxEdges }),
    ...QUESTION_STYLES[f.style].params,
    // Held-out facts stay out of training: no held-out question is built on an edge a training question
    // used; RL questions keep off both.
    ...(kind !== 'train' ? { excludeDatasetIds: excludedFor(kind, d) } : {}),
    // RL questions are what is left of the graph's facts: as many as there are, up to the count.
    ...(kind === 'rl' ? { allowFewer: true } : {}),
  });
}

/** The datasets of the picked graph (all of them while none is picked; those without a graph always). */
export function datasetsOfGraph(datasets: readonly ArtefactRecord[], graphId: string): ArtefactRecord[] {
  return datasets.filter((d) => !graphId || d.info.graphId === undefined || d.info.graphId === graphId);
}

/** A question set's role as its synthesis recorded it (util/labels.ts, the one rule the labels use too). */
export const datasetRole = datasetMadeAs;
const excludes = (d: ArtefactRecord, id: string): boolean => {
  const p = (d.info as DatasetInfo).params;
  return !!p && (p.excludeDatasetId === id || (p.excludeDatasetIds ?? []).includes(id));
};

/**
 * How a dataset's recorded synthesis differs in shape from a form ([] when it fits, or when it records none).
 * An RL set's count is "up to" (it takes what is left of the graph), so for it the count is free.
 */
export function formDifferences(d: ArtefactRecord, f: QuestionForm, kind?: QuestionKind): ShapeDifference[] {
  const p = (d.info as DatasetInfo).params;
  if (!p) return [];
  const num = (v: Num | undefined, fallback: number): number => (v === '' || v === undefined ? fallback : v);
  const q: PresetQuestions = { count: num(f.count, NaN), rng: 0, minEdges: num(f.minEdges, 1), maxEdges: num(f.maxEdges, NaN), style: f.style };
  return questionShapeDifferences(p, q).filter((k) => !(kind === 'rl' && k === 'count'));
}
const fits = (d: ArtefactRecord, f: QuestionForm | undefined, kind?: QuestionKind): boolean => !f || formDifferences(d, f, kind).length === 0;

/**
 * Sensible picks when the lists change, by each set's role and, given the forms, of their shape (a preset's
 * counts, edges and style: another preset's sets are never picked for it): the newest graph; its largest
 * training set; held out, a held-out set made off that training set (else any held-out set, else the smallest
 * other set that is not an RL set: an RL set is the smallest, and evaluating on it would test on what RL trains
 * on); for RL, an RL set made off both. Picks still in the lists stay.
 */
export function autoPick(d: DataChoice, graphs: readonly ArtefactRecord[], datasets: readonly ArtefactRecord[], forms?: MakeForms): void {
  if (!graphs.some((g) => g.id === d.graphId)) d.graphId = graphs[0]?.id ?? '';
  const mine = datasetsOfGraph(datasets, d.graphId);
  const has = (id: string): boolean => mine.some((x) => x.id === id);
  const bySize = [...mine].sort((a, b) => (datasetSize(b) ?? 0) - (datasetSize(a) ?? 0));
  const role = (x: ArtefactRecord) => datasetRole(x);
  if (!has(d.datasetId)) {
    const train = bySize.filter((x) => fits(x, forms?.train));
    d.datasetId = (train.find((x) => role(x) === 'train' || role(x) === null) ?? (forms ? undefined : train[0]))?.id ?? '';
  }
  if (!has(d.heldOutDatasetId)) {
    const others = bySize.filter((x) => x.id !== d.datasetId && fits(x, forms?.heldOut));
    const offTraining = others.find((x) => role(x) === 'heldOut' && excludes(x, d.datasetId));
    // For a preset, only a set kept off its own training set's edges; else the best there is.
    const pick = forms ? offTraining : (offTraining ?? others.find((x) => role(x) === 'heldOut') ?? [...others].reverse().find((x) => role(x) !== 'rl'));
    d.heldOutDatasetId = pick?.id ?? '';
  }
  if (d.rlDatasetId && !has(d.rlDatasetId)) d.rlDatasetId = '';
  if (!d.rlDatasetId && forms && d.datasetId && d.heldOutDatasetId) {
    const rl = mine.find((x) => role(x) === 'rl' && excludes(x, d.datasetId) && excludes(x, d.heldOutDatasetId) && fits(x, forms.rl, 'rl'));
    d.rlDatasetId = rl?.id ?? '';
  }
}

/**
 * Drops the picks whose sets are not of the forms' shape (a preset just chosen), and with a set the later sets
 * made off it (held out, RL: they keep off its edges, not the new one's). autoPick then fills them.
 */
export function dropUnfitPicks(d: DataChoice, datasets: readonly ArtefactRecord[], forms: MakeForms): void {
  let dropped = false;
  for (const row of QUESTION_ROWS) {
    const set = datasets.find((x) => x.id === d[row.field]);
    if (dropped || (set && !fits(set, forms[row.kind], row.kind))) {
      dropped ||= !!d[row.field];
      d[row.field] = '';
    }
  }
}

/** The picked sets that are not of the forms' shape, in words ("demonstrated questions: count, edges"). */
export function unfitPicks(d: DataChoice, datasets: readonly ArtefactRecord[], forms: MakeForms): string[] {
  const words: Record<ShapeDifference, string> = { count: 'count', edges: 'edges per question', style: 'question style' };
  return QUESTION_ROWS.flatMap((row) => {
    const set = datasets.find((x) => x.id === d[row.field]);
    const diff = set ? formDifferences(set, forms[row.kind], row.kind) : [];
    return diff.length ? [`${row.label}: ${diff.map((k) => words[k]).join(', ')}`] : [];
  });
}

export function graphLabel(g: ArtefactRecord<GraphInfo>): string {
  const s = g.info.stats;
  return s?.nodes !== undefined ? `${g.name} · ${s.nodes} nodes` : g.name;
}

/**
 * "300 one-hop lookups · held-out": size, question style and role (util/labels.ts), by id; the graph is picked
 * above. Two that would read alike say what differs ("· rng 3").
 */
export function datasetLabels(list: readonly ArtefactRecord<DatasetInfo>[]): Map<string, string> {
  return describeDatasets(list, [], null);
}

/** The data step's lists, picks and jobs over the wizard's `data` choice. Call in the wizard's setup. */
export function useWizardData(data: DataChoice, remembered: MakeForms | null = null) {
  const graphStore = useGraph();
  const datasetStore = useDatasets();
  const graphs = computed(() => graphStore.list);
  const datasets = computed(() => datasetStore.list);
  const graphDatasets = computed(() => datasetsOfGraph(datasets.value, data.graphId));
  const listError = computed(() => graphStore.listError ?? datasetStore.listError);

  async function loadLists(): Promise<void> {
    await Promise.all([graphStore.load(), datasetStore.load()]);
  }

  const make = reactive(remembered ? structuredClone(remembered) : quickPreset());

  // Only once both lists are in: picks checked against a graph list without its datasets yet would all be
  // dropped (and the RL set lost), e.g. Train further's choices on a fresh page.
  const listsIn = (): boolean => graphStore.listLoaded && datasetStore.listLoaded;
  // Immediate: a wizard reopened on lists loaded already fills what is still empty (an RL set made while it was
  // closed is picked, not left at "the demonstrated questions"; issue 45, part 2, point 7). Picks stay.
  watch(
    [graphs, datasets, () => data.graphId],
    () => {
      if (listsIn()) autoPick(data, graphs.value, datasets.value, make);
    },
    { immediate: true },
  );
  /** A preset just chosen (its forms in `make`): the picks of another shape go, and sets of its own are picked. */
  function repick(): void {
    dropUnfitPicks(data, datasets.value, make);
    if (listsIn()) autoPick(data, graphs.value, datasets.value, make);
  }

  // When one of the wizard's jobs finishes, its artefact joins the lists and is picked (once per job).
  const finished = new Set<string>();
  async function made(kind: MakeKind, job: JobRecord): Promise<void> {
    if (finished.has(job.id)) return;
    finished.add(job.id);
    const id = (job.result as { artefact?: { id?: string } } | undefined)?.artefact?.id;
    // A question set is picked at once, before the lists reload: a held-out or RL set started right after
    // must already keep off its edges.
    if (id && kind !== 'graph') data[QUESTION_ROWS.find((r) => r.kind === kind)!.field] = id;
    await loadLists();
    if (!id || kind !== 'graph') return;
    Object.assign(data, { graphId: id, datasetId: '', heldOutDatasetId: '', rlDatasetId: '' });
    autoPick(data, graphs.value, datasets.value, make);
  }
  const launcherOf = (kind: QuestionKind) =>
    useJobLauncher('synth', (job, mine) => {
      if (mine) return made(kind, job);
    });
  const graphLauncher = useJobLauncher('kg.build', (job, mine) => {
    if (mine) return made('graph', job);
  });
  const launchers = { graph: graphLauncher, train: launcherOf('train'), heldOut: launcherOf('heldOut'), rl: launcherOf('rl') };

  // Each make form is checked as its job's params, like every other form (useFieldChecks).
  const MAKE_LABELS = {
    graph: { rng: 'graph rng', maxEdges: 'graph max edges' },
    question: { graphId: 'graph', count: 'QAs', rng: 'rng', maxEdges: 'edges per question', minEdges: 'edges per question' },
  };
  const checksOf = (kind: MakeKind) =>
    kind === 'graph'
      ? useFieldChecks({ kind: 'kg.build', params: () => makeParams('graph', make, data), labels: MAKE_LABELS.graph, refused: launchers.graph.issues })
      : useFieldChecks({ kind: 'synth', params: () => makeParams(kind, make, data), labels: MAKE_LABELS.question, refused: launchers[kind].issues });
  const checks = { graph: checksOf('graph'), train: checksOf('train'), heldOut: checksOf('heldOut'), rl: checksOf('rl') };
  /** A make form's field message ("graph max edges: must be at least 10"), once edited or tried. */
  const makeFieldError = (kind: MakeKind, path: string): string | null => checks[kind].errorOf(path);
  const makeTouch = (kind: MakeKind, path: string): void => checks[kind].touch(path);

  const makeJob = (kind: MakeKind): JobRecord | null => launchers[kind].job.value;
  const makeError = (kind: MakeKind): string | null => launchers[kind].error.value;
  // Busy from the click on (the start call included), so a second click cannot start a second job.
  const isBusy = (kind: MakeKind): boolean => launchers[kind].running.value;

  async function startMake(kind: MakeKind): Promise<void> {
    if (!checks[kind].check()) return;
    if (kind === 'graph') await launchers.graph.start(makeParams(kind, make, data));
    else await launchers[kind].start(makeParams(kind, make, data));
  }

  return { graphs, datasets, graphDatasets, listError, loadLists, make, repick, makeJob, makeError, makeFieldError, makeTouch, isBusy, startMake };
}
