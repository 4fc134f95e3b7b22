// GELU (tanh form, GPT-2's) as one kernel each way on the wasm and cpu backends, in SIMD where simd.wat is
// loaded: written as tf ops it was eight elementwise kernels forward and about twenty for the gradient over
// the MLP's [tokens, 4C] activations (about 25 ms of a step on wasm). Elsewhere: the same formula in tf ops.
import * as tf from '@tensorflow/tfjs';
import { registerFusedGradient, type KernelIo } from './fused-kernel';

export const GELU = 'SailorGelu';
export const GELU_GRAD = 'SailorGeluGrad';

const C = Math.sqrt(2 / Math.PI);
const A = 0.044715;

/** y = x/2 (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), and t = tanh(u), from index `from` on. Pure. */
export function geluValues(x: ArrayLike<number>, y: Float32Array, t: Float32Array, from = 0): void {
  for (let i = from; i < x.length; i++) {
    const v = x[i]!;
    const th = Math.tanh(C * (v + A * v * v * v));
    t[i] = th;
    y[i] = 0.5 * v * (1 + th);
  }
}

/** dx = dy * dGELU/dx at x, given t = tanh(u) from geluValues, from index `from` on. Pure. */
export function geluGradValues(x: ArrayLike<number>, t: ArrayLike<number>, dy: ArrayLike<number>, dx: Float32Array, from = 0): void {
  for (let i = from; i < x.length; i++) {
    const v = x[i]!;
    const th = t[i]!;
    dx[i] = dy[i]! * (0.5 * (1 + th) + 0.5 * v * (1 - th * th) * C * (1 + 3 * A * v * v));
  }
}

/** simd.wat's GELU exports (byte addresses; n a multiple of 4). */
export interface SimdGelu {
  geluRows(x: number, y: number, t: number, n: number): void;
  geluGradRows(x: number, t: number, dy: number, dx: number, n: number): void;
}

type Info = tf.TensorInfo;

/** Both kernels for one backend's memory (installFastKernels registers them for wasm and cpu). */
export function geluKernels(io: KernelIo, simd?: SimdGelu): [string, tf.KernelFunc][] {
  const forward = (({ inputs: { x }, backend }: { inputs: { x: Info }; backend: unknown }) => {
    const outs = [io.alloc(backend, x.shape.slice()), io.alloc(backend, x.shape.slice())] as const;
    const [y, t] = outs.map((o) => io.view(backend, o) as Float32Array) as [Float32Array, Float32Array];
    const xs = io.view(backend, x);
    const n4 = simd && io.offset ? xs.length & ~3 : 0;
    if (n4 > 0) simd!.geluRows(io.offset!(backend, x), io.offset!(backend, outs[0]), io.offset!(backend, outs[1]), n4);
    geluValues(xs, y, t, n4);
    return [...outs];
  }) as unknown as tf.KernelFunc;
  const backward = (({ inputs: { x, t, dy }, backend }: { inputs: { x: Info; t: Info; dy: Info }; backend: unknown }) => {
    const out = io.alloc(backend, x.shape.slice());
    const xs = io.view(backend, x);
    const n4 = simd && io.offset ? xs.length & ~3 : 0;
    if (n4 > 0) simd!.geluGradRows(io.offset!(backend, x), io.offset!(backend, t), io.offset!(backend, dy), io.offset!(backend, out), n4);
    geluGradValues(xs, io.view(backend, t), io.view(backend, dy), io.view(backend, out) as Float32Array, n4);
    return out;
  }) as unknown as tf.KernelFunc;
  return [
    [GELU, forward],
    [GELU_GRAD, backward],
  ];
}

registerFusedGradient({ kernel: GELU, gradKernel: GELU_GRAD, savedInputs: ['x'], savedOutputs: [null, 't'], grads: ['x'] });

/** Whether the GELU kernels are registered for the active backend (gpt.ts fastPath decides with it). */
export function fusedGeluAvailable(): boolean {
  return tf.getKernel(GELU, tf.getBackend()) !== undefined;
}

/** GELU, tanh approximation, of float32 x: the fused kernels when `fused` (see fusedGeluAvailable), tf ops otherwise. */
export function gelu(x: tf.Tensor, fused: boolean): tf.Tensor {
  if (fused) return (tf.engine().runKernel(GELU, { x }) as tf.Tensor[])[0]!;
  const inner = tf.mul(C, tf.add(x, tf.mul(A, tf.mul(x, tf.square(x))))); // x^3 without pow (slow, and its gradient more so)
  return tf.mul(tf.mul(0.5, x), tf.add(1, tf.tanh(inner)));
}
