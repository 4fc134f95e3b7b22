// One optimiser step, gpt-tfjs style: everything inside tf.tidy, gradients clipped by global norm, the loss
// (and the gradient norm with it) read once, then an await of a zero-delay timer so the event loop (IPC,
// progress events, cancellation) runs between steps. The run loop (evaluation, logging, checkpoints) lives
// with the caller; this module is the part that can be tested alone.
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../base/errors';
import { paramSpecs, type GPT } from './gpt';
import { loss } from './logprobs';
import { maskedFraction, repetitionCandidates, splitBatch, type Batch } from './mask';
import type { Replicas } from './replicas';
import { AdamW, clipByGlobalNorm, clipScale, lrAt, type LrSchedule } from './optim';

export interface TrainConfig extends LrSchedule {
  /** Total optimiser steps of the run. */
  maxSteps: number;
  weightDecay: number;
  beta1: number;
  beta2: number;
  eps: number;
  /** Max global gradient norm (0 = no clipping). */
  gradClip: number;
  /** Sequences per step. */
  batchSize: number;
  /** Positions per sequence (default: the model's blockSize). */
  seqLen: number | null;
  /** Seed of everything random in the run (data order, dropout). */
  seed: number;
}

/**
 * Defaults for training the `tiny` preset from scratch on CPU (nanoGPT shakespeare-char's regime: a small model
 * tolerates a high rate). The papers' rates (5e-6 SFT, 1e-6 RL) are for fine-tuning 7B+ models, not this.
 */
export const TRAIN_DEFAULTS: TrainConfig = {
  lr: 1e-3,
  minLr: 1e-4,
  warmupSteps: 100,
  decaySteps: 2000,
  maxSteps: 2000,
  weightDecay: 0.1,
  beta1: 0.9,
  beta2: 0.95,
  eps: 1e-8,
  gradClip: 1.0,
  batchSize: 8,
  seqLen: null,
  seed: 1337,
};

/** Defaults <- overrides, merged once and validated; the result is saved in every checkpoint. */
export function resolveTrainConfig(overrides: Partial<TrainConfig> = {}): TrainConfig {
  const cfg: TrainConfig = { ...TRAIN_DEFAULTS, ...overrides };
  const nonNeg = ['lr', 'minLr', 'warmupSteps', 'decaySteps', 'maxSteps', 'weightDecay', 'eps', 'gradClip'] as const;
  for (const k of nonNeg) if (!(Number.isFinite(cfg[k]) && cfg[k] >= 0)) throw new LabError('bad_request', `train config ${k} must be a finite number >= 0, got ${cfg[k]}`);
  for (const k of ['beta1', 'beta2'] as const) if (!(cfg[k] >= 0 && cfg[k] < 1)) throw new LabError('bad_request', `train config ${k} must be in [0, 1), got ${cfg[k]}`);
  if (!(Number.isInteger(cfg.batchSize) && cfg.batchSize > 0)) throw new LabError('bad_request', `batchSize must be a positive integer, got ${cfg.batchSize}`);
  if (cfg.seqLen !== null && !(Number.isInteger(cfg.seqLen) && cfg.seqLen > 0)) throw new LabError('bad_request', `seqLen must be a positive integer or null, got ${cfg.seqLen}`);
  if (!Number.isInteger(cfg.seed)) throw new LabError('bad_request', `seed must be an integer, got ${cfg.seed}`);
  return cfg;
}

/** AdamW over the model's weights with this config; weight decay on the matmul weights only (see optim.ts). */
export function createOptimizer(model: GPT, cfg: TrainConfig): AdamW {
  const decayed = new Set(paramSpecs(model.config).filter((s) => s.decay).map((s) => s.name));
  return new AdamW(model.params, {
    beta1: cfg.beta1,
    beta2: cfg.beta2,
    eps: cfg.eps,
    weightDecay: cfg.weightDecay,
    decay: (name) => decayed.has(name),
  });
}

export interface UpdateResult {
  /** The optimiser step this update was (0-based: the value of opt.step before it). */
  step: number;
  loss: number;
  /** Global gradient norm before clipping. */
  gradNorm: number;
  lr: number;
}

export interface StepResult extends UpdateResult {
  /** Real (non-padding) positions processed. */
  tokens: number;
  /** Positions in the loss. */
  lossTokens: number;
  /** 1 - lossTokens / tokens (`sft/masked_frac`). */
  maskedFrac: number;
}

async function yieldToEventLoop(): Promise<void> {
  await new Promise<void>((resolve) => setTimeout(resolve, 0));
}

/**
 * What data-parallel replicas computed for the same step (replicas.ts): the sum of their loss parts and
 * each replica's gradients, flat in paramSpecs order.
 */
export interface PeerGrads {
  loss: number;
  grads: readonly Float32Array[];
}

/**
 * One optimiser step on any scalar loss of the model's weights (SFT here; the RL objectives build their own
 * lossFn and call this too). lossFn runs inside tf.tidy and gets the 0-based step (use it to seed dropout).
 * With `peers`, their gradients and loss parts are added to this thread's before clipping: lossFn is then
 * this thread's share of a batch, normalised by the whole batch's tokens.
 */
export async function updateStep(model: GPT, opt: AdamW, lossFn: (step: number) => tf.Scalar, cfg: TrainConfig, peers?: () => Promise<PeerGrads>): Promise<UpdateResult> {
  const step = opt.step;
  const lr = lrAt(step, cfg);
  const vars = [...model.params.values()];
  // tf.tidy keeps what it returns: the loss and the gradients by variable name.
  const own = tf.tidy(() => tf.variableGrads(() => lossFn(step), vars));
  const ownGrads = Object.values(own.grads);
  let peer: PeerGrads | undefined;
  try {
    peer = await peers?.();
  } catch (err) {
    tf.dispose([own.value, ...ownGrads]);
    throw err;
  }
  if (opt.onHost) {
    const { loss, gradNorm } = hostUpdate(model, opt, own, peer, cfg, lr);
    tf.dispose([own.value, ...ownGrads]);
    await yieldToEventLoop();
    return { step, loss, gradNorm, lr };
  }
  const out = tf.tidy(() => {
    const named = new Map<string, tf.Tensor>();
    let offset = 0; // peers' gradients are flat in paramSpecs order, the order of model.params
    for (const [name, v] of model.params) {
      let g: tf.Tensor | null = own.grads[v.name] ?? null;
      for (const flat of peer?.grads ?? []) {
        const part = tf.tensor(flat.subarray(offset, offset + v.size), v.shape, 'float32');
        g = g ? tf.add(g, part) : part;
      }
      offset += v.size;
      if (g) named.set(name, g);
    }
    const clipped = clipByGlobalNorm(named, cfg.gradClip);
    opt.apply(clipped.grads, lr);
    return tf.stack([peer ? tf.add(own.value, peer.loss) : own.value, clipped.norm]);
  });
  tf.dispose([own.value, ...ownGrads]);
  const [lossValue, gradNorm] = await out.data(); // the one read of the step
  out.dispose();
  await yieldToEventLoop();
  return { step, loss: lossValue!, gradNorm: gradNorm!, lr };
}

/**
 * updateStep's clip and AdamW where tensors live in host memory (AdamW.onHost): this thread's gradients and
 * the peers' added, the global norm and AdamW in one pass over host arrays, a few milliseconds where tf ops
 * took 550 small kernels. Same math as the tf ops path up to float rounding (sums in double precision).
 */
function hostUpdate(
  model: GPT, opt: AdamW, own: { value: tf.Scalar; grads: tf.NamedTensorMap }, peer: PeerGrads | undefined, cfg: TrainConfig, lr: number,
): { loss: number; gradNorm: number } {
  const grads = new Map<string, Float32Array>();
  let offset = 0; // peers' gradients are flat in paramSpecs order, the order of model.params
  let squares = 0;
  for (const [name, v] of model.params) {
    const mine = own.grads[v.name];
    let g = mine ? Float32Array.from(mine.dataSync() as Float32Array) : null;
    for (const flat of peer?.grads ?? []) {
      const part = flat.subarray(offset, offset + v.size);
      if (!g) g = Float32Array.from(part);
      else for (let i = 0; i < g.length; i++) g[i]! += part[i]!;
    }
    offset += v.size;
    if (!g) continue;
    for (let i = 0; i < g.length; i++) squares += g[i]! * g[i]!;
    grads.set(name, g);
  }
  const gradNorm = Math.sqrt(squares);
  opt.applyHost(grads, lr, clipScale(gradNorm, cfg.gradClip));
  return { loss: own.value.dataSync()[0]! + (peer?.loss ?? 0), gradNorm };
}

/** The SFT loss of a batch (or of a share of one, normalised by the whole batch's `lossTokens`). Call inside tf.tidy. */
export function batchLoss(model: GPT, batch: Batch, step: number, cfg: Pick<TrainConfig, 'seed'>, lossTokens = batch.lossTokens): tf.Scalar {
  const { batchSize: B, seqLen: T } = batch;
  const ids = tf.tensor2d(batch.ids, [B, T], 'int32');
  const targets = tf.tensor2d(batch.targets, [B, T], 'int32');
  const mask = tf.tensor2d(batch.mask, [B, T], 'float32');
  const ul = batch.unlikelihood && batch.unlikelihood.weight > 0 ? { weight: batch.unlikelihood.weight, ...repetitionCandidates(batch, batch.unlikelihood.window) } : undefined;
  return loss(model, ids, targets, mask, { training: true, seed: cfg.seed + step }, lossTokens, ul);
}

function checkBatch(batch: Batch): void {
  const { batchSize: B, seqLen: T } = batch;
  if (batch.ids.length !== B * T || batch.targets.length !== B * T || batch.mask.length !== B * T) {
    throw new LabError('bad_request', `batch arrays must all have batchSize * seqLen = ${B * T} entries`);
  }
}

/**
 * One SFT step on a batch: masked next-token cross-entropy (see gpt.loss), clipped, AdamW. With `replicas`
 * the batch is shared out among this thread and the replicas' threads (replicas.ts).
 */
export async function trainStep(model: GPT, opt: AdamW, batch: Batch, cfg: TrainConfig, replicas?: Replicas): Promise<StepResult> {
  checkBatch(batch);
  const stats = { tokens: batch.realTokens, lossTokens: batch.lossTokens, maskedFrac: maskedFraction(batch) };
  if (!replicas || replicas.size === 0) return { ...(await updateStep(model, opt, (step) => batchLoss(model, batch, step, cfg), cfg)), ...stats };
  const [own, ...rest] = splitBatch(batch, replicas.size + 1);
  const peers = replicas.start(model, rest.map((b) => (b.batchSize > 0 ? { batch: b, seed: cfg.seed, lossTokens: batch.lossTokens } : null)), opt.step);
  return { ...(await updateStep(model, opt, (step) => batchLoss(model, own!, step, cfg, batch.lossTokens), cfg, () => peers)), ...stats };
}

/** The flat metrics record of an SFT step, with the names of docs/formats.md, 'Runs and the data directory'. */
export function sftMetrics(r: StepResult, seconds?: number): Record<string, number> {
  const m: Record<string, number> = {
    'sft/loss': r.loss,
    'sft/masked_frac': r.maskedFrac,
    'actor/grad_norm': r.gradNorm,
    'actor/lr': r.lr,
  };
  if (seconds !== undefined && seconds > 0) m['perf/tokens_per_s'] = r.tokens / seconds;
  return m;
}
