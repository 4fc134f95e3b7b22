// Smeared keys (GPTConfig.smearKeys) as one kernel each way on the wasm and cpu backends, for the fused
// attention's [B, T, H, D] layout: as tf ops they were a shifted concat, two broadcast multiplies and, in the
// gradient, sums over every axis but the head's (which the wasm backend runs by transposing first): about
// 10 ms of a `tiny` step. Decoding keeps the tf ops (gpt.ts smearKeys).
import * as tf from '@tensorflow/tfjs';
import { registerFusedGradient, type KernelIo } from './fused-kernel';

export const SMEAR = 'SailorSmearKeys';
export const SMEAR_GRAD = 'SailorSmearKeysGrad';

const sigmoid = (a: number): number => 1 / (1 + Math.exp(-a));

/** y[b, t, h] = s_h k[b, t, h] + (1 - s_h) k[b, t - 1, h] (k[b, -1] = 0), s = sigmoid(a), for k [B, T, H, D]. Pure. */
export function smearRows(k: ArrayLike<number>, a: ArrayLike<number>, [B, T, H, D]: readonly number[], y: Float32Array): void {
  for (let h = 0; h < H!; h++) {
    const s = sigmoid(a[h]!);
    for (let b = 0; b < B!; b++) {
      for (let t = 0; t < T!; t++) {
        const o = ((b * T! + t) * H! + h) * D!;
        const prev = o - H! * D!;
        for (let d = 0; d < D!; d++) y[o + d] = s * k[o + d]! + (t > 0 ? (1 - s) * k[prev + d]! : 0);
      }
    }
  }
}

/**
 * The gradient of smearRows for dy [B, T, H, D]: dk[t] = s dy[t] + (1 - s) dy[t + 1], and
 * da_h = s (1 - s) sum over b, t, d of dy[t] (k[t] - k[t - 1]). Overwrites dk and da. Pure.
 */
export function smearGradRows(k: ArrayLike<number>, a: ArrayLike<number>, dy: ArrayLike<number>, [B, T, H, D]: readonly number[], dk: Float32Array, da: Float32Array): void {
  const step = H! * D!;
  for (let h = 0; h < H!; h++) {
    const s = sigmoid(a[h]!);
    let ds = 0;
    for (let b = 0; b < B!; b++) {
      for (let t = 0; t < T!; t++) {
        const o = ((b * T! + t) * H! + h) * D!;
        for (let d = 0; d < D!; d++) {
          dk[o + d] = s * dy[o + d]! + (t + 1 < T! ? (1 - s) * dy[o + step + d]! : 0);
          ds += dy[o + d]! * (k[o + d]! - (t > 0 ? k[o - step + d]! : 0));
        }
      }
    }
    da[h] = ds * s * (1 - s);
  }
}

type Info = tf.TensorInfo;

/** Both kernels for one backend's memory (installFastKernels registers them for wasm and cpu). */
export function smearKernels(io: KernelIo): [string, tf.KernelFunc][] {
  const forward = (({ inputs: { k, a }, backend }: { inputs: Record<'k' | 'a', Info>; backend: unknown }) => {
    const out = io.alloc(backend, k.shape.slice());
    smearRows(io.view(backend, k), io.view(backend, a), k.shape, io.view(backend, out) as Float32Array);
    return out;
  }) as unknown as tf.KernelFunc;
  const backward = (({ inputs: { k, a, dy }, backend }: { inputs: Record<'k' | 'a' | 'dy', Info>; backend: unknown }) => {
    const outs = [io.alloc(backend, k.shape.slice()), io.alloc(backend, a.shape.slice())] as const;
    const [dk, da] = outs.map((o) => io.view(backend, o) as Float32Array) as [Float32Array, Float32Array];
    smearGradRows(io.view(backend, k), io.view(backend, a), io.view(backend, dy), k.shape, dk, da);
    return [...outs];
  }) as unknown as tf.KernelFunc;
  return [
    [SMEAR, forward],
    [SMEAR_GRAD, backward],
  ];
}

registerFusedGradient({ kernel: SMEAR, gradKernel: SMEAR_GRAD, savedInputs: ['k', 'a'], savedOutputs: [null], grads: ['k', 'a'] });

/** Smeared keys of k [B, T, H, D] with per-head logits a [H] (see smearRows). Needs the kernels registered. */
export function fusedSmearKeys(k: tf.Tensor4D, a: tf.Tensor): tf.Tensor4D {
  return tf.engine().runKernel(SMEAR, { k, a }) as tf.Tensor4D;
}

/**
 * Smeared keys [B, H, T, D] (see GPTConfig.smearKeys): s * k_t + (1 - s) * k_(t-1) per head, with k_(-1) the
 * cached last key of the previous call (decoding) or zero (position 0). Also returns the raw last key. The
 * fused path has its own kernel (smear.ts).
 */
export function smearKeys(k: tf.Tensor4D, before: tf.Tensor4D | undefined, a: tf.Tensor, lastAt?: Int32Array): { k: tf.Tensor4D; last: tf.Tensor4D } {
  const [B, H, T, D] = k.shape;
  const first = before ?? tf.zeros([B, H, 1, D]);
  const prev = T > 1 ? tf.concat([first, tf.slice(k, [0, 0, 0, 0], [B, H, T - 1, D])], 2) : first;
  const s = tf.reshape(tf.sigmoid(a), [1, H, 1, 1]);
  const last = lastAt
    ? tf.reshape(tf.gather(tf.reshape(k, [B * H * T, D]), Int32Array.from({ length: B * H }, (_, bh) => bh * T + lastAt[Math.floor(bh / H)]!)), [B, H, 1, D])
    : tf.slice(k, [0, 0, T - 1, 0], [B, H, 1, D]);
  return { k: tf.add(tf.mul(s, k), tf.mul(tf.sub(1, s), prev)) as tf.Tensor4D, last: last as tf.Tensor4D };
}
