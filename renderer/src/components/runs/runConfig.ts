// The run config as the wizard edits it: the fields of the contract's run config schema, flat by dotted
// path, with their labels and hints. Defaults and ranges come from the schema itself (one place): the
// wizard validates with it as main does, and main's message on `runs.start` is mapped back onto fields too.
import { runConfigSchema, BACKEND_CHOICES, type ArtefactRecord, type RunSummary } from '../../../../main/lab/contract';

export type FieldPath =
  | 'rng'
  | 'model.blockSize'
  | 'tokenizer.vocabSize'
  | 'rft.attempts'
  | 'rft.minToolCalls'
  | 'rft.maxTokens'
  | 'sft.steps'
  | 'sft.batchSize'
  | 'sft.lr'
  | 'sft.minLr'
  | 'sft.warmupSteps'
  | 'sft.weightDecay'
  | 'sft.gradClip'
  | 'env.topK'
  | 'env.snippetChars'
  | 'env.maxEvidence'
  | 'env.maxToolCalls'
  | 'eval.every'
  | 'eval.questions'
  | 'eval.samples'
  | 'eval.temperature'
  | 'checkpoint.every';

export interface FieldSpec {
  path: FieldPath;
  label: string;
  hint?: string;
  /** Input step for fractional fields. */
  step?: number;
}

const F = (path: FieldPath, label: string, o: Partial<FieldSpec> = {}): FieldSpec => ({ path, label, ...o });

/** The fields the wizard shows, with what to call them. */
export const FIELDS: Record<FieldPath, FieldSpec> = {
  rng: F('rng', 'seed (rng)', { hint: 'model init, batches and evaluation sampling' }),
  'model.blockSize': F('model.blockSize', 'context (tokens)', { hint: 'blockSize: a turn window must fit' }),
  'tokenizer.vocabSize': F('tokenizer.vocabSize', 'vocabulary', { hint: 'BPE tokens, trained on the RFT data' }),
  'rft.attempts': F('rft.attempts', 'expert attempts', { hint: 'per training question' }),
  'rft.minToolCalls': F('rft.minToolCalls', 'min tool calls', { hint: 'keep trajectories with at least this many' }),
  'rft.maxTokens': F('rft.maxTokens', 'max tokens', { hint: 'drop longer trajectories' }),
  'sft.steps': F('sft.steps', 'steps'),
  'sft.batchSize': F('sft.batchSize', 'batch size'),
  'sft.lr': F('sft.lr', 'learning rate', { step: 0.0001 }),
  'sft.minLr': F('sft.minLr', 'min learning rate', { step: 0.0001, hint: 'cosine decays to this' }),
  'sft.warmupSteps': F('sft.warmupSteps', 'warm-up steps'),
  'sft.weightDecay': F('sft.weightDecay', 'weight decay', { step: 0.01 }),
  'sft.gradClip': F('sft.gradClip', 'grad clip', { step: 0.1, hint: 'global norm; 0 turns it off' }),
  'env.topK': F('env.topK', 'search results', { hint: 'topK per search' }),
  'env.snippetChars': F('env.snippetChars', 'snippet chars'),
  'env.maxEvidence': F('env.maxEvidence', 'evidence sentences', { hint: 'per visit' }),
  'env.maxToolCalls': F('env.maxToolCalls', 'max tool calls', { hint: 'per trajectory' }),
  'eval.every': F('eval.every', 'every N steps', { hint: 'and at the last step' }),
  'eval.questions': F('eval.questions', 'held-out questions'),
  'eval.samples': F('eval.samples', 'samples per question', { hint: 'k of pass@k' }),
  'eval.temperature': F('eval.temperature', 'temperature', { step: 0.05 }),
  'checkpoint.every': F('checkpoint.every', 'checkpoint every N steps', { hint: 'and at the last step' }),
};

export const MODEL_PRESETS = [
  { id: 'tiny', title: 'tiny', detail: '2 layers, 4 heads, 64-dim embeddings (~0.1M parameters + embeddings)', gpu: false },
  { id: 'small', title: 'small', detail: '6 layers, 6 heads, 384-dim embeddings (~10M parameters)', gpu: true },
  { id: 'base', title: 'base', detail: '12 layers, 12 heads, 768-dim embeddings (~85M parameters)', gpu: true },
] as const;
export type ModelPreset = (typeof MODEL_PRESETS)[number]['id'];

export { BACKEND_CHOICES };
export type BackendChoice = (typeof BACKEND_CHOICES)[number];

export type Values = Record<FieldPath, number | string>;

/** The wizard's context default: the tiny preset's own 128 tokens cannot hold a turn and its observation. */
const WIZARD_BLOCK_SIZE = 384;

const at = (obj: unknown, path: string): unknown => path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], obj);

/** The schema's defaults (its "quick" preset, which finishes on a 2-core laptop), by field path. */
export function defaultValues(): Values {
  const defaults = runConfigSchema.parse({ data: { graphId: 'g', datasetId: 'd', heldOutDatasetId: 'h' } });
  return Object.fromEntries(Object.keys(FIELDS).map((p) => [p, p === 'model.blockSize' ? WIZARD_BLOCK_SIZE : (at(defaults, p) as number)])) as Values;
}

/** A schema issue in the wizard's words ("must be at most 1") rather than zod's. */
function friendly(issue: { code: string; message: string; expected?: unknown; minimum?: unknown; maximum?: unknown; inclusive?: boolean; format?: unknown }): string {
  const n = (v: unknown): string => (typeof v === 'number' && Math.abs(v) >= 1e5 ? v.toLocaleString('en-US') : String(v));
  if (issue.code === 'too_big') return `must be at most ${n(issue.maximum)}`;
  if (issue.code === 'too_small') return issue.inclusive === false ? `must be greater than ${n(issue.minimum)}` : `must be at least ${n(issue.minimum)}`;
  if (issue.code === 'invalid_type' && issue.expected === 'int') return 'must be a whole number';
  if (issue.code === 'invalid_type') return 'enter a number';
  if (issue.code === 'invalid_format' || issue.format === 'safeint') return 'must be a whole number';
  return issue.message;
}

export interface DataChoice {
  graphId: string;
  datasetId: string;
  heldOutDatasetId: string;
}

export interface WizardState {
  name: string;
  preset: ModelPreset;
  backend: BackendChoice;
  data: DataChoice;
  values: Values;
}

/** The config `runs.start` receives: every field spelled out, so the review shows exactly what will run. */
export function buildConfig(s: WizardState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const name = s.name.trim();
  if (name) out.name = name;
  out.rng = s.values.rng;
  out.backend = s.backend;
  out.data = { ...s.data };
  const nested = (path: FieldPath): void => {
    const [group, key] = path.split('.') as [string, string];
    const g = (out[group] ??= {}) as Record<string, unknown>;
    g[key] = s.values[path];
  };
  out.model = { preset: s.preset };
  for (const path of Object.keys(FIELDS) as FieldPath[]) if (path.includes('.')) nested(path);
  // Keys in the schema's order, so the JSON reads like main/lab/contract/run-config.ts.
  const order = ['name', 'rng', 'backend', 'data', 'env', 'rft', 'tokenizer', 'model', 'sft', 'eval', 'checkpoint'];
  return Object.fromEntries(order.filter((k) => k in out).map((k) => [k, out[k]]));
}

/** Every client-side problem, by field path (data fields use `data.*`, the name `name`). */
export function validate(s: WizardState, datasets: readonly ArtefactRecord[]): Map<string, string> {
  const errors = new Map<string, string>();
  // Every field against the contract's schema (data ids are checked below, with the wizard's own words).
  const parsed = runConfigSchema.safeParse({ ...buildConfig(s), data: { graphId: 'g', datasetId: 'd', heldOutDatasetId: 'h' } });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.join('.');
      if (!errors.has(path)) errors.set(path, s.values[path as FieldPath] === '' ? 'required' : friendly(issue as Parameters<typeof friendly>[0]));
    }
  }
  const v = s.values;
  if (!errors.has('sft.lr') && !errors.has('sft.minLr') && Number(v['sft.minLr']) > Number(v['sft.lr'])) {
    errors.set('sft.minLr', `must not exceed the learning rate (${v['sft.lr']})`);
  }
  if (s.name.trim().length > 80) errors.set('name', 'at most 80 characters');
  const d = s.data;
  if (!d.graphId) errors.set('data.graphId', 'pick or build a graph');
  if (!d.datasetId) errors.set('data.datasetId', 'pick or synthesise the training questions');
  if (!d.heldOutDatasetId) errors.set('data.heldOutDatasetId', 'pick or synthesise held-out questions');
  if (d.datasetId && d.datasetId === d.heldOutDatasetId) {
    errors.set('data.heldOutDatasetId', 'must differ from the training dataset: evaluate on questions the model did not train on');
  }
  const graphOf = (id: string): unknown => datasets.find((x) => x.id === id)?.info.graphId;
  for (const key of ['datasetId', 'heldOutDatasetId'] as const) {
    const g = d[key] ? graphOf(d[key]) : undefined;
    if (d.graphId && typeof g === 'string' && g !== d.graphId && !errors.has(`data.${key}`)) {
      errors.set(`data.${key}`, 'was synthesised from another graph: its questions cannot be answered in this graph');
    }
  }
  return errors;
}

/** Dotted field paths named in a message from main (`run config: sft.lr: Too big…; data.graphId: …`). */
export function fieldsInMessage(msg: string): string[] {
  const known = new Set<string>([...Object.keys(FIELDS), 'name', 'backend', 'model.preset', 'data.graphId', 'data.datasetId', 'data.heldOutDatasetId']);
  const found = new Set<string>();
  for (const m of msg.matchAll(/([A-Za-z]+(?:\.[A-Za-z]+)*)(?::| \()/g)) if (known.has(m[1]!)) found.add(m[1]!);
  return [...found];
}

/** Dataset size as synthesis recorded it (published QAs), when known. */
export function datasetSize(d: ArtefactRecord): number | null {
  const stats = d.info.stats as { published?: number } | undefined;
  const params = d.info.params as { count?: number } | undefined;
  return stats?.published ?? params?.count ?? null;
}

export interface Estimate {
  /** Seconds, with its parts; null parts are unknown. */
  total: number;
  prep: number | null;
  steps: number;
  evals: number;
  evalCount: number;
  basis: string;
  runId: string;
}

interface RefConfig {
  model?: { preset?: string; blockSize?: number };
  sft?: { steps?: number; batchSize?: number };
  eval?: { every?: number; questions?: number; samples?: number };
  rft?: { attempts?: number };
}

const evalCount = (steps: number, every: number): number => Math.floor(steps / every) + (steps % every ? 1 : 0);

/**
 * A duration estimate from measurements only: the latest run with the same model preset and context
 * that recorded `timing/update_s` gives seconds per step (scaled by batch size), its `timing/eval_s`
 * seconds per evaluation (scaled by questions x samples), and, when it finished in one job, its
 * preparation time (RFT rollouts, tokenizer) as what is left of its wall time. No run measured yet: null.
 */
export function estimateDuration(config: Record<string, unknown>, runs: readonly RunSummary[]): Estimate | null {
  const c = config as RefConfig;
  const preset = c.model?.preset ?? 'tiny';
  const block = c.model?.blockSize;
  const ref = runs.find((r) => {
    const rc = (r.artefact.info.config ?? {}) as RefConfig;
    return r.metrics['timing/update_s'] && (rc.model?.preset ?? 'tiny') === preset && rc.model?.blockSize === block;
  });
  if (!ref) return null;
  const rc = (ref.artefact.info.config ?? {}) as RefConfig;
  const refBatch = rc.sft?.batchSize ?? 8;
  const batch = c.sft?.batchSize ?? 8;
  const steps = c.sft?.steps ?? 0;
  const refStep = ref.metrics['timing/update_s']!.last;
  const perStep = refStep * (batch / refBatch);
  const refEval = ref.metrics['timing/eval_s']?.last ?? null;
  const work = (e?: RefConfig['eval']): number => (e?.questions ?? 30) * (e?.samples ?? 1);
  const perEval = refEval === null ? 0 : refEval * (work(c.eval) / work(rc.eval));
  const nEvals = evalCount(steps, c.eval?.every ?? 100);
  let prep: number | null = null;
  const jobs = (ref.artefact.info.jobIds as unknown[] | undefined)?.length ?? 0;
  if (ref.status === 'finished' && jobs === 1) {
    const refSteps = rc.sft?.steps ?? ref.lastStep;
    const refEvals = evalCount(refSteps, rc.eval?.every ?? 100);
    const p = ref.seconds - refSteps * refStep - refEvals * (refEval ?? 0);
    if (p > 0) prep = p * ((c.rft?.attempts ?? 2) / (rc.rft?.attempts ?? 2));
  }
  const basis =
    `measured on run “${ref.artefact.name}”: ${refStep.toFixed(2)} s per step at batch ${refBatch}` +
    (refEval !== null ? `, ${refEval.toFixed(1)} s per evaluation of ${work(rc.eval)} rollouts` : '') +
    (prep !== null ? `, ${Math.round(prep)} s to prepare (RFT data, tokenizer)` : '');
  return { total: (prep ?? 0) + steps * perStep + nEvals * perEval, prep, steps: steps * perStep, evals: nEvals * perEval, evalCount: nEvals, basis, runId: ref.artefact.id };
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '–';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}
