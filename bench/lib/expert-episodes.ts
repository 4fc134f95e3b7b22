// What bench/research/turns.ts and bench/research/answers.ts share: a run's checkpoint, and its RFT expert playing a slice of
// the run's held-out (or training) questions on the run's simulated web, one greedy episode each. The
// benches then give the checkpoint the expert's contexts (teacher forcing) and compare what it writes.
import { join } from 'node:path';
import type { QA, Trajectory } from '../../main/lab/formats';
import { readJsonFile } from '../../main/lab/store/files';
import { selectBackend } from '../../main/lab/model/backend';
import { readGraphFile } from '../../main/lab/kg/io';
import { readDataset } from '../../main/lab/synth/dataset';
import { SimWeb } from '../../main/lab/agent/web';
import { simToolset } from '../../main/lab/agent/env';
import { rolloutDataset } from '../../main/lab/agent/rollout';
import { loadCheckpoint } from '../../main/lab/model/checkpoint';
import type { GPT } from '../../main/lab/model/gpt';
import type { Tokenizer } from '../../main/lab/model/tokenizer';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import { checkpointDir, checkpointSteps, runFile } from '../../main/lab/runs/layout';
import { TURN_TOKENS } from '../../main/lab/train/policy/policy';
import { runEnvironment } from '../../main/lab/train/policy/checkpoints';
import { rftExpert } from '../../main/lab/train/policy/rft-expert';

export interface ExpertEpisodes {
  step: number;
  backend: string;
  model: GPT;
  tok: Tokenizer;
  /** The expert's episodes, each with its question. */
  episodes: Array<{ qa: QA; trajectory: Trajectory }>;
}

/** The options every bench on expert episodes takes (parseArgs); each adds `questions`, with its own default, and any more. */
export const EPISODE_OPTIONS = {
  home: { type: 'string' },
  run: { type: 'string' },
  step: { type: 'string', default: 'last' },
  split: { type: 'string', default: 'held-out' },
} as const;

/** expertEpisodes for a bench's parsed options; throws `usage` when --home or --run is missing. */
export function episodesFromArgs(values: { home?: string; run?: string; step?: string; split?: string; questions?: string }, usage: string): Promise<ExpertEpisodes> {
  if (!values.home || !values.run) throw new Error(usage);
  return expertEpisodes({ home: values.home, run: values.run, step: values.step!, split: values.split!, questions: Number(values.questions) });
}

export async function expertEpisodes(o: { home: string; run: string; step: string; split: string; questions: number }): Promise<ExpertEpisodes> {
  if (!['held-out', 'train'].includes(o.split)) throw new Error(`--split must be held-out or train, got ${o.split}`);
  const config = parseRunConfig((readJsonFile(runFile(o.home, o.run)) as { config: unknown }).config);
  const { report } = await selectBackend(config.backend === 'auto' ? {} : { only: [config.backend] });
  const all = checkpointSteps(o.home, o.run);
  const step = o.step === 'last' ? all.at(-1) : Number(o.step);
  if (step === undefined || !all.includes(step)) throw new Error(`run ${o.run} has no checkpoint ${o.step}; it has ${all.join(', ') || 'none'}`);
  const { model, tokenizer: tok } = await loadCheckpoint(checkpointDir(o.home, o.run, step));
  if (!tok) throw new Error('the checkpoint has no tokenizer');
  const graph = readGraphFile(join(o.home, 'graphs', `${config.data.graphId}.json`));
  const datasetId = o.split === 'train' ? config.data.datasetId : config.data.heldOutDatasetId;
  const qas = readDataset(join(o.home, 'datasets', `${datasetId}.jsonl`)).qas.slice(0, o.questions);
  const env = runEnvironment(config);
  const trajs = await rolloutDataset(qas, rftExpert(config.rft.style, graph), simToolset(new SimWeb(graph, env.web)), {
    n: 1,
    seed: 7,
    limits: { maxToolCalls: env.maxToolCalls, maxNewTokens: TURN_TOKENS * 4 },
  });
  const byId = new Map(qas.map((q) => [q.id, q]));
  return { step, backend: report.chosen, model, tok, episodes: trajs.map((trajectory) => ({ qa: byId.get(trajectory.qa_id)!, trajectory })) };
}
