// What every fused kernel (xent.ts, gelu.ts, attention.ts, layernorm.ts, smear.ts) shares: access to tensor
// memory on the backend it runs on, and the registration of its gradient as one run of its gradient kernel.
import * as tf from '@tensorflow/tfjs';

type TensorInfo = tf.TensorInfo;

/**
 * Tensor memory as arrays on one backend (wasm: views of its heap; cpu: its own arrays). Allocate every
 * output before taking views: an allocation may grow the wasm heap and detach views taken before it.
 */
export interface KernelIo {
  alloc(backend: unknown, shape: number[]): TensorInfo;
  view(backend: unknown, t: TensorInfo): Float32Array | Int32Array;
  /** wasm: where the tensor's data starts in the backend's memory (bytes), for the SIMD row kernels. */
  offset?(backend: unknown, t: TensorInfo): number;
  /** wasm: releases a scratch tensor a kernel allocated for itself. */
  free?(backend: unknown, t: TensorInfo): void;
}

export interface FusedGradient {
  kernel: string;
  gradKernel: string;
  /** Inputs the forward saves, by name. */
  savedInputs: string[];
  /** Per output of the forward: the name it is saved under, or null when it is not saved. */
  savedOutputs: (string | null)[];
  /** The inputs that get the gradient kernel's outputs, in its output order. */
  grads: string[];
  /** Inputs with no gradient (token ids, a reach): they get zeros, and must be among savedInputs. */
  constants?: string[];
}

/**
 * Registers a fused kernel's gradient as one run of its gradient kernel, which gets everything the forward
 * saved by name, `dy` (the gradient of the forward's first output: other outputs are reported, never
 * optimised through) and the forward's attrs.
 */
export function registerFusedGradient(spec: FusedGradient): void {
  const savedNames = [...spec.savedInputs, ...spec.savedOutputs.filter((n): n is string => n !== null)];
  tf.registerGradient({
    kernelName: spec.kernel,
    inputsToSave: spec.savedInputs,
    outputsToSave: spec.savedOutputs.map((n) => n !== null),
    gradFunc: (dy, saved, attrs) => {
      const byName = Object.fromEntries(savedNames.map((n, i) => [n, saved[i]!]));
      const inputs = { ...byName, dy: (Array.isArray(dy) ? dy[0] : dy) as tf.Tensor };
      const out = tf.engine().runKernel(spec.gradKernel, inputs, attrs as tf.NamedAttrMap) as tf.Tensor | tf.Tensor[];
      const outs = Array.isArray(out) ? out : [out];
      const grads: Record<string, () => tf.Tensor> = {};
      spec.grads.forEach((name, i) => (grads[name] = () => outs[i]!));
      for (const name of spec.constants ?? []) grads[name] = () => tf.zerosLike(byName[name]!);
      return grads;
    },
  });
}
