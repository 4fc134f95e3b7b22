// Layer norm as one kernel each way on the wasm and cpu backends (SIMD rows where simd.wat is loaded): as tf
// ops it was about ten kernels forward (moments, subtract, rsqrt, scale, shift) and twenty-five backward per
// norm, five norms a step, each walking [tokens, C] activations and paying the engine's cost per kernel.
// Elsewhere (tfjs-node): the same formula in tf ops.
import * as tf from '@tensorflow/tfjs';
import { registerFusedGradient, type KernelIo } from './fused-kernel';

export const LAYER_NORM = 'SailorLayerNorm';
export const LAYER_NORM_GRAD = 'SailorLayerNormGrad';
export const LAYER_NORM_EPS = 1e-5;

/**
 * y = (x - mean) / sqrt(var + eps) * g + b per row of x [rows, C] (biased variance, as tf.moments), with each
 * row's mean and 1 / sqrt(var + eps) kept for the gradient. Pure.
 */
export function layerNormRows(x: ArrayLike<number>, g: ArrayLike<number>, b: ArrayLike<number>, C: number, y: Float32Array, mean: Float32Array, rstd: Float32Array): void {
  const rows = mean.length;
  for (let r = 0; r < rows; r++) {
    const o = r * C;
    let sum = 0;
    for (let c = 0; c < C; c++) sum += x[o + c]!;
    const mu = sum / C;
    let sq = 0;
    for (let c = 0; c < C; c++) sq += (x[o + c]! - mu) ** 2;
    const rs = 1 / Math.sqrt(sq / C + LAYER_NORM_EPS);
    mean[r] = mu;
    rstd[r] = rs;
    for (let c = 0; c < C; c++) y[o + c] = (x[o + c]! - mu) * rs * g[c]! + b[c]!;
  }
}

/**
 * The gradient of layerNormRows for dy [rows, C]: with xhat = (x - mean) rstd and dxhat = dy g,
 * dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)), dg = sum over rows of dy xhat, db = sum of dy.
 * Overwrites dx, dg, db. Pure.
 */
export function layerNormGradRows(
  x: ArrayLike<number>, g: ArrayLike<number>, mean: ArrayLike<number>, rstd: ArrayLike<number>, dy: ArrayLike<number>, C: number, dx: Float32Array,
  dg: Float32Array, db: Float32Array,
): void {
  dg.fill(0);
  db.fill(0);
  for (let r = 0; r < mean.length; r++) {
    const o = r * C;
    let s1 = 0;
    let s2 = 0;
    for (let c = 0; c < C; c++) {
      const xhat = (x[o + c]! - mean[r]!) * rstd[r]!;
      const dxhat = dy[o + c]! * g[c]!;
      s1 += dxhat;
      s2 += dxhat * xhat;
      dg[c]! += dy[o + c]! * xhat;
      db[c]! += dy[o + c]!;
    }
    for (let c = 0; c < C; c++) {
      const xhat = (x[o + c]! - mean[r]!) * rstd[r]!;
      dx[o + c] = rstd[r]! * (dy[o + c]! * g[c]! - s1 / C - (xhat * s2) / C);
    }
  }
}

/** simd.wat's layer-norm exports (byte addresses; C a multiple of 4; dg and db accumulate, zero them first). */
export interface SimdLayerNorm {
  layerNormRows(x: number, g: number, b: number, y: number, mean: number, rstd: number, rows: number, C: number, eps: number): void;
  layerNormGradRows(x: number, g: number, mean: number, rstd: number, dy: number, dx: number, dg: number, db: number, rows: number, C: number): void;
}

type Info = tf.TensorInfo;

/** Both kernels for one backend's memory (installFastKernels registers them for wasm and cpu). */
export function layerNormKernels(io: KernelIo, simd?: SimdLayerNorm): [string, tf.KernelFunc][] {
  const useSimd = (C: number): boolean => simd !== undefined && io.offset !== undefined && C % 4 === 0;
  const forward = (({ inputs: { x, g, b }, backend }: { inputs: Record<'x' | 'g' | 'b', Info>; backend: unknown }) => {
    const C = x.shape[x.shape.length - 1]!;
    const rows = x.shape.slice(0, -1).reduce((a, d) => a * d, 1);
    const outs = [io.alloc(backend, x.shape.slice()), io.alloc(backend, [rows]), io.alloc(backend, [rows])] as const;
    if (useSimd(C)) {
      const at = (t: Info): number => io.offset!(backend, t);
      simd!.layerNormRows(at(x), at(g), at(b), at(outs[0]), at(outs[1]), at(outs[2]), rows, C, LAYER_NORM_EPS);
    } else {
      const [y, mean, rstd] = outs.map((o) => io.view(backend, o) as Float32Array) as [Float32Array, Float32Array, Float32Array];
      layerNormRows(io.view(backend, x), io.view(backend, g), io.view(backend, b), C, y, mean, rstd);
    }
    return [...outs];
  }) as unknown as tf.KernelFunc;
  const backward = (({ inputs: { x, g, mean, rstd, dy }, backend }: { inputs: Record<'x' | 'g' | 'mean' | 'rstd' | 'dy', Info>; backend: unknown }) => {
    const C = x.shape[x.shape.length - 1]!;
    const rows = mean.shape[0]!;
    const outs = [io.alloc(backend, x.shape.slice()), io.alloc(backend, [C]), io.alloc(backend, [C])] as const;
    const [dx, dg, db] = outs.map((o) => io.view(backend, o) as Float32Array) as [Float32Array, Float32Array, Float32Array];
    if (useSimd(C)) {
      dg.fill(0);
      db.fill(0);
      const at = (t: Info): number => io.offset!(backend, t);
      simd!.layerNormGradRows(at(x), at(g), at(mean), at(rstd), at(dy), at(outs[0]), at(outs[1]), at(outs[2]), rows, C);
    } else {
      layerNormGradRows(io.view(backend, x), io.view(backend, g), io.view(backend, mean), io.view(backend, rstd), io.view(backend, dy), C, dx, dg, db);
    }
    return [...outs];
  }) as unknown as tf.KernelFunc;
  return [
    [LAYER_NORM, forward],
    [LAYER_NORM_GRAD, backward],
  ];
}

// Only y carries a gradient: the mean and rstd outputs are kept for the backward, never used downstream.
registerFusedGradient({ kernel: LAYER_NORM, gradKernel: LAYER_NORM_GRAD, savedInputs: ['x', 'g'], savedOutputs: [null, 'mean', 'rstd'], grads: ['x', 'g', 'b'] });

/** Whether the layer-norm kernels are registered for the active backend (gpt.ts fastPath decides with it). */
export function fusedLayerNormAvailable(): boolean {
  return tf.getKernel(LAYER_NORM, tf.getBackend()) !== undefined;
}

/** Layer norm of float32 x over the last axis with gain g and bias b [C]: the fused kernels when `fused`, tf ops otherwise. */
export function layerNorm(x: tf.Tensor, g: tf.Tensor, b: tf.Tensor, fused: boolean): tf.Tensor {
  if (fused) return (tf.engine().runKernel(LAYER_NORM, { x, g, b }) as tf.Tensor[])[0]!;
  const { mean, variance } = tf.moments(x, -1, true);
  return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, LAYER_NORM_EPS))), g), b);
}
