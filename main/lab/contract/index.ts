// The one API contract between the lab core and every client: the Electron renderer (through the
// preload bridge), the web mode (HTTP + WebSocket) and the tests. Each method has a params schema that
// main validates before use, and a result type; each event stream has a payload schema.
// No Node, Electron or DOM imports here: the renderer and the preload bundle this file.
import { z } from 'zod';
import type { Graph, GraphStats, MetricRecord, QA, SynthStats } from '../formats';

// Each kind of job's params: `jobs.start` is typed by them, the job manager validates with them.
export { JOB_PARAMS, ROLLOUT_MAX_SAMPLES, SYNTH_GENERATORS, isJobKind, paramRange, type SynthGenerator, type JobKind, type JobParams, type JobParamsArg, type JobParamsInput, type JobStartParams } from './jobs';
import type { JobKind, JobParams, JobStartParams } from './jobs';
import type { RunConfig } from './run-config';
import type { RlStepView } from './rl-view';
import { wireIssues, type FieldIssue } from './field-issues';
import { artefactId, type RunSetKind } from './ids';
import { endpointMethods } from './endpoints';
export * from './endpoints';
import { runMeasurementsSchema } from './estimate';
import type { TrajDetail, TrajEval, TrajSetView } from './trajectories';

// The training run's config is part of the contract: the wizard validates with the same schema main does.
export { runConfigSchema, checkRunConfig, parseRunConfig, defaultRunName, checkpointInWords, BACKEND_CHOICES, MODEL_PRESETS, PRESET_SHAPES, type ModelPreset, type PresetShape, type RunConfig, type RunConfigInput } from './run-config';

export * from './rl-view';
export * from './stats';
export * from './headroom';
export * from './eval-protocol';
export * from './field-issues';
export * from './quick-preset';
export * from './presets';
export * from './preset-data';
export * from './seed-range';
export * from './estimate';
export * from './run-timeline';
export * from './trajectories';
export * from './level-breakdown';
export * from './question-styles';
export * from './correct';
export * from './failures';
export * from './synth-account';
export * from './metric-summary';
import type { MetricSummary } from './metric-summary';
import type { QuestionLevel } from './level-breakdown';

// ---------- shared records ----------

export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface JobProgress {
  fraction: number; // 0..1
  message: string;
  /** Optional step counters for long work, e.g. { done: 12, total: 40 }. */
  done?: number;
  total?: number;
  /** A training run's time left over every stage (run-timeline.ts), once every stage has a rate. */
  secondsLeft?: number;
  /** A training run's stages: share done, time left (null: no rate yet) and where the rate comes from. */
  stages?: Array<{ label: string; done: number; leftSeconds: number | null; basis: 'measured' | 'estimate' | 'unknown' }>;
}

export interface JobRecord {
  id: string;
  kind: string;
  title: string;
  params: Record<string, unknown>;
  status: JobStatus;
  progress: JobProgress;
  createdAt: string;
  startedAt?: string;
  endedAt?: string;
  error?: string;
  result?: unknown;
  /** Relative path (inside the data directory) of the job's JSON Lines output stream, when it has one. */
  stream?: string;
  /** While queued: its place in line (1 = next) and why it waits ("1 kg.build job at a time"). */
  queue?: { position: number; reason: string };
}

export type BackendName = 'tensorflow-gpu' | 'tensorflow' | 'wasm' | 'cpu';

export interface BackendAttempt {
  name: BackendName;
  module: string;
  ok: boolean;
  detail: string; // why it failed, or what loaded
}

export interface BackendReport {
  chosen: BackendName;
  attempts: BackendAttempt[];
}

export interface AppInfo {
  name: string;
  version: string;
  home: string;
  node: string;
  platform: string;
  electron: { available: boolean; version?: string; detail: string };
  backend: BackendReport | null; // null until detection finished
}

/** An artefact the lab made: a graph file, a dataset, a run, a checkpoint. Paths are relative to the data directory. */
export interface ArtefactRecord<I extends object = Record<string, unknown>> {
  id: string;
  name: string;
  path: string;
  createdAt: string;
  /** What its maker recorded (counts, config, lineage): GraphInfo, DatasetInfo, RunInfo, TrajSetInfo, ComparisonInfo. */
  info: I;
}

// What each collection's artefacts record in `info`. A file brought in with `sailor import`, or a record an older
// build made, may lack a field: the ones a job always writes are optional too, and readers fall back. Type
// aliases, not interfaces, so that each is also a Record<string, unknown> (code that reads any artefact).

/** What the job that made an artefact was asked (its params, defaults in); absent on an imported file. */
type MadeBy<K extends JobKind> = { params?: JobParams<K> };
/** A file brought into the store with `sailor import`: where it came from. */
type Imported = { importedFrom?: string };

/** Where a graph built from one's own knowledge base came from (its `info.kb`, less the route's figures); absent for the bundled KB. */
export type GraphKb = { kind: string; location: string; mapping?: string; source: string; licence?: string; licence_from?: string; url?: string };

/** A graph from a `kg.build` job, or imported: the graph's figures, and its knowledge base when it is one's own. */
export type GraphInfo = MadeBy<'kg.build'> & Imported & { stats?: GraphStats; kb?: GraphKb };

/** A QA dataset from a `synth` job (the graph it was made from, what synthesis did), or imported (its QA `count`). */
export type DatasetInfo = MadeBy<'synth'> & Imported & { graphId?: string; stats?: SynthStats; count?: number };

/** A training run: the config it was created with (parsed, defaults in), and every job that trained it. */
export type RunInfo = {
  /** Absent on a run imported from verl (`verl`): verl's config stays with verl. */
  config?: RunConfig;
  jobIds: string[];
  /** A run imported with `runs.importVerl`: the files it was read from (absolute paths on the lab's machine). */
  verl?: VerlImportSource;
};

/** Where an imported verl run's files are (docs/verl.md, 'Back into the lab'). */
export interface VerlImportSource {
  metrics: string;
  rollouts?: string;
  validation?: string;
  episodes?: string;
}

export { RUN_SET_KINDS, runSetId, parseRunSetId, ID_PATTERN, type RunSetKind, type RunSetRef } from './ids';

/**
 * A trajectory set: a `rollout` job's (params, policy, counts, evaluation), one checkpoint's set of a `compare`
 * job (`comparisonId`), or one of a run's own sets (`runId`, `kind`, and `step` for an evaluation or RL step).
 */
export type TrajSetInfo = MadeBy<'rollout'> & {
  graphId?: string;
  datasetId?: string;
  policy?: string;
  /** Attempts per question. */
  n?: number;
  counts?: Record<string, unknown>;
  eval?: TrajEval;
  /** A run's evaluation, RL step, relabeling round or RFT data. */
  runId?: string;
  /** The evaluation's or RL step's step; a relabeling round's round. */
  step?: number;
  kind?: RunSetKind;
  /** The comparison that rolled this set out (one set per checkpoint). */
  comparisonId?: string;
};

/** A `compare` job's result: its params, one trajectory set per checkpoint, and the first pair's outcomes by question. */
export type ComparisonInfo = MadeBy<'compare'> & {
  datasetId?: string;
  sets?: string[];
  /** Questions `both`, `a_only`, `b_only` and `neither` of the first two checkpoints solved. */
  outcomes?: Record<string, number>;
  /** A resumed comparison: the stopped one's id, the episodes kept from it, the episodes played after. */
  resumed?: { from: string; kept: number; played: number };
};

/**
 * A graph's computed layout, kept with the graph so a visit draws at once instead of laying 6,000 nodes out
 * again (28 s in the third walk): x then y of each node, in the graph file's node order.
 */
export interface GraphLayout {
  nodes: number;
  xy: number[];
}

export interface GraphView {
  artefact: ArtefactRecord<GraphInfo>;
  graph: Graph;
  stats: GraphStats;
  /** Edges that lie on a cycle of the undirected graph (for highlighting). */
  cycleEdges: string[];
}

export interface DatasetView {
  artefact: ArtefactRecord<DatasetInfo>;
  header: Record<string, unknown>;
  qas: QA[];
}

export interface QaDetail {
  qa: QA;
  /** Automorphism orbits of the QA's subgraph, in the order its `orbit` index refers to. */
  orbits: string[][];
}

export type RunStatus = 'created' | 'running' | 'finished' | 'failed' | 'interrupted' | 'cancelled';

/** A run's status is its latest `train` job's, in the run's words (main's run list and the renderer's live updates). */
export const RUN_STATUS_OF_JOB: Readonly<Record<JobStatus, RunStatus>> = {
  queued: 'running',
  running: 'running',
  succeeded: 'finished',
  failed: 'failed',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
};

/**
 * Whether a run may be resumed: one that stopped before finishing, or one whose first start never got a job
 * (`created`: refused or cut off before its trainer began; resuming it with no checkpoint starts at step 0).
 */
export function canResume(status: RunStatus): boolean {
  return status === 'created' || status === 'interrupted' || status === 'failed' || status === 'cancelled';
}

/**
 * Below this share of RFT answer turns whose prompt window still shows the answer (`sft/answer_in_window`),
 * a run's context is too short for its data: the job logs it and the dashboard says so.
 */
export const ANSWER_IN_WINDOW_MIN = 0.95;

export interface RunSummary {
  artefact: ArtefactRecord<RunInfo>;
  status: RunStatus;
  /** The job currently (or last) driving the run; a resumed run gets a new job. */
  jobId?: string;
  progress?: JobProgress;
  error?: string;
  startedAt?: string;
  endedAt?: string;
  /** Wall time of all the run's jobs together. */
  seconds: number;
  lastStep: number;
  metrics: Record<string, MetricSummary>;
}

export interface RunDetail extends RunSummary {
  config: Record<string, unknown>;
  checkpoints: Array<{ step: number; ref: string }>;
  evals: Array<{ step: number; summary: Record<string, number> }>;
  /** RL steps whose rollouts are stored (runs/<id>/rollouts/step-N.jsonl), ascending: `runs.rlStep` reads one. */
  rlSteps: number[];
}

export interface RunMetricsEvent {
  runId: string;
  records: MetricRecord[];
}

/** comparisons/<id>.json: the same questions answered by each checkpoint (index i = checkpoints[i]). */
export interface ComparisonFile {
  checkpoints: Array<{ ref: string; setId: string; eval: Record<string, unknown> | null; counts: Record<string, unknown> }>;
  questions: Array<{ qa_id: string; results: Array<{ correct: number; n: number; trajIds: string[] }> }>;
  /** The expert's pass@1 per question (one episode each, the same seeds): each level's ceiling. Absent in older files. */
  expert?: Record<string, number>;
}

export interface ComparisonView extends ComparisonFile {
  artefact: ArtefactRecord<ComparisonInfo>;
  /** Question text by QA id, from the dataset. */
  questionText: Record<string, string>;
  /** Each question's hops and level, from the dataset (level-breakdown.ts). */
  questionLevels?: Record<string, QuestionLevel>;
}

export interface StoreSummary {
  projects: number;
  graphs: number;
  datasets: number;
  runs: number;
  checkpoints: number;
  jobs: number;
}

export interface LicenseNotice {
  package: string;
  version: string;
  license: string;
  attribution: string;
}

export interface StreamPage {
  records: unknown[];
  /** Index of the next record to ask for. */
  next: number;
  /** The stream's last line was torn by an interrupted write and was skipped. */
  tornTail: boolean;
}

// ---------- methods ----------

const Id = artefactId;
const Empty = z.object({}).strict();
/** A file or folder path a verl import reads. */
const VerlPath = z.string().trim().min(1, 'a path is required').max(4096);
/** Trajectory ids are `<qa id>/<attempt>`: an id with slashes, matched in memory only (never a path). */
const TrajId = z.string().min(1).max(300).regex(/^[A-Za-z0-9._:/#-]+$/, 'letters, digits and . _ : / # - only');

export const methods = {
  ...endpointMethods,
  'app.info': { params: Empty, result: {} as AppInfo },
  'store.summary': { params: Empty, result: {} as StoreSummary },
  'about.licenses': { params: Empty, result: [] as LicenseNotice[] },
  'jobs.kinds': {
    params: Empty,
    result: [] as Array<{ kind: string; title: string; description: string }>,
  },
  'jobs.list': { params: Empty, result: [] as JobRecord[] },
  'graphs.list': { params: Empty, result: [] as ArtefactRecord<GraphInfo>[] },
  'graphs.get': { params: z.object({ id: Id }).strict(), result: {} as GraphView },
  'graphs.layout': { params: z.object({ id: Id }).strict(), result: null as GraphLayout | null },
  'graphs.saveLayout': { params: z.object({ id: Id, xy: z.array(z.number().finite()).max(200_000) }).strict(), result: {} as { nodes: number } },
  'datasets.list': { params: Empty, result: [] as ArtefactRecord<DatasetInfo>[] },
  'datasets.get': { params: z.object({ id: Id }).strict(), result: {} as DatasetView },
  'datasets.qa': { params: z.object({ id: Id, qaId: Id }).strict(), result: {} as QaDetail },
  'comparisons.list': { params: Empty, result: [] as ArtefactRecord<ComparisonInfo>[] },
  'comparisons.get': { params: z.object({ id: Id }).strict(), result: {} as ComparisonView },
  'runs.list': { params: Empty, result: [] as RunSummary[] },
  'runs.get': { params: z.object({ id: Id }).strict(), result: {} as RunDetail },
  'runs.metrics': {
    params: z.object({ id: Id, since: z.number().int().min(-1).default(-1) }).strict(),
    result: [] as MetricRecord[],
  },
  'runs.rlStep': { params: z.object({ id: Id, step: z.number().int().min(0) }).strict(), result: {} as RlStepView },
  // Paths on the lab's machine (in web mode, the server's disk); `follow` reads on as verl writes.
  'runs.importVerl': {
    params: z
      .object({
        metrics: VerlPath,
        rollouts: VerlPath.optional(),
        validation: VerlPath.optional(),
        episodes: VerlPath.optional(),
        name: z.string().trim().min(1).max(120).optional(),
        follow: z.boolean().default(false),
      })
      .strict(),
    result: {} as RunSummary,
  },
  // The config is validated in main against the run config schema (contract/run-config.ts), which names each bad field.
  'runs.start': {
    // `measured`: the wizard's warm-up, which the run's time left starts from (run-timeline.ts).
    params: z.object({ config: z.record(z.string(), z.unknown()), measured: runMeasurementsSchema.optional() }).strict(),
    result: {} as RunSummary,
  },
  'runs.resume': { params: z.object({ id: Id }).strict(), result: {} as RunSummary },
  'runs.cancel': { params: z.object({ id: Id }).strict(), result: {} as RunSummary },
  'trajectories.list': { params: Empty, result: [] as ArtefactRecord<TrajSetInfo>[] },
  'trajectories.get': { params: z.object({ id: Id }).strict(), result: {} as TrajSetView },
  'trajectories.one': { params: z.object({ id: Id, trajId: TrajId }).strict(), result: {} as TrajDetail },
  'jobs.get': { params: z.object({ id: Id }).strict(), result: {} as JobRecord },
  // Callers write one kind's params (`input`: JobStartParams, contract/jobs.ts); the job manager checks them
  // against that kind's schema and answers with the kind's name in its message.
  'jobs.start': {
    params: z
      .object({
        kind: Id,
        params: z.record(z.string(), z.unknown()).default({}),
      })
      .strict(),
    input: {} as JobStartParams,
    result: {} as JobRecord,
  },
  'jobs.cancel': { params: z.object({ id: Id }).strict(), result: {} as JobRecord },
  'jobs.stream': {
    params: z
      .object({
        id: Id,
        offset: z.number().int().min(0).default(0),
        limit: z.number().int().min(1).max(10_000).default(1000),
      })
      .strict(),
    result: {} as StreamPage,
  },
} as const;

export type MethodName = keyof typeof methods;
/** A method's params as a caller writes them: the schema's input, or the narrower `input` a method declares. */
export type MethodParams<M extends MethodName> = (typeof methods)[M] extends { input: infer I } ? I : z.input<(typeof methods)[M]['params']>;
export type ParsedParams<M extends MethodName> = z.output<(typeof methods)[M]['params']>;
export type MethodResult<M extends MethodName> = (typeof methods)[M]['result'];
export const METHOD_NAMES = Object.keys(methods) as MethodName[];

export function isMethodName(name: unknown): name is MethodName {
  return typeof name === 'string' && Object.hasOwn(methods, name);
}

// ---------- events ----------

export interface EventPayloads {
  'job.updated': JobRecord;
  'app.backend': BackendReport;
  'run.metrics': RunMetricsEvent;
}
export type EventName = keyof EventPayloads;
export const EVENT_NAMES: EventName[] = ['job.updated', 'app.backend', 'run.metrics'];

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && (EVENT_NAMES as string[]).includes(name);
}

// ---------- errors on the wire ----------

export interface WireError {
  code: string;
  message: string;
  /** A refused call's bad fields, in words (contract/field-issues.ts): a form shows each at its field. */
  issues?: FieldIssue[];
}

/** The issues a LabError carries for the wire (`details.issues`), when it has any. */
export function wireErrorOf(code: string, message: string, details: Record<string, unknown> | undefined): WireError {
  const issues = wireIssues(details?.issues);
  return issues ? { code, message, issues } : { code, message };
}

/** Validates a call's params; returns them parsed (defaults applied) or a message naming each bad field. */
export function validateParams<M extends MethodName>(
  method: M,
  raw: unknown,
): { ok: true; value: ParsedParams<M> } | { ok: false; message: string } {
  // The union of all schemas is too wide for TS to narrow by M; the lookup itself is exact.
  const schema: z.ZodType = methods[method].params;
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return { ok: true, value: parsed.data as ParsedParams<M> };
  const issues = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(params)'}: ${i.message}`);
  return { ok: false, message: `${method}: invalid params: ${issues.join('; ')}` };
}

/**
 * `window.sailor`, what the preload (preload/index.ts) exposes to the desktop app's page: the contract's method
 * and event names, each method as a named function, and event subscription. Declared once, here: the preload
 * is typed against it and the renderer's desktop transport reads it.
 */
export interface SailorBridge {
  methods: MethodName[];
  events: EventName[];
  api: { [M in MethodName]: (params?: MethodParams<M>) => Promise<MethodResult<M>> };
  on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void): () => void;
}

/** What every client offers the renderer: the same shape over IPC and over HTTP/WebSocket. */
export interface LabClient {
  transport: 'desktop' | 'web';
  call<M extends MethodName>(method: M, params?: MethodParams<M>): Promise<MethodResult<M>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void): () => void;
}
