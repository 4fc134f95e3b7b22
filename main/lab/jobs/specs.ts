// What kinds of job exist: their titles, what they write, and their params' schemas (the contract's, in
// contract/jobs.ts). Light on purpose: the main thread validates a start request here before any worker is
// spawned. The code that runs is found in ../job-worker.ts.
import type { z } from 'zod';
import { JOB_PARAMS, type JobKind } from '../contract/jobs';

export type ArtefactCollection = 'comparisons' | 'graphs' | 'datasets' | 'runs' | 'checkpoints' | 'trajectories';

export interface JobSpec<P extends z.ZodType = z.ZodType, K extends JobKind = JobKind> {
  kind: K;
  title: string;
  description: string;
  params: P;
  /** Whether the job writes a JSON Lines stream (job dir/stream.jsonl). */
  streams: boolean;
  /** The store collection that the job's result artefact (`result.artefact`) is recorded in. */
  registers?: ArtefactCollection;
}

/** Every kind's spec, keyed by kind: a kind of contract/jobs.ts without one does not compile. */
export const jobSpecs: { readonly [K in JobKind]: JobSpec<(typeof JOB_PARAMS)[K], K> } = {
  demo: {
    kind: 'demo',
    title: 'Demo job',
    description: 'Writes a stream of records in a worker thread and reports progress: proves the job path end to end.',
    params: JOB_PARAMS.demo,
    streams: true,
  },
  'kg.build': {
    kind: 'kg.build',
    title: 'Build knowledge graph',
    description: 'Grows a knowledge graph from the bundled knowledge base by random-walk expansion with cycle closing.',
    params: JOB_PARAMS['kg.build'],
    streams: false,
    registers: 'graphs',
  },
  synth: {
    kind: 'synth',
    title: 'Synthesise QA dataset',
    description: 'Samples subgraphs, dedupes them by WL hash, picks answers across orbits, obfuscates, verifies uniqueness on the whole graph.',
    params: JOB_PARAMS.synth,
    streams: false,
    registers: 'datasets',
  },
  rollout: {
    kind: 'rollout',
    title: 'Roll out agent',
    description: 'Runs the ReAct agent (n attempts per QA) on a dataset in the simulated web, scores each trajectory and evaluates the set.',
    params: JOB_PARAMS.rollout,
    streams: false,
    registers: 'trajectories',
  },
  compare: {
    kind: 'compare',
    title: 'Compare checkpoints',
    description: 'Evaluates two or more checkpoints on the same held-out questions with the same seeds, question by question.',
    params: JOB_PARAMS.compare,
    streams: false,
    registers: 'comparisons',
  },
  train: {
    kind: 'train',
    title: 'Training run',
    description: 'RFT data from expert rollouts, tokenizer, SFT with observation masking, then agentic RL (DUPO, DAPO or GRPO) when configured; periodic evaluation and checkpoints (runs/<id>/).',
    params: JOB_PARAMS.train,
    streams: false,
  },
  estimate: {
    kind: 'estimate',
    title: 'Estimate run duration',
    description: 'A short warm-up on this machine (one SFT step, one policy turn, one expert rollout, the tokenizer on a slice) turned into a duration for a run config.',
    params: JOB_PARAMS.estimate,
    streams: false,
  },
};
