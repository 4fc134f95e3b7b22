// The one API contract between the lab core and every client: the Electron renderer (through the
// preload bridge), the web mode (HTTP + WebSocket) and the tests. Each method has a params schema that
// main validates before use, and a result type; each event stream has a payload schema.
// No Node, Electron or DOM imports here: the renderer and the preload bundle this file.
import { z } from 'zod';
import type { Graph, QA } from '../formats';

// ---------- shared records ----------

export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface JobProgress {
  fraction: number; // 0..1
  message: string;
  /** Optional step counters for long work, e.g. { done: 12, total: 40 }. */
  done?: number;
  total?: number;
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
export interface ArtefactRecord {
  id: string;
  name: string;
  path: string;
  createdAt: string;
  /** Free-form details (counts, config, lineage). */
  info: Record<string, unknown>;
}

export interface GraphView {
  artefact: ArtefactRecord;
  graph: Graph;
  stats: { nodes: number; edges: number; components: number; cycle_rank: number; types: Record<string, number>; relations: Record<string, number> };
  /** Edges that lie on a cycle of the undirected graph (for highlighting). */
  cycleEdges: string[];
}

export interface DatasetView {
  artefact: ArtefactRecord;
  header: Record<string, unknown>;
  qas: QA[];
}

export interface QaDetail {
  qa: QA;
  /** Automorphism orbits of the QA's subgraph, in the order its `orbit` index refers to. */
  orbits: string[][];
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

const Id = z.string().min(1).max(200).regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : - only');
const Empty = z.object({}).strict();

export const methods = {
  'app.info': { params: Empty, result: {} as AppInfo },
  'store.summary': { params: Empty, result: {} as StoreSummary },
  'about.licenses': { params: Empty, result: [] as LicenseNotice[] },
  'jobs.kinds': {
    params: Empty,
    result: [] as Array<{ kind: string; title: string; description: string }>,
  },
  'jobs.list': { params: Empty, result: [] as JobRecord[] },
  'graphs.list': { params: Empty, result: [] as ArtefactRecord[] },
  'graphs.get': { params: z.object({ id: Id }).strict(), result: {} as GraphView },
  'datasets.list': { params: Empty, result: [] as ArtefactRecord[] },
  'datasets.get': { params: z.object({ id: Id }).strict(), result: {} as DatasetView },
  'datasets.qa': { params: z.object({ id: Id, qaId: Id }).strict(), result: {} as QaDetail },
  'jobs.get': { params: z.object({ id: Id }).strict(), result: {} as JobRecord },
  'jobs.start': {
    params: z
      .object({
        kind: Id,
        params: z.record(z.string(), z.unknown()).default({}),
      })
      .strict(),
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
export type MethodParams<M extends MethodName> = z.input<(typeof methods)[M]['params']>;
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
}
export type EventName = keyof EventPayloads;
export const EVENT_NAMES: EventName[] = ['job.updated', 'app.backend'];

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && (EVENT_NAMES as string[]).includes(name);
}

// ---------- errors on the wire ----------

export interface WireError {
  code: string;
  message: string;
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

/** What every client offers the renderer: the same shape over IPC and over HTTP/WebSocket. */
export interface LabClient {
  transport: 'desktop' | 'web';
  call<M extends MethodName>(method: M, params?: MethodParams<M>): Promise<MethodResult<M>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void): () => void;
}
