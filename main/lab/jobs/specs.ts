// What kinds of job exist and what params each takes. Light on purpose (schemas only): the main thread
// validates a start request here before any worker is spawned. The code that runs is found in ../job-worker.ts.
import { z } from 'zod';

export type ArtefactCollection = 'comparisons' | 'graphs' | 'datasets' | 'runs' | 'checkpoints' | 'trajectories';

export interface JobSpec<P extends z.ZodType = z.ZodType> {
  kind: string;
  title: string;
  description: string;
  params: P;
  /** Whether the job writes a JSON Lines stream (job dir/stream.jsonl). */
  streams: boolean;
  /** The store collection that the job's result artefact (`result.artefact`) is recorded in. */
  registers?: ArtefactCollection;
}

export const demoParams = z
  .object({
    records: z.number().int().min(1).max(100_000).default(40),
    intervalMs: z.number().int().min(0).max(10_000).default(100),
    failAt: z.number().int().min(1).optional(),
  })
  .strict();
export type DemoParams = z.output<typeof demoParams>;

const name = z.string().trim().min(1).max(80).regex(/^[\w .:-]+$/, 'letters, digits, spaces and . _ : - only');
const artefactId = z.string().min(1).max(200).regex(/^[A-Za-z0-9._:-]+$/);

export const kgBuildParams = z
  .object({
    name: name.optional(),
    rng: z.number().int().min(0).max(2 ** 32 - 1).default(7),
    maxEdges: z.number().int().min(10).max(20_000).default(400),
    seed: z.string().min(1).max(200).optional(),
    expandProb: z.number().min(0).max(1).optional(),
  })
  .strict();
export type KgBuildParams = z.output<typeof kgBuildParams>;

export const synthParams = z
  .object({
    name: name.optional(),
    graphId: artefactId,
    count: z.number().int().min(1).max(20_000).default(200),
    rng: z.number().int().min(0).max(2 ** 32 - 1).default(1),
    /** Obfuscation kinds; [] for plain questions (only naming entities can make the answer unique). */
    kinds: z.array(z.string().min(1)).optional(),
    /** Subgraph size in edges: small subgraphs give short questions (the quick preset's curriculum). */
    minEdges: z.number().int().min(1).max(50).optional(),
    maxEdges: z.number().int().min(1).max(50).optional(),
    /** Chance of naming one non-answer entity up front; 1 with kinds [] gives named-entity lookups. */
    anchorProb: z.number().min(0).max(1).optional(),
    maxConstraints: z.number().int().min(0).max(20).optional(),
    /** Subgraphs kept per WL hash: more than 1 gives many QAs of one shape (a graph has few 1-edge shapes). */
    perShape: z.number().int().min(1).max(100_000).optional(),
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

/** The policy kinds a rollout job can name: `oracle` (the expert), `llm:<model>`, `ckpt:<run>/<step>`. */
const policySpec = z
  .string()
  .min(1)
  .max(200)
  .regex(/^(oracle|expert|llm:[\w.:/-]+|ckpt:[\w.:/-]+)$/, "expected 'oracle', 'llm:<model>' or 'ckpt:<run>/<step>'");

export const rolloutParams = z
  .object({
    name: name.optional(),
    /** The graph the simulated web is built from; defaults to the dataset's graph. */
    graphId: artefactId.optional(),
    datasetId: artefactId,
    policy: policySpec.default('oracle'),
    n: z.number().int().min(1).max(16).default(1),
    rng: z.number().int().min(0).max(2 ** 32 - 1).default(0),
    /** Use only the first N QAs of the dataset. */
    limit: z.number().int().min(1).max(100_000).optional(),
    reward: z.enum(['em', 'f1']).default('em'),
    /** Default: 30, or for a checkpoint policy the limit its run trained with. */
    maxToolCalls: z.number().int().min(1).max(200).optional(),
  })
  .strict();
export type RolloutParams = z.output<typeof rolloutParams>;

export const compareParams = z
  .object({
    name: name.optional(),
    /** Two or more checkpoints, `<run>/<step>` or `<run>/last`, from one run or several. */
    checkpoints: z.array(z.string().min(3).max(250)).min(2).max(6),
    /** The held-out questions all checkpoints answer. */
    datasetId: artefactId,
    questions: z.number().int().min(1).max(10_000).default(30),
    samples: z.number().int().min(1).max(16).default(1),
    rng: z.number().int().min(0).max(2 ** 32 - 1).default(0),
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

export const jobSpecs: Record<string, JobSpec> = {
  demo: {
    kind: 'demo',
    title: 'Demo job',
    description: 'Writes a stream of records in a worker thread and reports progress: proves the job path end to end.',
    params: demoParams,
    streams: true,
  },
  'kg.build': {
    kind: 'kg.build',
    title: 'Build knowledge graph',
    description: 'Grows a knowledge graph from the bundled knowledge base by random-walk expansion with cycle closing.',
    params: kgBuildParams,
    streams: false,
    registers: 'graphs',
  },
  synth: {
    kind: 'synth',
    title: 'Synthesise QA dataset',
    description: 'Samples subgraphs, dedupes them by WL hash, picks answers across orbits, obfuscates, verifies uniqueness on the whole graph.',
    params: synthParams,
    streams: false,
    registers: 'datasets',
  },
  rollout: {
    kind: 'rollout',
    title: 'Roll out agent',
    description: 'Runs the ReAct agent (n attempts per QA) on a dataset in the simulated web, scores each trajectory and evaluates the set.',
    params: rolloutParams,
    streams: false,
    registers: 'trajectories',
  },
  compare: {
    kind: 'compare',
    title: 'Compare checkpoints',
    description: 'Evaluates two or more checkpoints on the same held-out questions with the same seeds, question by question.',
    params: compareParams,
    streams: false,
    registers: 'comparisons',
  },
  train: {
    kind: 'train',
    title: 'Training run',
    description: 'RFT data from expert rollouts, tokenizer, SFT with observation masking, then agentic RL (DUPO, DAPO or GRPO) when configured; periodic evaluation and checkpoints (runs/<id>/).',
    params: trainParams,
    streams: false,
  },
  estimate: {
    kind: 'estimate',
    title: 'Estimate run duration',
    description: 'A short warm-up on this machine (one SFT step, one policy turn, one expert rollout, the tokenizer on a slice) turned into a duration for a run config.',
    params: estimateParams,
    streams: false,
  },
};
