// The SFT phase of the train job (train-job.ts): where the weights start, the state they are trained in, and the
// loop. Masked SFT steps; every `eval.every` the evaluation phase (eval-phase.ts); every `checkpoint.every` and
// at the end a checkpoint. Metrics stream per step.
import { createRng, seedFrom, type Rng } from '../../util/rng';
import { throwIfCancelled } from '../../jobs/context';
import { createModel, type GPT } from '../../model/gpt';
import { fitSeqLen, makeBatch } from '../../model/mask';
import { createOptimizer, resolveTrainConfig, sftMetrics, trainStep, type TrainConfig } from '../../model/train';
import type { AdamW } from '../../model/optim';
import type { Replicas } from '../../model/replicas';
import { loadCheckpoint, saveCheckpoint, type LoadedCheckpoint } from '../../model/checkpoint';
import type { RunConfig } from '../../contract/run-config';
import { checkpointDir } from '../../runs/layout';
import { loadNewestVerifiedCheckpoint } from '../policy/checkpoints';
import type { ModelStart } from '../policy/base-model';
import type { TrainRun } from '../policy/run';
import type { RunInputs } from './data-phase';
import { evaluationPhase } from './eval-phase';
import type { SftData } from './sft-data';

/** The weights a run trains and what trains them, from phase to phase: SFT, relabeling and RL advance `step`. */
export interface TrainState {
  model: GPT;
  opt: AdamW;
  rng: Rng;
  step: number;
  /** The policy version a resumed RL stage continues from (0 before RL). */
  rlVersion: number;
  /** The starting checkpoint's reference (init.checkpoint or the base model), the lineage's parent; null from scratch. */
  initRef: string | null;
}

/** Where the weights start: this run's newest checkpoint when resuming, else the starting checkpoint's (no optimiser state), or none. */
export interface StartingWeights {
  resumed?: { step: number; loaded: LoadedCheckpoint };
  start: LoadedCheckpoint | null;
}

export async function startingWeights(run: RunInputs, origin: ModelStart, resume: boolean): Promise<StartingWeights> {
  const { ctx, runId } = run;
  const resumed = resume ? await loadNewestVerifiedCheckpoint(ctx.home, runId, (m) => ctx.log(m)) : undefined;
  // Weights and tokenizer of init.checkpoint or the base model, needed unless resuming from this run's own checkpoint.
  const start = origin.kind !== 'scratch' && resumed === undefined ? await loadCheckpoint(origin.dir) : null;
  start?.optimizer?.dispose(); // this run has its own AdamW and schedule
  return { resumed, start };
}

/** SFT's optimiser settings and schedule (config.sft) for a model of this context. */
export function sftTrainConfig(config: RunConfig, blockSize: number): TrainConfig {
  return resolveTrainConfig({
    lr: config.sft.lr,
    minLr: config.sft.minLr,
    warmupSteps: config.sft.warmupSteps,
    decaySteps: config.sft.steps,
    maxSteps: config.sft.steps,
    weightDecay: config.sft.weightDecay,
    gradClip: config.sft.gradClip,
    batchSize: config.sft.batchSize,
    seqLen: blockSize,
    seed: config.rng,
  });
}

/** The state a run starts its steps in: the resumed checkpoint's, or a fresh optimiser on the starting or a fresh model. */
export function trainState(run: RunInputs, weights: StartingWeights, origin: ModelStart, sft: SftData, trainCfg: TrainConfig, sftEnd: number): TrainState {
  const { ctx, runId, config } = run;
  const initRef = origin.kind === 'scratch' ? null : origin.ref;
  if (weights.resumed) {
    const { loaded, step: last } = weights.resumed;
    const model = loaded.model;
    const state = {
      model,
      opt: loaded.optimizer ?? createOptimizer(model, trainCfg),
      rng: createRng(loaded.rngState ?? seedFrom(`${runId}/batches/${last}`)),
      step: loaded.step,
      rlVersion: loaded.manifest.metrics['rl/policy_version'] ?? loaded.step - sftEnd,
      initRef,
    };
    ctx.log(`resumed from step ${state.step}`);
    return state;
  }
  const model = weights.start?.model ?? createModel(sft.gptConfig, { seed: config.rng });
  const opt = createOptimizer(model, trainCfg);
  if (initRef) ctx.log(origin.kind === 'base' ? `SFT from the base model (${origin.dir})` : `SFT from checkpoint ${initRef}`);
  return { model, opt, rng: createRng(seedFrom(`${runId}/batches`)), step: 0, rlVersion: 0, initRef };
}

/** SFT steps up to config.sft.steps, each on a batch of windows drawn with the state's generator. */
export async function sftPhase(run: TrainRun, state: TrainState, sft: SftData, trainCfg: TrainConfig, replicas: Replicas | undefined): Promise<void> {
  const { ctx, config } = run;
  while (state.step < config.sft.steps) {
    throwIfCancelled(ctx);
    const t0 = performance.now();
    const picks = Array.from({ length: config.sft.batchSize }, () => sft.trainWindows[state.rng.int(sft.trainWindows.length)]!);
    const batch = makeBatch(picks, fitSeqLen(picks, sft.gptConfig.blockSize), sft.pad);
    if (config.unlikelihood.weight > 0) batch.unlikelihood = config.unlikelihood;
    const r = await trainStep(state.model, state.opt, batch, trainCfg, replicas);
    const step = ++state.step;
    const seconds = (performance.now() - t0) / 1000;
    const m: Record<string, number> = { ...sftMetrics(r, seconds), 'timing/update_s': seconds };
    const evalNow = step % config.eval.every === 0 || step === config.sft.steps;
    if (evalNow) Object.assign(m, await evaluationPhase(run, step, sft));
    run.emit(step, m);
    ctx.progress({ fraction: run.fraction(step), message: `SFT step ${step} of ${config.sft.steps}: loss ${r.loss.toFixed(3)}`, done: step, total: config.sft.steps });
    if (step % config.checkpoint.every === 0 || step === config.sft.steps) await saveSftCheckpoint(run, state, trainCfg, m);
  }
}

/** The state at its step, with the step's metrics: weights, optimiser, tokenizer, generator, lineage. */
async function saveSftCheckpoint(run: TrainRun, state: TrainState, trainCfg: TrainConfig, metrics: Record<string, number>): Promise<void> {
  const { ctx, runId, config } = run;
  const s = state.step;
  await saveCheckpoint(
    checkpointDir(ctx.home, runId, s),
    {
      model: state.model,
      step: s,
      optimizer: state.opt,
      tokenizer: run.tok,
      train: trainCfg,
      rngState: state.rng.state(),
      lineage: { run: runId, dataset: config.data.datasetId, stage: 'sft', parent: state.initRef },
      metrics,
    },
    { overwrite: true },
  );
}
