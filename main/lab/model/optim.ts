// AdamW, the learning-rate schedule and global-norm clipping, over a named map of tf.Variables.
//
// AdamW is PyTorch's (decoupled weight decay, Loshchilov & Hutter):
//   p <- p * (1 - lr * wd)                         only for decayed parameters
//   m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2
//   p <- p - (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
// Weight decay applies to matmul weights only (2-D, not the embeddings): decaying layer-norm gains and
// biases pulls them towards 0 for no regularisation benefit, and decaying the token/position embeddings
// (which for a tied model is also the output head) shrinks rare tokens' rows that get few gradient updates.
// nanoGPT decays every 2-D tensor including embeddings; we follow the more common "no decay on embeddings".
//
// The state (m, v per parameter and the step count) is kept in tf.Variables and can be read out and put back
// exactly (Float32Arrays), which is what checkpoints store.
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../errors';

export interface AdamWOptions {
  beta1?: number;
  beta2?: number;
  eps?: number;
  weightDecay?: number;
  /** Which parameters get weight decay (default: rank 2 and not named wte/wpe). */
  decay?: (name: string, v: tf.Variable) => boolean;
}

export interface AdamWState {
  /** Number of updates applied so far. */
  step: number;
  m: Map<string, Float32Array>;
  v: Map<string, Float32Array>;
}

export function defaultDecay(name: string, v: tf.Variable): boolean {
  return v.rank === 2 && name !== 'wte' && name !== 'wpe';
}

export class AdamW {
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weightDecay: number;
  /** Number of updates applied so far (t in the formulas is step + 1 during an update). */
  step = 0;
  private readonly m = new Map<string, tf.Variable>();
  private readonly v = new Map<string, tf.Variable>();
  private readonly decayed = new Set<string>();

  constructor(
    readonly params: Map<string, tf.Variable>,
    opts: AdamWOptions = {},
  ) {
    this.beta1 = opts.beta1 ?? 0.9;
    this.beta2 = opts.beta2 ?? 0.95;
    this.eps = opts.eps ?? 1e-8;
    this.weightDecay = opts.weightDecay ?? 0.1;
    const decay = opts.decay ?? defaultDecay;
    for (const [name, p] of params) {
      for (const state of [this.m, this.v]) {
        const zeros = tf.zerosLike(p);
        state.set(name, tf.variable(zeros, false));
        zeros.dispose(); // the variable holds its own reference
      }
      if (decay(name, p)) this.decayed.add(name);
    }
  }

  /** Names of parameters that get weight decay. */
  get decayedNames(): ReadonlySet<string> {
    return this.decayed;
  }

  /** One update with these gradients (by parameter name; a missing gradient leaves that parameter as is). Call inside tf.tidy. */
  apply(grads: ReadonlyMap<string, tf.Tensor>, lr: number): void {
    const t = this.step + 1;
    const bc1 = 1 - Math.pow(this.beta1, t);
    const bc2 = 1 - Math.pow(this.beta2, t);
    const stepSize = lr / bc1;
    const sqrtBc2 = Math.sqrt(bc2);
    for (const [name, p] of this.params) {
      const g = grads.get(name);
      if (!g) continue;
      const m = this.m.get(name)!;
      const v = this.v.get(name)!;
      const m1 = tf.add(tf.mul(m, this.beta1), tf.mul(g, 1 - this.beta1));
      const v1 = tf.add(tf.mul(v, this.beta2), tf.mul(tf.square(g), 1 - this.beta2));
      m.assign(m1);
      v.assign(v1);
      const p0 = this.decayed.has(name) && this.weightDecay > 0 ? tf.mul(p, 1 - lr * this.weightDecay) : p;
      const denom = tf.add(tf.div(tf.sqrt(v1), sqrtBc2), this.eps);
      p.assign(tf.sub(p0, tf.mul(tf.div(m1, denom), stepSize)));
    }
    this.step = t;
  }

  /** A copy of the state (reads the tensors). */
  async getState(): Promise<AdamWState> {
    const m = new Map<string, Float32Array>();
    const v = new Map<string, Float32Array>();
    for (const name of this.params.keys()) {
      // slice(): on cpu, data() may hand out the backing store itself.
      m.set(name, ((await this.m.get(name)!.data()) as Float32Array).slice());
      v.set(name, ((await this.v.get(name)!.data()) as Float32Array).slice());
    }
    return { step: this.step, m, v };
  }

  /** Restores a state saved by getState (sizes checked). */
  setState(state: AdamWState): void {
    for (const [name, p] of this.params) {
      for (const [which, src, dst] of [['m', state.m, this.m], ['v', state.v, this.v]] as const) {
        const data = src.get(name);
        if (!data) throw new LabError('bad_input', `optimiser state has no ${which} for parameter ${name}`);
        if (data.length !== p.size) throw new LabError('bad_input', `optimiser ${which} for ${name} has ${data.length} values, parameter has ${p.size}`);
        tf.tidy(() => dst.get(name)!.assign(tf.tensor(data, p.shape, 'float32')));
      }
    }
    this.step = state.step;
  }

  dispose(): void {
    for (const x of this.m.values()) x.dispose();
    for (const x of this.v.values()) x.dispose();
    this.m.clear();
    this.v.clear();
  }
}

export interface LrSchedule {
  /** Peak learning rate (reached at the end of warm-up). */
  lr: number;
  /** Floor of the cosine decay. */
  minLr: number;
  warmupSteps: number;
  /** Step at which the cosine reaches minLr (nanoGPT's lr_decay_iters); minLr afterwards. */
  decaySteps: number;
}

/**
 * Learning rate at a 0-based step: linear warm-up lr * (step + 1) / (warmupSteps + 1), then cosine from lr to
 * minLr between warmupSteps and decaySteps, then minLr (nanoGPT's get_lr). Pure.
 */
export function lrAt(step: number, s: LrSchedule): number {
  if (step < s.warmupSteps) return (s.lr * (step + 1)) / (s.warmupSteps + 1);
  if (step >= s.decaySteps || s.decaySteps <= s.warmupSteps) return s.minLr;
  const ratio = (step - s.warmupSteps) / (s.decaySteps - s.warmupSteps);
  const coeff = 0.5 * (1 + Math.cos(Math.PI * ratio));
  return s.minLr + coeff * (s.lr - s.minLr);
}

/**
 * Scales gradients so their global L2 norm is at most maxNorm (no-op when it already is, or maxNorm <= 0 /
 * Infinity) and returns the pre-clip norm as a scalar tensor (read it together with the loss: one sync).
 * Call inside tf.tidy.
 */
export function clipByGlobalNorm(grads: ReadonlyMap<string, tf.Tensor>, maxNorm: number): { grads: Map<string, tf.Tensor>; norm: tf.Scalar } {
  const squares = [...grads.values()].map((g) => tf.sum(tf.square(g)));
  const norm = tf.sqrt(squares.length ? tf.addN(squares) : tf.scalar(0)) as tf.Scalar;
  if (!(maxNorm > 0) || maxNorm === Infinity) return { grads: new Map(grads), norm };
  const scale = tf.minimum(1, tf.div(maxNorm, tf.add(norm, 1e-6)));
  const out = new Map<string, tf.Tensor>();
  for (const [name, g] of grads) out.set(name, tf.mul(g, scale));
  return { grads: out, norm };
}
