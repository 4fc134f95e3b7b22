// The `train` job: one training run from its config, read top to bottom as phases (nanoGPT's train.py shape),
// each returning a typed record the next takes:
//   1. data       RunData: graph, training, RL and held-out QAs, the compact simulated web (data-phase.ts)
//   2. RFT        the expert's rollouts (or a policy's own samples, plus renamed episodes), then
//   3. filter     rejection sampling -> RftData, data/rft.jsonl (rft-phase.ts; made once, kept across resumes)
//   4. SFT data   SftData: the tokenizer (data/tokenizer.json) and the training and validation windows (sft-data.ts)
//   5. SFT        TrainState (model, optimiser, generator, step) from a fresh model, init.checkpoint's or the
//                 base model's weights, or the last checkpoint when resuming; masked SFT steps (sft-phase.ts),
//                 every `eval.every` the evaluation phase (held-out loss and rollouts, eval-phase.ts), every
//                 `checkpoint.every` and at the end a checkpoint. Metrics stream per step.
//   6. relabel    with a `relabel` section: DAgger rounds (train/sft/relabel-stage.ts) from the last SFT weights
//   7. RL         with an `rl` section: the RL stage (train/rl-stage/rl-job.ts) from the last SFT weights, steps N+1..N+M.
// With `init.checkpoint` the checkpoint's tokenizer replaces the trained one and its weights the fresh model;
// with 0 SFT steps (the default then) phases 2-6 are skipped and the checkpoint goes straight to RL.
// A kill at any moment loses at most the steps since the last checkpoint: resuming truncates the metrics
// stream to that step and continues the same RNG sequence, so steps stay continuous.
import { LabError } from '../../base/errors';
import { readJsonFile } from '../../store/files';
import { selectBackend } from '../../model/backend';
import { disposeModel } from '../../model/gpt';
import { defaultWorkers, Replicas } from '../../model/replicas';
import { loadCheckpoint } from '../../model/checkpoint';
import { parseRunConfig, relabelSteps, type RunConfig } from '../../contract/run-config';
import { checkpointRef, runFile } from '../../runs/layout';
import { trainParams } from '../../contract/jobs';
import type { JobContext } from '../../jobs/context';
import { STARTS_OVER } from '../../runs/metrics';
import { runRelabelStage } from '../sft/relabel-stage';
import { runRlStage } from '../rl-stage/rl-job';
import { openRunMetrics, stepFraction, type TrainHooks, type TrainRun } from '../policy/run';
import { rftExpert } from '../policy/rft-expert';
import { loadNewestVerifiedCheckpoint } from '../policy/checkpoints';
import { freshModelConfig, modelStart, startsFresh } from '../policy/base-model';
import { evalsBy, openRunClock, runPlanCounts, timedContext, type RunClock } from '../policy/run-clock';
import { loadRunData, type RunData, type RunInputs } from './data-phase';
import { rftPhase } from './rft-phase';
import { sftData, type SftData } from './sft-data';
import { sftPhase, sftTrainConfig, startingWeights, trainState, type TrainState } from './sft-phase';

export type { TrainHooks } from '../policy/run';

export async function runTrain(raw: unknown, jobCtx: JobContext, hooks: TrainHooks = {}): Promise<{ runId: string; step: number }> {
  const { runId, resume } = trainParams.parse(raw);
  const stored = readJsonFile(runFile(jobCtx.home, runId)) as { config: unknown };
  const config = parseRunConfig(stored.config, `${runId}/run.json`);
  const origin = modelStart(config, jobCtx.home); // a missing base model fails now, not after the RFT data
  if (origin.kind === 'scratch') freshModelConfig(config.model, config.tokenizer.vocabSize); // so does a bad model shape

  const { report } = await selectBackend(config.backend === 'auto' ? {} : { only: [config.backend] });
  jobCtx.log(`compute backend: ${report.chosen}`);

  // ---- 1. data
  const data = loadRunData(jobCtx.home, config);
  // The progress bar and time left over every stage, by measured time (run-clock.ts).
  // Relabeling's steps are SFT steps to the clock (their rollouts are a few seconds a round).
  const planned = config.relabel ? { ...config, sft: { ...config.sft, steps: config.sft.steps + relabelSteps(config) } } : config;
  const counts = { train: data.trainQas.length, heldOut: data.heldOut.length, rl: data.rlQas.length };
  const clock = openRunClock(jobCtx.home, runId, planned, runPlanCounts(config, counts, startsFresh(config)));
  const ctx = timedContext(jobCtx, clock);
  const expert = rftExpert(config.rft.style, data.graph); // the RFT data's expert, and each level's ceiling in evaluations
  const { rlQas, heldOut, tools, limits } = data;
  const inputs: RunInputs = { ctx, runId, config, rlQas, heldOut, tools, limits, hooks, expert, clock };
  // Relabeling trains on the RFT rows too: a run from a checkpoint that relabels makes them.
  if (origin.kind === 'checkpoint' && config.sft.steps === 0 && !config.relabel) return runFromCheckpoint(inputs, resume, origin);
  // The bar is the share of the run's steps done (SFT and RL), as the dashboard counts them.
  const sftEnd = config.sft.steps + relabelSteps(config); // SFT's steps, then relabeling's
  const totalSteps = sftEnd + (config.rl?.steps ?? 0);

  // ---- 2, 3. RFT data; 4. SFT data; 5. the model's state
  const rft = await rftPhase(inputs, data, expert);
  const weights = await startingWeights(inputs, origin, resume);
  const sft = sftData(inputs, data, rft, origin, weights.start);
  const trainCfg = sftTrainConfig(config, sft.gptConfig.blockSize);
  const state = trainState(inputs, weights, origin, sft, trainCfg, sftEnd);
  const metrics = openRunMetrics(ctx, runId, weights.resumed ? state.step : STARTS_OVER);
  if (state.step > 0) resumedOnClock(clock, config, state.step, heldOut.length);
  const run: TrainRun = { ...inputs, model: state.model, tok: sft.tok, emit: clockedEmit(metrics.emit, clock, sftEnd), fraction: (s) => stepFraction(s, totalSteps) };
  if (state.step === 0) run.emit(0, sft.startMetrics);

  const workers = config.workers === 'auto' ? defaultWorkers(report.chosen, config.sft.batchSize) : config.workers;
  const replicas = state.step < sftEnd && workers > 1 ? await Replicas.start(state.model, workers - 1) : undefined;
  if (replicas) ctx.log(`SFT on ${workers} threads (data-parallel, ${report.chosen})`);
  try {
    // ---- 5. SFT
    await sftPhase(run, state, sft, trainCfg, replicas);
    // ---- 6. relabeling (DAgger) from the last SFT weights, with its own optimiser (or the resumed round's)
    if (config.relabel && state.step < sftEnd) await relabelPhase(run, state, data, sft, replicas);
    await replicas?.close(); // their threads are idle from here on
    // ---- 7. RL from the last SFT weights (or from the RL checkpoint being resumed)
    if (config.rl && state.step < totalSteps) await rlPhase(run, state, sftEnd);
  } finally {
    await replicas?.close();
    await run.acting?.close();
    metrics.close();
    disposeModel(state.model);
    state.opt.dispose();
  }
  return { runId, step: state.step };
}

/** Relabeling's rounds; a fresh stage gets its own optimiser (SFT's is disposed), a resumed one keeps the checkpoint's. */
async function relabelPhase(run: TrainRun, state: TrainState, data: RunData, sft: SftData, replicas: Replicas | undefined): Promise<void> {
  const inStage = state.step > run.config.sft.steps;
  if (!inStage) state.opt.dispose();
  const names = new Map(data.graph.nodes.map((n) => [n.id, n.name]));
  const start = { step: state.step, rftRows: sft.trainWindows, trainQas: data.trainQas, opt: inStage ? state.opt : undefined, replicas, anchorName: (id: string) => names.get(id) };
  state.step = await runRelabelStage(run, start);
}

/** The RL stage; it has its own optimiser (rate, no weight decay): SFT's moments are not reused, a resumed RL stage's are. */
async function rlPhase(run: TrainRun, state: TrainState, sftEnd: number): Promise<void> {
  const inRl = state.step > sftEnd;
  if (!inRl) state.opt.dispose();
  const resumed = inRl ? { opt: state.opt, version: state.rlVersion } : null;
  ({ step: state.step } = await runRlStage(run, { step: state.step, baseStep: sftEnd, resumed, parent: checkpointRef(run.runId, sftEnd) }));
}

/** A step's metrics go to the clock too (its SFT and RL step times). */
function clockedEmit(emit: TrainRun['emit'], clock: RunClock | undefined, sftSteps: number): TrainRun['emit'] {
  return (s, m) => {
    clock?.record(s, sftSteps, m);
    emit(s, m);
  };
}

/** A resumed run's steps and evaluations before `step`, on the clock as done but untimed. */
function resumedOnClock(clock: RunClock | undefined, config: RunConfig, step: number, heldOut: number): void {
  clock?.skip('sft', Math.min(step, config.sft.steps));
  if (step > config.sft.steps) clock?.skip('rl', step - config.sft.steps);
  clock?.skip('eval', evalsBy(config, step) * heldOut * config.eval.samples);
}

/**
 * An RL-only run (`init.checkpoint`): the checkpoint's weights and tokenizer, no RFT data, tokenizer training
 * or SFT; RL steps are 1..M. Resuming continues from this run's own last checkpoint.
 */
async function runFromCheckpoint(inputs: RunInputs, resume: boolean, init: { dir: string; ref: string }): Promise<{ runId: string; step: number }> {
  const { ctx, runId, config } = inputs;
  const parent = init.ref;
  const resumed = resume ? await loadNewestVerifiedCheckpoint(ctx.home, runId, (m) => ctx.log(m)) : undefined;
  const last = resumed?.step;
  const loaded = resumed?.loaded ?? (await loadCheckpoint(init.dir));
  if (!loaded.tokenizer) throw new LabError('corrupt', `checkpoint ${last !== undefined ? checkpointRef(runId, last) : parent} has no tokenizer`);
  const step = last ?? 0;
  ctx.log(last !== undefined ? `resumed from step ${step}` : `RL from checkpoint ${parent}`);
  const metrics = openRunMetrics(ctx, runId, last ?? STARTS_OVER);
  const total = config.rl!.steps;
  const fraction = (s: number): number => stepFraction(s, total);
  if (step > 0) resumedOnClock(inputs.clock, config, step, inputs.heldOut.length);
  const run: TrainRun = { ...inputs, model: loaded.model, tok: loaded.tokenizer, emit: clockedEmit(metrics.emit, inputs.clock, 0), fraction };
  try {
    const resumedRl = last !== undefined ? { opt: loaded.optimizer, version: loaded.manifest.metrics['rl/policy_version'] ?? last } : null;
    const r = await runRlStage(run, { step, baseStep: 0, resumed: resumedRl, parent });
    return { runId, step: r.step };
  } finally {
    await run.acting?.close();
    metrics.close();
    disposeModel(loaded.model);
    loaded.optimizer?.dispose();
  }
}
