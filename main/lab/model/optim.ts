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
// The state (m, v per parameter and the step count) can be read out and put back exactly (Float32Arrays),
// which is what checkpoints store. Where tensors live in host memory (the wasm and cpu backends) the state is
// host arrays and an update is one pass of adamwUpdate per parameter: as tf ops it was about twelve kernels
// per parameter (400 a step for `tiny`), run by one thread while data-parallel replicas wait. Elsewhere
// (tfjs-node, a GPU) the state stays in tf.Variables on the device and the update is tf ops.
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../base/errors';

export interface AdamWOptions {
  beta1?: number;
  beta2?: number;
  eps?: number;
  weightDecay?: number;
  /** Which parameters get weight decay (default: rank 2 and not named wte/wpe). */
  decay?: (name: string, v: tf.Variable) => boolean;
  /** Keep the state in host arrays (default: where the active backend keeps tensors in host memory). */
  host?: boolean;
}

/** Backends whose tensors live in host memory: reading them is a copy, not a device transfer. */
const HOST_BACKENDS = new Set(['wasm', 'cpu']);

export interface AdamWHyper {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  /** lr * weight decay for a decayed parameter, else 0. */
  decayRate: number;
  /** The update's t (1 for the first). */
  t: number;
  /** Factor on the gradient first (global-norm clipping). */
  gradScale: number;
}

/** One AdamW update of parameter values p in place, with its moments m and v, from gradient g. Pure. */
export function adamwUpdate(p: Float32Array, g: ArrayLike<number>, m: Float32Array, v: Float32Array, h: AdamWHyper): void {
  const stepSize = h.lr / (1 - Math.pow(h.beta1, h.t));
  const sqrtBc2 = Math.sqrt(1 - Math.pow(h.beta2, h.t));
  const shrink = 1 - h.decayRate;
  for (let i = 0; i < p.length; i++) {
    const gi = g[i]! * h.gradScale;
    const mi = h.beta1 * m[i]! + (1 - h.beta1) * gi;
    const vi = h.beta2 * v[i]! + (1 - h.beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] = p[i]! * shrink - (mi / (Math.sqrt(vi) / sqrtBc2 + h.eps)) * stepSize;
  }
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
  /** The state is in host arrays (hostM, hostV), not tf.Variables (see the notes at the top). */
  readonly onHost: boolean;
  private readonly m = new Map<string, tf.Variable>();
  private readonly v = new Map<string, tf.Variable>();
  private readonly hostM = new Map<string, Float32Array>();
  private readonly hostV = new Map<string, Float32Array>();
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
    this.onHost = opts.host ?? HOST_BACKENDS.has(tf.getBackend());
    for (const [name, p] of params) {
      if (this.onHost) {
        this.hostM.set(name, new Float32Array(p.size));
        this.hostV.set(name, new Float32Array(p.size));
      } else {
        for (const state of [this.m, this.v]) {
          const zeros = tf.zerosLike(p);
          state.set(name, tf.variable(zeros, false));
          zeros.dispose(); // the variable holds its own reference
        }
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
    if (this.onHost) {
      this.applyHost(new Map([...grads].map(([name, g]) => [name, g.dataSync() as Float32Array])), lr, 1);
      return;
    }
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

  /**
   * One update from host gradients (by parameter name), each scaled by gradScale first; needs onHost. The
   * parameters are read, updated in host memory and assigned back.
   */
  applyHost(grads: ReadonlyMap<string, ArrayLike<number>>, lr: number, gradScale: number): void {
    if (!this.onHost) throw new LabError('internal', 'AdamW.applyHost needs the optimiser state on the host');
    const t = this.step + 1;
    for (const [name, p] of this.params) {
      const g = grads.get(name);
      if (!g) continue;
      const values = Float32Array.from(p.dataSync() as Float32Array); // a copy: cpu may hand out its own store
      const decayRate = this.decayed.has(name) ? lr * this.weightDecay : 0;
      adamwUpdate(values, g, this.hostM.get(name)!, this.hostV.get(name)!, { lr, beta1: this.beta1, beta2: this.beta2, eps: this.eps, decayRate, t, gradScale });
      tf.tidy(() => p.assign(tf.tensor(values, p.shape, 'float32')));
    }
    this.step = t;
  }

  /** A copy of the state (reads the tensors). */
  async getState(): Promise<AdamWState> {
    const m = new Map<string, Float32Array>();
    const v = new Map<string, Float32Array>();
    if (this.onHost) {
      for (const name of this.params.keys()) {
        m.set(name, this.hostM.get(name)!.slice());
        v.set(name, this.hostV.get(name)!.slice());
      }
      return { step: this.step, m, v };
    }
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
        if (this.onHost) (which === 'm' ? this.hostM : this.hostV).set(name, Float32Array.from(data));
        else tf.tidy(() => dst.get(name)!.assign(tf.tensor(data, p.shape, 'float32')));
      }
    }
    this.step = state.step;
  }

  dispose(): void {
    for (const x of this.m.values()) x.dispose();
    for (const x of this.v.values()) x.dispose();
    this.m.clear();
    this.v.clear();
    this.hostM.clear();
    this.hostV.clear();
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

/** Whether a global-norm limit clips at all (0, a negative or an infinite limit does not). Pure. */
export const clips = (maxNorm: number): boolean => maxNorm > 0 && maxNorm !== Infinity;

/** The factor clipping puts on gradients of global norm `norm` (1 when they are within maxNorm). Pure. */
export function clipScale(norm: number, maxNorm: number): number {
  return clips(maxNorm) ? Math.min(1, maxNorm / (norm + 1e-6)) : 1;
}

/**
 * Scales gradients so their global L2 norm is at most maxNorm (no-op when it already is, or maxNorm <= 0 /
 * Infinity) and returns the pre-clip norm as a scalar tensor (read it together with the loss: one sync).
 * Call inside tf.tidy.
 */
export function clipByGlobalNorm(grads: ReadonlyMap<string, tf.Tensor>, maxNorm: number): { grads: Map<string, tf.Tensor>; norm: tf.Scalar } {
  const squares = [...grads.values()].map((g) => tf.sum(tf.square(g)));
  const norm = tf.sqrt(squares.length ? tf.addN(squares) : tf.scalar(0)) as tf.Scalar;
  if (!clips(maxNorm)) return { grads: new Map(grads), norm };
  const scale = tf.minimum(1, tf.div(maxNorm, tf.add(norm, 1e-6)));
  const out = new Map<string, tf.Tensor>();
  for (const [name, g] of grads) out.set(name, tf.mul(g, scale));
  return { grads: out, norm };
}
