// The RL stage's shared state (rl-job.ts has the stage itself): made once when the stage opens and handed to
// each part (the question pool, the rollouts, the update, the record) instead of a dozen loose arguments.
// It holds the run, the RL config, the optimiser and its schedule, and where the stage is: the last
// completed step and the policy version (how many updates the weights have had).
import { rmSync } from 'node:fs';
import { LabError } from '../../base/errors';
import type { RlConfig } from '../../contract/run-config';
import type { AdamW } from '../../model/optim';
import type { Replicas } from '../../model/replicas';
import { createOptimizer, resolveTrainConfig, type TrainConfig } from '../../model/train';
import { rolloutSteps, rolloutsFile } from '../../runs/layout';
import type { TrainRun } from '../policy/run';
import type { PgWork } from './rl-update';

/** Where the RL stage starts: after SFT, or inside RL when resuming. */
export interface RlStart {
  /** The run's last completed step: SFT's last step, or the RL checkpoint being resumed. */
  step: number;
  /** Steps before the RL stage (SFT's steps; 0 for a run from init.checkpoint). RL step k is step baseStep + k. */
  baseStep: number;
  /** When resuming inside the RL stage: the checkpoint's optimiser and policy version. */
  resumed: { opt: AdamW | null; version: number } | null;
  /** The checkpoint RL starts from, `<run>/<step>`: the lineage parent of every RL checkpoint. */
  parent: string;
}

export interface RlStage {
  run: TrainRun;
  rl: RlConfig;
  trainCfg: TrainConfig;
  opt: AdamW;
  /** The tokenizer's padding id, for packing update batches. */
  pad: number;
  /** The stage made `opt` (and disposes of it at the end) rather than taking the resumed checkpoint's. */
  ownOpt: boolean;
  baseStep: number;
  /** The global step the stage ends at. */
  lastStep: number;
  parent: string;
  /** The run's last completed step. */
  step: number;
  /** The policy version: updates made so far (a resumed stage continues the checkpoint's count). */
  version: number;
  /** Which weights a version is, as a trajectory's `policy` (policyName). */
  versionNames: Map<number, string>;
  /** The update's data-parallel replica threads (rl-job starts them as SFT does; none on one thread). */
  replicas?: Replicas<PgWork>;
  /** Set when the stage ends: async rollouts still running stop at their next turn. */
  stopped: boolean;
}

/** The stage's state at `start`: its optimiser (fresh after SFT, or the checkpoint's) and schedule. */
export function openStage(run: TrainRun, start: RlStart): RlStage {
  const { ctx, runId, config, model } = run;
  if (!config.rl) throw new LabError('bad_request', 'runRlStage needs config.rl');
  const rl = config.rl;
  const trainCfg = resolveTrainConfig({
    lr: rl.lr,
    minLr: rl.schedule === 'cosine' ? rl.lr / 10 : rl.lr,
    warmupSteps: rl.warmupSteps,
    decaySteps: rl.steps * rl.updatesPerBatch,
    maxSteps: rl.steps * rl.updatesPerBatch,
    weightDecay: rl.weightDecay,
    gradClip: rl.gradClip,
    batchSize: rl.batchQuestions * rl.groupSize,
    seqLen: model.config.blockSize,
    seed: config.rng,
  });
  const version = start.resumed?.version ?? 0;
  const { step, baseStep } = start;
  // Which weights a policy version is: the starting checkpoint, then the weights after the step whose
  // update made the version (named like a checkpoint even when none was saved there).
  const versionNames = new Map<number, string>([[version, start.resumed ? `ckpt:${runId}/${step}` : `ckpt:${start.parent}`]]);
  // A kill loses the steps after the last checkpoint: their rollouts files go too.
  for (const s of rolloutSteps(ctx.home, runId)) if (s > step) rmSync(rolloutsFile(ctx.home, runId, s), { force: true });
  if (step > baseStep) ctx.log(`RL: resumed at step ${step} (RL step ${step - baseStep} of ${rl.steps}), policy version ${version}`);
  return {
    run,
    rl,
    trainCfg,
    opt: start.resumed?.opt ?? createOptimizer(model, trainCfg),
    pad: run.tok.special('<|pad|>'),
    ownOpt: !start.resumed?.opt,
    baseStep,
    lastStep: baseStep + rl.steps,
    parent: start.parent,
    step,
    version,
    versionNames,
    stopped: false,
  };
}

/** The `policy` of a trajectory sampled under version v. */
export function policyName(stage: RlStage, v: number): string {
  return stage.versionNames.get(v) ?? `ckpt:${stage.run.runId}/${stage.step}`;
}

/** The progress bar at a global step, with a message (and a done/total count when there is one). */
export function progress(stage: RlStage, step: number, message: string, done?: number, total?: number): void {
  stage.run.ctx.progress({ fraction: stage.run.fraction(step), message, ...(done !== undefined ? { done, total } : {}) });
}
