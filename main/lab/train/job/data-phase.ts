// Phase 1 of the train job (train-job.ts): the run's data, read once. The graph, the training, RL and
// held-out questions, the compact simulated web (run config `env`) and its tools, and the limits every
// rollout of the run keeps.
import type { Graph, QA } from '../../formats';
import type { RunConfig } from '../../contract/run-config';
import { readGraphFile } from '../../kg/io';
import { datasetFile, graphFile } from '../../store/layout';
import { readDataset } from '../../synth/dataset';
import { SimWeb, type WebOptions } from '../../agent/web';
import { simToolset } from '../../agent/env';
import type { Toolset } from '../../agent/runtime';
import { runLimits } from '../policy/eval-setup';
import type { TrainRun } from '../policy/run';

export interface RunData {
  graph: Graph;
  /** The SFT set (data.datasetId). */
  trainQas: QA[];
  /** The questions RL draws from (data.rlDatasetId, else the SFT set). */
  rlQas: QA[];
  /** The held-out questions every evaluation asks: the first eval.questions of data.heldOutDatasetId. */
  heldOut: QA[];
  web: SimWeb;
  tools: Toolset;
  limits: TrainRun['limits'];
}

/** What a run is given before it has a model: the job, the run, its data and simulated web (a TrainRun less the model's parts). */
export type RunInputs = Omit<TrainRun, 'model' | 'tok' | 'emit' | 'fraction'>;

/** The simulated web's settings of a run (config.env): the run's own web and the renamed worlds' are alike. */
export function webOptions(config: Pick<RunConfig, 'env'>): Pick<WebOptions, 'topK' | 'snippetChars' | 'maxEvidence'> {
  return { topK: config.env.topK, snippetChars: config.env.snippetChars, maxEvidence: config.env.maxEvidence };
}

export function loadRunData(home: string, config: RunConfig): RunData {
  const graph = readGraphFile(graphFile(home, config.data.graphId));
  const trainQas = readDataset(datasetFile(home, config.data.datasetId)).qas;
  const rlQas = config.data.rlDatasetId === undefined ? trainQas : readDataset(datasetFile(home, config.data.rlDatasetId)).qas;
  const heldOut = readDataset(datasetFile(home, config.data.heldOutDatasetId)).qas.slice(0, config.eval.questions);
  const web = new SimWeb(graph, webOptions(config));
  return { graph, trainQas, rlQas, heldOut, web, tools: simToolset(web), limits: runLimits(config) };
}
