// Softmax cross-entropy at the targets, fused: one pass over the [tokens, vocab] logits forward (target
// log-prob, entropy and the softmax kept for the backward), one pass backward. On the wasm and cpu backends
// this is two registered kernels over the tensors' memory; elsewhere (tfjs-node) the same values come from
// ordinary tf ops, which are native there.
//
// Why: the logits are the largest tensor of a step (8 x 256 positions x 2048 tokens = 4M values) and
// logSoftmax, its gradient and a one-hot product walked them about ten times (130 ms of a 450 ms step on
// wasm); exp dominates what is left, and this computes it once.
import * as tf from '@tensorflow/tfjs';
import { registerFusedGradient, type KernelIo } from './fused-kernel';

export const XENT = 'SailorSoftmaxXent';
export const XENT_GRAD = 'SailorSoftmaxXentGrad';
/** The logits gradient as rows and transposed (the tied head's two weight products need both). */
export const XENT_GRAD_BOTH = 'SailorSoftmaxXentGradBoth';

/**
 * For each row r of logits [rows, V]: logp[r] = log softmax(row)[targets[r]], entropy[r] = -sum p log p,
 * probs[r] = softmax(row). A target outside [0, V) gets logp 0 (as a one-hot product gives). Pure.
 */
export function softmaxXentRows(logits: ArrayLike<number>, targets: ArrayLike<number>, V: number, logp: Float32Array, entropy: Float32Array, probs: Float32Array): void {
  const rows = targets.length;
  for (let r = 0; r < rows; r++) {
    const o = r * V;
    let max = -Infinity;
    for (let j = 0; j < V; j++) if (logits[o + j]! > max) max = logits[o + j]!;
    let sum = 0;
    let dot = 0; // sum e^(x - max) * (x - max)
    for (let j = 0; j < V; j++) {
      const x = logits[o + j]! - max;
      const e = Math.exp(x);
      probs[o + j] = e;
      sum += e;
      dot += e * x;
    }
    const inv = 1 / sum;
    for (let j = 0; j < V; j++) probs[o + j]! *= inv;
    const logSum = Math.log(sum);
    entropy[r] = logSum - dot * inv;
    const t = targets[r]!;
    logp[r] = t >= 0 && t < V ? logits[o + t]! - max - logSum : 0;
  }
}

/** d logits = dy[r] * (onehot(targets[r]) - probs[r]) per row (0 for a target outside [0, V)). Pure. */
export function softmaxXentGradRows(probs: ArrayLike<number>, targets: ArrayLike<number>, dy: ArrayLike<number>, V: number, out: Float32Array): void {
  const rows = targets.length;
  for (let r = 0; r < rows; r++) {
    const o = r * V;
    const t = targets[r]!;
    if (!(t >= 0 && t < V)) {
      out.fill(0, o, o + V);
      continue;
    }
    const g = -dy[r]!;
    for (let j = 0; j < V; j++) out[o + j] = probs[o + j]! * g;
    out[o + t]! += dy[r]!;
  }
}

type TensorInfo = tf.TensorInfo;

/** simd.wat's exports, instantiated on the wasm backend's memory (addresses in bytes). */
export interface SimdRows {
  softmaxRow(src: number, dst: number, n: number): [number, number, number];
  scaleRow(src: number, dst: number, n: number, s: number): void;
  xentGradBoth(probs: number, targets: number, dy: number, out: number, outT: number, rows: number, V: number): void;
}

function xentKernel(io: KernelIo, simd?: SimdRows): tf.KernelFunc {
  return (({ inputs: { logits, targets }, backend }: { inputs: { logits: TensorInfo; targets: TensorInfo }; backend: unknown }) => {
    const [rows, V] = logits.shape as [number, number];
    const outs = [io.alloc(backend, [rows]), io.alloc(backend, [rows]), io.alloc(backend, [rows, V])] as const;
    const [logp, entropy, probs] = outs.map((t) => io.view(backend, t) as Float32Array) as [Float32Array, Float32Array, Float32Array];
    const x = io.view(backend, logits);
    const t = io.view(backend, targets);
    if (!simd || !io.offset) {
      softmaxXentRows(x, t, V, logp, entropy, probs);
      return [...outs];
    }
    const src = io.offset(backend, logits);
    const dst = io.offset(backend, outs[2]);
    for (let r = 0; r < rows; r++) {
      const [max, sum, dot] = simd.softmaxRow(src + 4 * r * V, dst + 4 * r * V, V);
      const logSum = Math.log(sum);
      entropy[r] = logSum - dot / sum;
      logp[r] = t[r]! >= 0 && t[r]! < V ? x[r * V + t[r]!]! - max - logSum : 0;
    }
    return [...outs];
  }) as unknown as tf.KernelFunc;
}

function xentGradKernel(io: KernelIo, simd?: SimdRows): tf.KernelFunc {
  return (({ inputs: { probs, targets, dy }, backend }: { inputs: { probs: TensorInfo; targets: TensorInfo; dy: TensorInfo }; backend: unknown }) => {
    const [rows, V] = probs.shape as [number, number];
    const out = io.alloc(backend, [rows, V]);
    const o = io.view(backend, out) as Float32Array;
    const t = io.view(backend, targets);
    const d = io.view(backend, dy);
    if (!simd || !io.offset) {
      softmaxXentGradRows(io.view(backend, probs), t, d, V, o);
      return out;
    }
    const src = io.offset(backend, probs);
    const dst = io.offset(backend, out);
    for (let r = 0; r < rows; r++) {
      const inVocab = t[r]! >= 0 && t[r]! < V;
      simd.scaleRow(src + 4 * r * V, dst + 4 * r * V, V, inVocab ? -d[r]! : 0);
      if (inVocab) o[r * V + t[r]!]! += d[r]!;
    }
    return out;
  }) as unknown as tf.KernelFunc;
}

/**
 * d logits [rows, V] and its transpose [V, rows] in one pass (SIMD where rows and V are multiples of 4): the
 * transpose is what the tied head's weight gradient multiplies, and writing it here saves reading the
 * 16 MB gradient back for a transpose kernel.
 */
function xentGradBothKernel(io: KernelIo, simd?: SimdRows): tf.KernelFunc {
  return (({ inputs: { probs, targets, dy }, backend }: { inputs: { probs: TensorInfo; targets: TensorInfo; dy: TensorInfo }; backend: unknown }) => {
    const [rows, V] = probs.shape as [number, number];
    const outs = [io.alloc(backend, [rows, V]), io.alloc(backend, [V, rows])] as const;
    const [o, oT] = outs.map((t) => io.view(backend, t) as Float32Array) as [Float32Array, Float32Array];
    const t = io.view(backend, targets);
    const d = io.view(backend, dy);
    if (simd && io.offset && rows % 4 === 0 && V % 4 === 0) {
      const at = (x: TensorInfo): number => io.offset!(backend, x);
      simd.xentGradBoth(at(probs), at(targets), at(dy), at(outs[0]), at(outs[1]), rows, V);
      for (let r = 0; r < rows; r++) {
        if (!(t[r]! >= 0 && t[r]! < V)) continue;
        o[r * V + t[r]!]! += d[r]!;
        oT[t[r]! * rows + r]! += d[r]!;
      }
    } else {
      softmaxXentGradRows(io.view(backend, probs), t, d, V, o);
      for (let r = 0; r < rows; r++) for (let j = 0; j < V; j++) oT[j * rows + r] = o[r * V + j]!;
    }
    return [...outs];
  }) as unknown as tf.KernelFunc;
}

/** The kernels for one backend's memory (installFastKernels registers them for wasm and cpu). */
export function xentKernels(io: KernelIo, simd?: SimdRows): [string, tf.KernelFunc][] {
  return [
    [XENT, xentKernel(io, simd)],
    [XENT_GRAD, xentGradKernel(io, simd)],
    [XENT_GRAD_BOTH, xentGradBothKernel(io, simd)],
  ];
}

// Only the log-prob output carries a gradient: entropy is reported, never optimised through here.
registerFusedGradient({ kernel: XENT, gradKernel: XENT_GRAD, savedInputs: ['targets'], savedOutputs: [null, null, 'probs'], grads: ['logits'], constants: ['targets'] });

/**
 * Per-row target log-prob and entropy of logits [rows, V] at int32 targets [rows], both [rows]; the log-prob
 * is differentiable. The fused kernels where registered for the active backend, tf ops otherwise.
 */
export function targetLogProbs(logits: tf.Tensor2D, targets: tf.Tensor1D): { logProbs: tf.Tensor1D; entropy: tf.Tensor1D } {
  if (tf.getKernel(XENT, tf.getBackend())) {
    const [logProbs, entropy] = tf.engine().runKernel(XENT, { logits, targets }) as tf.Tensor1D[];
    return { logProbs: logProbs!, entropy: entropy! };
  }
  const logp = tf.logSoftmax(logits, -1);
  return {
    logProbs: tf.sum(tf.mul(logp, tf.oneHot(targets, logits.shape[1])), -1) as tf.Tensor1D,
    entropy: tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1)) as tf.Tensor1D,
  };
}

/**
 * Target log-probs and entropy of the tied head's logits h [rows, C] @ wte^T at int32 targets [rows], with the
 * gradient taken through XENT_GRAD_BOTH: dh = dY wte and dwte = dY^T h with no transpose kernel between.
 * Needs the fused kernels (tiedHeadXentAvailable); the entropy carries no gradient, as in targetLogProbs.
 */
export function tiedHeadXent(h: tf.Tensor2D, wte: tf.Tensor2D, targets: tf.Tensor1D): { logProbs: tf.Tensor1D; entropy: tf.Tensor1D } {
  // One value [2, rows] holds both rows: tfjs disposes whatever else the forward makes, and the gradient reads
  // the log-prob row only.
  const f = tf.customGrad((hIn, wIn, save) => {
    const logits = tf.matMul(hIn as tf.Tensor, tf.transpose(wIn as tf.Tensor));
    const [logProbs, entropy, probs] = tf.engine().runKernel(XENT, { logits, targets }) as tf.Tensor[];
    // The targets are saved too: the engine keeps its own reference for the backward pass.
    (save as tf.GradSaveFunc)([hIn as tf.Tensor, wIn as tf.Tensor, probs!, targets]);
    return {
      value: tf.stack([logProbs!, entropy!]),
      gradFunc: (dy, saved) => {
        const [hS, wS, probsS, targetsS] = saved as [tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor];
        const dLogProbs = tf.reshape(tf.slice(dy as tf.Tensor, [0, 0], [1, -1]), [-1]);
        const [dY, dYT] = tf.engine().runKernel(XENT_GRAD_BOTH, { probs: probsS, targets: targetsS, dy: dLogProbs }) as tf.Tensor[];
        return [tf.matMul(dY!, wS), tf.matMul(dYT!, hS)];
      },
    };
  });
  const [logProbs, entropy] = tf.unstack(f(h, wte)) as tf.Tensor1D[];
  return { logProbs: logProbs!, entropy: entropy! };
}

/** Whether tiedHeadXent's kernels are registered for the active backend. */
export function tiedHeadXentAvailable(): boolean {
  return tf.getKernel(XENT_GRAD_BOTH, tf.getBackend()) !== undefined;
}
