// Each kind of job's params: what `jobs.start {kind, params}` takes, one zod schema per kind. Main's job
// manager validates a start request with these (jobs/specs.ts names each kind's schema) and the renderer's calls
// type-check against them (`JobStartParams`). No Node imports: the renderer bundles this file.
import { z } from 'zod';
import { artefactId } from './ids';

export const demoParams = z
  .object({
    records: z.number().int().min(1).max(100_000).default(40),
    intervalMs: z.number().int().min(0).max(10_000).default(100),
    failAt: z.number().int().min(1).optional(),
  })
  .strict();
export type DemoParams = z.output<typeof demoParams>;

const name = z.string().trim().min(1).max(80).regex(/^[\w .:-]+$/, 'letters, digits, spaces and . _ : - only');

export const kgBuildParams = z
  .object({
    name: name.optional(),
    rng: z.number().int().min(0).max(2 ** 32 - 1).default(7).describe('random seed of the walk (and of the start entity when no seed is given)'),
    maxEdges: z.number().int().min(10).max(20_000).default(400).describe('stop at this many edges'),
    seed: z.string().min(1).max(200).optional().describe('KB entity id to start from, e.g. person:wn10908153 (default: a rare entity picked by rng)'),
    expandProb: z.number().min(0).max(1).optional().describe('probability of expanding from a random existing node instead of the newest'),
    kb: z
      .string()
      .min(1)
      .max(2000)
      .regex(/^(bundled|(rdf|wikidata|sparql):.+)$/, 'expected bundled, rdf:FILE, wikidata:FILE or sparql:URL')
      .optional()
      .describe('knowledge base: bundled (default), rdf:FILE (.nt, .ttl, .nq, optionally .gz), wikidata:FILE (JSON dump) or sparql:URL'),
    mapping: z.string().min(1).max(1000).optional().describe('how its vocabulary maps to entities, relations and attributes: wikidata, dbpedia, rdf or a mapping file (docs/own-knowledge-graph.md)'),
    license: z.string().trim().min(1).max(300).optional().describe("the imported knowledge base's licence, recorded in the graph and shown with it (default: what the dump states, else the mapping's)"),
    source: z.string().trim().min(1).max(300).optional().describe("the imported knowledge base's name or origin, recorded and shown likewise (default: the dump's title, else the mapping's)"),
  })
  .strict();
export type KgBuildParams = z.output<typeof kgBuildParams>;

/** The synthesis generators a synth job can use (docs/pipeline.md). */
export const SYNTH_GENERATORS = ['subgraph', 'asearcher'] as const;
export type SynthGenerator = (typeof SYNTH_GENERATORS)[number];

export const synthParams = z
  .object({
    name: name.optional(),
    graphId: artefactId,
    count: z.number().int().min(1).max(20_000).default(200).describe('number of QAs to publish'),
    rng: z.number().int().min(0).max(2 ** 32 - 1).default(1).describe('seed of every random choice'),
    generator: z.enum(SYNTH_GENERATORS).optional().describe('subgraph (sampled subgraphs + obfuscation) or asearcher (inject/fuzz steps from one-hop lookups)'),
    steps: z.number().int().min(1).max(8).optional().describe('asearcher: inject/fuzz steps per seed'),
    kinds: z.array(z.string().min(1)).optional().describe('obfuscation kinds to use (default: all; none: plain questions, which only naming entities makes unique)'),
    minEdges: z.number().int().min(1).max(50).optional().describe('smallest subgraph, in edges (small subgraphs give short questions)'),
    maxEdges: z.number().int().min(1).max(50).optional().describe('largest subgraph, in edges'),
    anchorProb: z.number().min(0).max(1).optional().describe('chance of naming one non-answer entity in the question up front (1 with no kinds: named-entity lookups)'),
    maxConstraints: z.number().int().min(0).max(20).optional().describe('obfuscation fragments injected up front'),
    perShape: z.number().int().min(1).max(100_000).optional().describe('subgraphs kept per WL hash (more: many QAs of one shape on other entities; a graph has few 1-edge shapes)'),
    /** A dataset on the same graph whose subgraph edges no QA may use: a held-out set disjoint from it. */
    excludeDatasetId: artefactId.optional(),
    /** More such datasets: an RL set disjoint from both the training and the held-out set. */
    excludeDatasetIds: z.array(artefactId).max(16).optional(),
    /** Publish what could be verified when that is fewer than `count` (at least one): "up to count" fresh questions. */
    allowFewer: z.boolean().optional(),
  })
  .strict()
  .refine((p) => p.minEdges === undefined || p.maxEdges === undefined || p.minEdges <= p.maxEdges, { message: 'minEdges must not exceed maxEdges', path: ['minEdges'] });
export type SynthParams = z.output<typeof synthParams>;

/** What a rollout job's policy must name; no policy is not the expert (an empty field once ran it silently). */
export const POLICY_REQUIRED = 'choose a policy: the expert (oracle), the base model, an untrained model or a checkpoint';

/**
 * The policy kinds a rollout job can name: `oracle` (the expert), `base` (the bundled base model), `untrained`
 * or `untrained:<seed>` (its shape with fresh weights), `llm:<model>`, `ckpt:<run>/<step>`. Required: there
 * is no default.
 */
export const policySpec = z
  .string({ error: POLICY_REQUIRED })
  .trim()
  .min(1, POLICY_REQUIRED)
  .max(200)
  .regex(
    /^(oracle|expert|base|untrained(:\d+)?|llm:[\w.:/-]+|ckpt:[\w.:/-]+|endpoint:[\w.:-]+)$/,
    "expected 'oracle', 'base', 'untrained', 'llm:<model>', 'ckpt:<run>/<step>' or 'endpoint:<id>'",
  );

/** How a rollout scores an answer: exact match, word F1, or an LLM judge (`judgeModel`). */
export const REWARD_MODES = ['em', 'f1', 'judge'] as const;
/** Attempts per question a rollout may ask for: pass@k is measured up to k = 32. */
export const ROLLOUT_MAX_SAMPLES = 32;
/** Tool calls per episode when neither the params nor a checkpoint's run say. */
export const DEFAULT_MAX_TOOL_CALLS = 30;

export const rolloutParams = z
  .object({
    name: name.optional(),
    /** The graph the simulated web is built from; defaults to the dataset's graph. */
    graphId: artefactId.optional(),
    datasetId: artefactId,
    policy: policySpec.describe('oracle | base | untrained[:<seed>] | llm:<model> | ckpt:<run>/<step>'),
    n: z.number().int().min(1).max(ROLLOUT_MAX_SAMPLES).default(1).describe('attempts per QA'),
    rng: z.number().int().min(0).max(2 ** 32 - 1).default(0).describe('seed of the per-attempt random streams'),
    limit: z.number().int().min(1).max(100_000).optional().describe('use only the first N QAs of the dataset'),
    reward: z.enum(REWARD_MODES).default('em').describe('answer score: em (exact match), f1 (word F1) or judge (an LLM at SAILOR_LLM_URL or --llm-url)'),
    judgeModel: z.string().trim().min(1).max(200).optional().describe('model of the LLM judge, for reward judge'),
    maxToolCalls: z.number().int().min(1).max(200).optional().describe("tool calls per episode before the agent must answer (a checkpoint's default: its run's limit)"),
  })
  .strict()
  .refine((p) => p.reward !== 'judge' || p.judgeModel !== undefined, { message: 'reward judge needs a judge model', path: ['judgeModel'] });
export type RolloutParams = z.output<typeof rolloutParams>;

export const compareParams = z
  .object({
    name: name.optional(),
    /** Two or more checkpoints, `<run>/<step>` or `<run>/last`, from one run or several, or saved endpoints `endpoint:<id>`. */
    checkpoints: z.array(z.string().min(3).max(250)).min(2).max(6),
    // The protocol: each left out is the first checkpoint's run's own evaluation's (its held-out set, eval.questions,
    // eval.samples, eval.temperature, rng), so a checkpoint scores here what it scored on the dashboard.
    /** The questions all checkpoints answer. */
    datasetId: artefactId.optional(),
    /** The dataset's first N. */
    questions: z.number().int().min(1).max(10_000).optional(),
    samples: z.number().int().min(1).max(16).optional(),
    /** 0: greedy. */
    temperature: z.number().min(0).max(2).optional(),
    /** The run seed the rollout seeds derive from, as in the run's evaluation (`eval/<rng>`). */
    rng: z.number().int().min(0).max(2 ** 32 - 1).optional(),
    /** A stopped comparison (its job id) of the same checkpoints and protocol: its played episodes are kept, the rest played. */
    resumeOf: artefactId.optional(),
  })
  .strict();
export type CompareParams = z.output<typeof compareParams>;

export const trainParams = z
  .object({
    runId: artefactId,
    /** Continue from the run's last checkpoint instead of starting at step 0. */
    resume: z.boolean().default(false),
  })
  .strict();
export type TrainParams = z.output<typeof trainParams>;

export const estimateParams = z
  .object({
    /** A run config as the wizard would launch it (validated by the job with parseRunConfig). */
    config: z.record(z.string(), z.unknown()),
  })
  .strict();

/** Every kind of job and its params' schema. */
export const JOB_PARAMS = {
  demo: demoParams,
  'kg.build': kgBuildParams,
  synth: synthParams,
  rollout: rolloutParams,
  compare: compareParams,
  train: trainParams,
  estimate: estimateParams,
} as const;

export type JobKind = keyof typeof JOB_PARAMS;
/** A kind's params as the job gets them (defaults in), as its artefact records them. */
export type JobParams<K extends JobKind> = z.output<(typeof JOB_PARAMS)[K]>;
/** A kind's params as a caller writes them (defaults may be left out). */
export type JobParamsInput<K extends JobKind> = z.input<(typeof JOB_PARAMS)[K]>;

/**
 * The range a number param of a job accepts, read from its schema: what a form's min and max attributes show
 * (`v-bind="paramRange('rollout', 'n')"`), so no form copies a cap. Only the bounds the schema sets are there.
 */
export function paramRange<K extends JobKind>(kind: K, param: keyof JobParamsInput<K> & string): { min?: number; max?: number } {
  let schema = (JOB_PARAMS[kind] as z.ZodObject).shape[param] as z.ZodType | undefined;
  while (schema instanceof z.ZodDefault || schema instanceof z.ZodOptional) schema = schema.unwrap() as z.ZodType;
  if (!(schema instanceof z.ZodNumber)) throw new Error(`${kind} job: ${param} is not a number param`);
  const bound = (v: number | null): number | undefined => (v !== null && Number.isFinite(v) ? v : undefined);
  const [min, max] = [bound(schema.minValue), bound(schema.maxValue)];
  return { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) };
}

/** Whether a kind's params may be left out: every one has a default. */
type ParamsOptional<K extends JobKind> = Record<string, never> extends JobParamsInput<K> ? true : false;

/**
 * `jobs.start`'s params, a union by `kind`: `{kind: 'synth', params: {graphId, count, …}}`. `params` may be left
 * out only where the kind's every param has a default. Main checks the kind and its params in the job manager,
 * against JOB_PARAMS, and its messages name the kind (`rollout job: invalid params: n: …`).
 */
export type JobStartParams = {
  [K in JobKind]: ParamsOptional<K> extends true ? { kind: K; params?: JobParamsInput<K> } : { kind: K; params: JobParamsInput<K> };
}[JobKind];

/** A kind's params as a function's last argument, optional as in JobStartParams: `start('demo')`, `start('synth', {graphId})`. */
export type JobParamsArg<K extends JobKind> = ParamsOptional<K> extends true ? [params?: JobParamsInput<K>] : [params: JobParamsInput<K>];

export function isJobKind(kind: unknown): kind is JobKind {
  return typeof kind === 'string' && Object.hasOwn(JOB_PARAMS, kind);
}
