// The run config as the wizard edits it: the fields of the contract's run config schema, flat by dotted
// path, with their labels and hints. Defaults and ranges come from the schema itself (one place): the
// wizard validates with it as main does, and main's message on `runs.start` is mapped back onto fields too.
// The RL stage (the schema's `rl` section) has its own fields, by dotted path too (`rl.reward.format`).
// `init` is the checkpoint a run starts from instead of a fresh model: SFT continues from it, or, with the
// RL-only stage, RL does.
import { checkRunConfig, describeIssue, nameMentions, runConfigSchema, BACKEND_CHOICES, MODEL_PRESETS as PRESET_IDS, PRESET_SHAPES, type ArtefactRecord, type DatasetInfo, type ModelPreset } from '@contract';

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

export type RlFieldPath =
  | 'rl.steps'
  | 'rl.groupSize'
  | 'rl.batchQuestions'
  | 'rl.updatesPerBatch'
  | 'rl.temperature'
  | 'rl.topP'
  | 'rl.lr'
  | 'rl.warmupSteps'
  | 'rl.weightDecay'
  | 'rl.gradClip'
  | 'rl.epsLow'
  | 'rl.epsHigh'
  | 'rl.reward.format'
  | 'rl.reward.answer'
  | 'rl.dapoMaxRounds'
  | 'rl.hardPatience'
  | 'rl.maxStaleness'
  | 'rl.workers'
  | 'rl.evalEvery'
  | 'rl.checkpointEvery';

export interface RlFieldSpec {
  path: RlFieldPath;
  label: string;
  hint?: string;
  step?: number;
}
const R = (path: RlFieldPath, label: string, o: Partial<RlFieldSpec> = {}): RlFieldSpec => ({ path, label, ...o });

/** The RL stage's numeric fields (docs/run-config.md), with what to call them. */
export const RL_FIELDS: Record<RlFieldPath, RlFieldSpec> = {
  'rl.steps': R('rl.steps', 'RL steps', { hint: 'one rollout batch each; they continue the step count after SFT' }),
  'rl.groupSize': R('rl.groupSize', 'G: rollouts per question', { hint: 'the papers: 8 (16 in WebDancer)' }),
  'rl.batchQuestions': R('rl.batchQuestions', 'questions per step', { hint: 'the batch is this many groups of G' }),
  'rl.updatesPerBatch': R('rl.updatesPerBatch', 'updates per batch', { hint: '1 = strictly on-policy' }),
  'rl.temperature': R('rl.temperature', 'temperature', { step: 0.05, hint: 'sampling the rollouts (papers: 1.0)' }),
  'rl.topP': R('rl.topP', 'top-p', { step: 0.05 }),
  'rl.lr': R('rl.lr', 'learning rate', { step: 0.00001 }),
  'rl.warmupSteps': R('rl.warmupSteps', 'warm-up steps'),
  'rl.weightDecay': R('rl.weightDecay', 'weight decay', { step: 0.01 }),
  'rl.gradClip': R('rl.gradClip', 'grad clip', { step: 0.1, hint: 'global norm; 0 turns it off' }),
  'rl.epsLow': R('rl.epsLow', 'eps low', { step: 0.01, hint: 'ratio clipped below at 1 − eps low' }),
  'rl.epsHigh': R('rl.epsHigh', 'eps high', { step: 0.01, hint: 'clip-higher (DAPO): 1 + eps high' }),
  'rl.reward.format': R('rl.reward.format', 'format weight', { step: 0.05, hint: 'R = w_f · format + w_a · answer' }),
  'rl.reward.answer': R('rl.reward.answer', 'answer weight', { step: 0.05 }),
  'rl.hardPatience': R('rl.hardPatience', 'all-fail groups before too hard', { hint: 'all-fail groups in a row before a question leaves the pool' }),
  'rl.dapoMaxRounds': R('rl.dapoMaxRounds', 'DAPO rounds', { hint: 'rollout rounds to fill the batch' }),
  'rl.maxStaleness': R('rl.maxStaleness', 'max staleness', { hint: 'policy versions a group may lag' }),
  'rl.workers': R('rl.workers', 'rollout workers', { hint: 'rollouts in flight at once' }),
  'rl.evalEvery': R('rl.evalEvery', 'evaluate every N RL steps', { hint: 'held-out pass@1, and after the last' }),
  'rl.checkpointEvery': R('rl.checkpointEvery', 'checkpoint every N RL steps', { hint: 'and after the last' }),
};

/** What the run does: SFT only, SFT then RL, or RL from an existing checkpoint (no RFT, no SFT). */
export type Stage = 'sft' | 'sft+rl' | 'rl';

const rlSchema = runConfigSchema.shape.rl.unwrap();
export const RL_ALGORITHMS = rlSchema.shape.algorithm.unwrap().options;
export const RL_ADVANTAGES = rlSchema.shape.advantage.unwrap().options;
export const RL_MODES = rlSchema.shape.mode.unwrap().options;
export const RL_SCHEDULES = rlSchema.shape.schedule.unwrap().options;
export const RL_POOLS = rlSchema.shape.pool.unwrap().options;
export type RlAlgorithm = (typeof RL_ALGORITHMS)[number];

export interface RlChoice {
  stage: Stage;
  algorithm: RlAlgorithm;
  advantage: (typeof RL_ADVANTAGES)[number];
  mode: (typeof RL_MODES)[number];
  schedule: (typeof RL_SCHEDULES)[number];
  /** fixed: the RL set as it is; frontier: the data-policy loop keeps the questions at the policy's frontier. */
  pool: (typeof RL_POOLS)[number];
  excludeTruncatedNegatives: boolean;
  dropTooEasy: boolean;
  values: Record<RlFieldPath, number | string>;
}

/** The RL stage at the schema's defaults, switched off. */
export function defaultRl(): RlChoice {
  const d = rlSchema.parse({});
  return {
    stage: 'sft',
    algorithm: d.algorithm,
    advantage: d.advantage,
    mode: d.mode,
    schedule: d.schedule,
    pool: d.pool,
    excludeTruncatedNegatives: d.excludeTruncatedNegatives,
    dropTooEasy: d.dropTooEasy,
    values: Object.fromEntries(Object.keys(RL_FIELDS).map((p) => [p, at({ rl: d }, p) as number])) as Record<RlFieldPath, number>,
  };
}

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

// ---------- the fields in the wizard's words ----------

/** Group words a message puts before a field's short label (`sft.steps` -> "SFT steps"). */
const GROUP_WORDS: Record<string, string> = { rft: 'RFT', sft: 'SFT', eval: 'evaluation', rl: 'RL' };

/** A field's label as a message names it alone, with its group ("SFT steps"), unless the label says it already. */
function qualified(path: string, label: string): string {
  const group = GROUP_WORDS[path.split('.')[0]!] ?? '';
  return group && !label.toLowerCase().includes(group.toLowerCase()) ? `${group} ${label}` : label;
}

/**
 * Config path -> what the wizard calls the field. Every message about a field (the wizard's checks, main's
 * refusal, the dashboard's warnings) names it so, never by its path: `sft.steps` is "SFT steps",
 * `model.blockSize` "context (tokens)".
 */
export const CONFIG_LABELS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.values(FIELDS).map((f) => [f.path, qualified(f.path, f.label)])),
  ...Object.fromEntries(Object.values(RL_FIELDS).map((f) => [f.path, qualified(f.path, f.label)])),
  'rl.groupSize': 'RL group size (G)',
  name: 'run name',
  backend: 'compute backend',
  'model.preset': 'model preset',
  'model.base': 'start from',
  'data.graphId': 'graph',
  'data.datasetId': 'training questions',
  'data.heldOutDatasetId': 'held-out questions',
  'data.rlDatasetId': 'RL questions',
  'init.checkpoint': 'starting checkpoint',
  'rl.algorithm': 'RL algorithm',
  'rl.advantage': 'RL advantage',
  'rl.mode': 'RL rollout mode',
  'rl.schedule': 'RL rate schedule',
};

/** How a message mentions a field in passing where that says more than its label: the step that holds it. */
export const CONFIG_MENTIONS: Readonly<Record<string, string>> = {
  'init.checkpoint': 'starting checkpoint (Model step)',
};

/** A field's words; a path the map lacks reads as "a setting", never as the path. */
export const labelOf = (path: string): string => CONFIG_LABELS[path] ?? 'a setting';
const mentionOf = (path: string): string => CONFIG_MENTIONS[path] ?? labelOf(path);

/** A field's message as the wizard shows it: its label, then what is wrong ("SFT steps: must be at least 0"). */
export const fieldMessage = (path: string, words: string): string => `${labelOf(path)}: ${words}`;

/** An issue's words with the fields it mentions (`{sft.steps}`) named as the wizard names them. */
export const inWizardWords = (words: string): string => nameMentions(words, mentionOf);

/** What the wizard says of each preset besides its shape (the contract's PRESET_SHAPES). */
const PRESET_NOTES: Record<ModelPreset, { parameters: string; gpu: boolean }> = {
  tiny: { parameters: '~0.1M parameters + embeddings', gpu: false },
  small: { parameters: '~10M parameters', gpu: true },
  base: { parameters: '~85M parameters', gpu: true },
};

export const MODEL_PRESETS = PRESET_IDS.map((id) => {
  const s = PRESET_SHAPES[id];
  const { parameters, gpu } = PRESET_NOTES[id];
  return { id, title: id, detail: `${s.nLayer} layers, ${s.nHead} heads, ${s.nEmbd}-dim embeddings (${parameters})`, gpu, context: s.blockSize };
});
export type { ModelPreset };

export { BACKEND_CHOICES };
export type BackendChoice = (typeof BACKEND_CHOICES)[number];

export { QUESTION_STYLES, type QuestionStyle } from '@contract';

export type Values = Record<FieldPath, number | string>;

const at = (obj: unknown, path: string): unknown => path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], obj);

/** The schema's defaults (its "quick" preset, which finishes on a 2-core laptop), by field path. */
export function defaultValues(): Values {
  const defaults = runConfigSchema.parse({ data: { graphId: 'g', datasetId: 'd', heldOutDatasetId: 'h' } });
  return Object.fromEntries(Object.keys(FIELDS).map((p) => [p, p === 'model.blockSize' ? PRESET_SHAPES.tiny.blockSize : (at(defaults, p) as number)])) as Values;
}

/**
 * What "Train further" carries over from a run's config besides its data and checkpoint: how it was evaluated
 * (held-out questions, samples, temperature) and the simulated web it acted in, so the new run's evaluations
 * compare with the dashboard's. Not `eval.every`: SFT's interval; RL has its own.
 */
export function carriedValues(config: unknown): Partial<Values> {
  const carried = (Object.keys(FIELDS) as FieldPath[]).filter((p) => (p.startsWith('eval.') && p !== 'eval.every') || p.startsWith('env.'));
  return Object.fromEntries(carried.flatMap((p) => {
    const v = at(config, p);
    return typeof v === 'number' || typeof v === 'string' ? [[p, v]] : [];
  }));
}

export interface DataChoice {
  graphId: string;
  datasetId: string;
  heldOutDatasetId: string;
  /** '' (or absent): RL draws from the training questions. */
  rlDatasetId?: string;
}

export interface WizardState {
  name: string;
  preset: ModelPreset;
  backend: BackendChoice;
  data: DataChoice;
  values: Values;
  /** The checkpoint the run starts from, `<run>/<step>`; '' (or absent) for the base model or a fresh one. */
  init?: string;
  /** A fresh model of the preset instead of the bundled base model (when no checkpoint is picked). */
  scratch?: boolean;
  /** The RL stage; absent means SFT only. */
  rl?: RlChoice;
  /** Relabeling after SFT (run config `relabel`), as a preset sets it; absent means none. */
  relabel?: Record<string, unknown>;
}

const rlOn = (s: WizardState): s is WizardState & { rl: RlChoice } => !!s.rl && s.rl.stage !== 'sft';
const rlOnly = (s: WizardState): boolean => s.rl?.stage === 'rl';
/** A field's value as typed, wherever it lives. */
function valueOf(s: WizardState, path: string): unknown {
  if (path.startsWith('rl.')) return s.rl?.values[path as RlFieldPath];
  if (path.startsWith('data.')) return s.data[path.slice('data.'.length) as keyof DataChoice] ?? '';
  if (path === 'init.checkpoint') return s.init ?? '';
  if (path === 'name') return s.name;
  return s.values[path as FieldPath];
}

/** The config `runs.start` receives: every field spelled out, so the review shows exactly what will run. */
export function buildConfig(s: WizardState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const name = s.name.trim();
  if (name) out.name = name;
  out.rng = s.values.rng;
  out.backend = s.backend;
  const { rlDatasetId, ...data } = s.data;
  out.data = rlDatasetId ? { ...data, rlDatasetId } : data;
  const nested = (path: FieldPath): void => {
    const [group, key] = path.split('.') as [string, string];
    const g = (out[group] ??= {}) as Record<string, unknown>;
    g[key] = s.values[path];
  };
  out.model = { base: 'none', preset: s.preset };
  for (const path of Object.keys(FIELDS) as FieldPath[]) if (path.includes('.')) nested(path);
  if (!s.scratch) {
    // The base model brings its shape, context and tokenizer.
    out.model = { base: 'bundled' };
    delete out.tokenizer;
  }
  if (s.relabel && !rlOnly(s)) out.relabel = { ...s.relabel };
  if (rlOn(s)) {
    const r = s.rl;
    const v = r.values;
    out.rl = {
      algorithm: r.algorithm,
      steps: v['rl.steps'],
      groupSize: v['rl.groupSize'],
      batchQuestions: v['rl.batchQuestions'],
      updatesPerBatch: v['rl.updatesPerBatch'],
      temperature: v['rl.temperature'],
      topP: v['rl.topP'],
      lr: v['rl.lr'],
      warmupSteps: v['rl.warmupSteps'],
      schedule: r.schedule,
      weightDecay: v['rl.weightDecay'],
      gradClip: v['rl.gradClip'],
      epsLow: v['rl.epsLow'],
      epsHigh: v['rl.epsHigh'],
      reward: { format: v['rl.reward.format'], answer: v['rl.reward.answer'] },
      advantage: r.advantage,
      excludeTruncatedNegatives: r.excludeTruncatedNegatives,
      dropTooEasy: r.dropTooEasy,
      pool: r.pool,
      hardPatience: v['rl.hardPatience'],
      dapoMaxRounds: v['rl.dapoMaxRounds'],
      mode: r.mode,
      maxStaleness: v['rl.maxStaleness'],
      workers: v['rl.workers'],
      evalEvery: v['rl.evalEvery'],
      checkpointEvery: v['rl.checkpointEvery'],
    };
  }
  if (rlOnly(s)) {
    // No RFT data is made and no SFT step runs: RL starts from the checkpoint.
    out.sft = { steps: 0 };
    delete out.rft;
  }
  if (s.init || rlOnly(s)) {
    // The checkpoint brings its model, context and tokenizer.
    out.init = { checkpoint: s.init ?? '' };
    for (const k of ['tokenizer', 'model']) delete out[k];
  }
  // Keys in the schema's order, so the JSON reads like main/lab/contract/run-config.ts.
  const order = ['name', 'rng', 'backend', 'data', 'env', 'rft', 'tokenizer', 'model', 'sft', 'eval', 'checkpoint', 'init', 'rl'];
  return Object.fromEntries(order.filter((k) => k in out).map((k) => [k, out[k]]));
}

/** What the wizard says of a picker left empty, where the schema wants a value. */
const EMPTY: Record<string, string> = {
  'data.graphId': 'pick or build a graph',
  'data.datasetId': 'pick or synthesise the training questions',
  'data.heldOutDatasetId': 'pick or synthesise held-out questions',
  'init.checkpoint': 'pick the checkpoint RL starts from',
};

/**
 * Every problem, by field path (data fields use `data.*`, the name `name`): the contract's run config schema
 * checks the config the wizard would launch, rules between fields included, and each issue shows at its path
 * in the wizard's words. Only what the schema cannot know is checked here: a dataset made from another graph.
 */
export function validate(s: WizardState, datasets: readonly ArtefactRecord[]): Map<string, string> {
  const errors = new Map<string, string>();
  const parsed = checkRunConfig(buildConfig(s));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.join('.');
      if (errors.has(path)) continue;
      const empty = valueOf(s, path) === '';
      errors.set(path, empty ? (EMPTY[path] ?? 'required') : inWizardWords(describeIssue(issue)));
    }
  }
  const d = s.data;
  const graphOf = (id: string): unknown => datasets.find((x) => x.id === id)?.info.graphId;
  for (const key of ['datasetId', 'heldOutDatasetId', 'rlDatasetId'] as const) {
    const id = d[key];
    const g = id ? graphOf(id) : undefined;
    if (d.graphId && typeof g === 'string' && g !== d.graphId && !errors.has(`data.${key}`)) {
      errors.set(`data.${key}`, 'was synthesised from another graph: its questions cannot be answered in this graph');
    }
  }
  return errors;
}

/** Dataset size as synthesis recorded it (published QAs), when known. */
export function datasetSize(d: ArtefactRecord<DatasetInfo>): number | null {
  return d.info.stats?.published ?? d.info.params?.count ?? null;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '–';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}
