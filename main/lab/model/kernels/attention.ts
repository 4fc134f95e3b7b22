// Self-attention fused into one kernel each way on the wasm and cpu backends: scores, distance penalties,
// softmax and the weighted sum of values forward; the five products of the gradient backward, one query row
// at a time. Causal: query i sees keys 0 .. i, so keys past it are never computed (half the work of a
// [T, T] product). Only the options a shipped model uses are here (smeared keys come in as the keys,
// distance penalties as slopes); bidirectionalObservations, which none uses, takes the tf ops (gpt.ts fastPath).
//
// Why: as tf ops a `tiny` step's attention was batched matmuls over [B, H, T, T] scores, their transposes,
// a softmax, the mask's add and the gradient's multiplies and sums: about 75 ms of a 290 ms step on wasm,
// with six passes over 8 MB tensors. Elsewhere (tfjs-node, decoding, dropout) gpt.ts keeps the tf ops.
import * as tf from '@tensorflow/tfjs';
import { registerFusedGradient, type KernelIo } from './fused-kernel';

export const ATTENTION = 'SailorAttention';
export const ATTENTION_GRAD = 'SailorAttentionGrad';

/**
 * Shape of one call: B rows of T positions of H heads of D channels, laid out [B, T, H, D] as the q, k, v
 * projection makes them (no transposes into heads); probabilities are [B, H, T, T4], rows T4 wide.
 */
export interface AttentionDims {
  B: number;
  H: number;
  T: number;
  D: number;
}

/** Probability rows are padded to a multiple of 4 so the SIMD kernels move whole lanes. */
export const paddedWidth = (T: number): number => (T + 3) & ~3;

/**
 * y = softmax(scale q k^T - slope_h |i - j|, keys j <= i) v per head, for q, k, v, y [B, T, H, D]; probs
 * [B, H, T, T4] gets the softmax (0 past each query's position), kept for the gradient. Pure.
 */
export function attentionForward(
  q: ArrayLike<number>, k: ArrayLike<number>, v: ArrayLike<number>, dims: AttentionDims, scale: number,
  slopes: readonly number[] | null, y: Float32Array, probs: Float32Array,
): void {
  const { B, H, T, D } = dims;
  const T4 = paddedWidth(T);
  const ld = H * D;
  probs.fill(0);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      const head = (b * T * H + h) * D; // (b, t, h, d) is at head + t * ld + d
      const slope = slopes ? slopes[h]! : 0;
      for (let i = 0; i < T; i++) {
        const n = i + 1; // causal
        const row = ((b * H + h) * T + i) * T4;
        const qi = head + i * ld;
        let max = -Infinity;
        for (let j = 0; j < n; j++) {
          let s = 0;
          for (let d = 0; d < D; d++) s += q[qi + d]! * k[head + j * ld + d]!;
          s = s * scale - slope * Math.abs(i - j);
          probs[row + j] = s;
          if (s > max) max = s;
        }
        let sum = 0;
        for (let j = 0; j < n; j++) {
          const e = Math.exp(probs[row + j]! - max);
          probs[row + j] = e;
          sum += e;
        }
        for (let j = 0; j < n; j++) probs[row + j]! /= sum;
        for (let d = 0; d < D; d++) {
          let acc = 0;
          for (let j = 0; j < n; j++) acc += probs[row + j]! * v[head + j * ld + d]!;
          y[qi + d] = acc;
        }
      }
    }
  }
}

/**
 * The gradient of attentionForward for dy [B, T, H, D]: with dP = dy v^T and dS = scale P (dP - rowsum(dP P)),
 * dq = dS k, dk = dS^T q, dv = P^T dy. Overwrites dq, dk, dv. Pure.
 */
export function attentionBackward(
  q: ArrayLike<number>, k: ArrayLike<number>, v: ArrayLike<number>, probs: ArrayLike<number>, dy: ArrayLike<number>,
  dims: AttentionDims, scale: number, dq: Float32Array, dk: Float32Array, dv: Float32Array,
): void {
  const { B, H, T, D } = dims;
  const T4 = paddedWidth(T);
  const ld = H * D;
  dq.fill(0);
  dk.fill(0);
  dv.fill(0);
  const ds = new Float32Array(T);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      const head = (b * T * H + h) * D;
      for (let i = 0; i < T; i++) {
        const n = i + 1; // causal
        const row = ((b * H + h) * T + i) * T4;
        const qi = head + i * ld;
        let delta = 0;
        for (let j = 0; j < n; j++) {
          let dp = 0;
          for (let d = 0; d < D; d++) dp += dy[qi + d]! * v[head + j * ld + d]!;
          ds[j] = dp;
          delta += dp * probs[row + j]!;
        }
        for (let j = 0; j < n; j++) {
          const p = probs[row + j]!;
          const s = scale * p * (ds[j]! - delta);
          const kj = head + j * ld;
          for (let d = 0; d < D; d++) {
            dq[qi + d]! += s * k[kj + d]!;
            dk[kj + d]! += s * q[qi + d]!;
            dv[kj + d]! += p * dy[qi + d]!;
          }
        }
      }
    }
  }
}

/** simd.wat's attention exports: one head per call (byte addresses; D a multiple of 16). */
export interface SimdAttention {
  attnForward(q: number, k: number, v: number, y: number, probs: number, T: number, D: number, ld: number, scale: number, slope: number): void;
  attnBackward(
    q: number, k: number, v: number, probs: number, dy: number, dq: number, dk: number, dv: number, scratch: number, T: number, D: number, ld: number, scale: number,
  ): void;
}

interface AttentionAttrs {
  scale: number;
  /** ALiBi slopes per head (positions.ts distanceSlopes), or empty for none. */
  slopes: number[];
}

type Info = tf.TensorInfo;

/** Both kernels for one backend's memory (installFastKernels registers them for wasm and cpu). */
export function attentionKernels(io: KernelIo, simd?: SimdAttention): [string, tf.KernelFunc][] {
  const useSimd = (D: number): boolean => simd !== undefined && io.offset !== undefined && io.free !== undefined && D % 16 === 0;
  const forward = (({ inputs: { q, k, v }, attrs: { scale, slopes }, backend }: { inputs: Record<'q' | 'k' | 'v', Info>; attrs: AttentionAttrs; backend: unknown }) => {
    const [B, T, H, D] = q.shape as [number, number, number, number];
    const outs = [io.alloc(backend, [B, T, H, D]), io.alloc(backend, [B, H, T, paddedWidth(T)])] as const;
    if (!useSimd(D)) {
      const [y, probs] = outs.map((o) => io.view(backend, o) as Float32Array) as [Float32Array, Float32Array];
      attentionForward(io.view(backend, q), io.view(backend, k), io.view(backend, v), { B, H, T, D }, scale, slopes.length ? slopes : null, y, probs);
      return [...outs];
    }
    const at = (t: Info): number => io.offset!(backend, t);
    const [qa, ka, va, ya, pa] = [q, k, v, outs[0], outs[1]].map(at) as number[];
    for (let b = 0; b < B; b++) {
      for (let h = 0; h < H; h++) {
        const head = 4 * (b * T * H + h) * D;
        simd!.attnForward(qa! + head, ka! + head, va! + head, ya! + head, pa! + 4 * (b * H + h) * T * paddedWidth(T), T, D, H * D, scale, slopes[h] ?? 0);
      }
    }
    return [...outs];
  }) as unknown as tf.KernelFunc;

  const backward = (({ inputs: { q, k, v, probs, dy }, attrs: { scale }, backend }: { inputs: Record<'q' | 'k' | 'v' | 'probs' | 'dy', Info>; attrs: AttentionAttrs; backend: unknown }) => {
    const [B, T, H, D] = q.shape as [number, number, number, number];
    const outs = [0, 1, 2].map(() => io.alloc(backend, [B, T, H, D]));
    if (!useSimd(D)) {
      const [dq, dk, dv] = outs.map((o) => io.view(backend, o) as Float32Array) as [Float32Array, Float32Array, Float32Array];
      attentionBackward(
        io.view(backend, q), io.view(backend, k), io.view(backend, v), io.view(backend, probs), io.view(backend, dy),
        { B, H, T, D }, scale, dq, dk, dv,
      );
      return outs;
    }
    const scratch = io.alloc(backend, [paddedWidth(T)]); // a row of dP and dS
    for (const o of outs.slice(1)) (io.view(backend, o) as Float32Array).fill(0); // dk and dv accumulate
    const at = (t: Info): number => io.offset!(backend, t);
    const [qa, ka, va, pa, dya, dqa, dka, dva, sa] = [q, k, v, probs, dy, ...outs, scratch].map(at) as number[];
    for (let b = 0; b < B; b++) {
      for (let h = 0; h < H; h++) {
        const head = 4 * (b * T * H + h) * D;
        simd!.attnBackward(
          qa! + head, ka! + head, va! + head, pa! + 4 * (b * H + h) * T * paddedWidth(T), dya! + head, dqa! + head, dka! + head,
          dva! + head, sa!, T, D, H * D, scale,
        );
      }
    }
    io.free!(backend, scratch);
    return outs;
  }) as unknown as tf.KernelFunc;

  return [
    [ATTENTION, forward],
    [ATTENTION_GRAD, backward],
  ];
}

registerFusedGradient({ kernel: ATTENTION, gradKernel: ATTENTION_GRAD, savedInputs: ['q', 'k', 'v'], savedOutputs: [null, 'probs'], grads: ['q', 'k', 'v'] });

/** Whether the fused kernels are registered for the active backend (gpt.ts uses them when training). */
export function fusedAttentionAvailable(): boolean {
  return tf.getKernel(ATTENTION, tf.getBackend()) !== undefined;
}

/**
 * Causal softmax(scale q k^T - slopes_h |i - j|) v for q, k, v [B, T, H, D] (see attentionForward); y is
 * [B, T, H, D]. Differentiable in q, k and v. Needs fusedAttentionAvailable().
 */
export function fusedAttention(q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D, scale: number, slopes: readonly number[] = []): tf.Tensor4D {
  const attrs: AttentionAttrs = { scale, slopes: [...slopes] };
  return (tf.engine().runKernel(ATTENTION, { q, k, v }, attrs as unknown as tf.NamedAttrMap) as tf.Tensor[])[0] as tf.Tensor4D;
}
