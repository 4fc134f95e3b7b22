// A model's weights in shared memory, for the threads that compute with copies of it: data-parallel replicas
// (replicas.ts) and the RL rollout thread (train/rl-stage/rollout-thread.ts). Flat float32 in paramSpecs order.
import * as tf from '@tensorflow/tfjs';
import type { GPT } from './gpt';

/** Number of floats of the model's weights. */
export function weightCount(model: GPT): number {
  let n = 0;
  for (const v of model.params.values()) n += v.size;
  return n;
}

/** Copies the model's weights into `dst` (flat, paramSpecs order). */
export function copyWeightsOut(model: GPT, dst: Float32Array): void {
  let offset = 0;
  for (const v of model.params.values()) {
    dst.set(v.dataSync() as Float32Array, offset);
    offset += v.size;
  }
}

/** Assigns the model's weights from `src` (flat, paramSpecs order). */
export function loadWeights(model: GPT, src: Float32Array): void {
  let offset = 0;
  tf.tidy(() => {
    for (const v of model.params.values()) {
      v.assign(tf.tensor(src.subarray(offset, offset + v.size), v.shape, 'float32'));
      offset += v.size;
    }
  });
}

/**
 * Versioned weights one thread publishes and others read while it keeps training: a sequence lock (the
 * writer makes the counter odd while it writes, even when done; a reader that saw it change copies again),
 * so a reader never loads half of one update and half of the next.
 */
export class PublishedWeights {
  /** [sequence, version] */
  private readonly header: Int32Array;
  private readonly flat: Float32Array;

  constructor(readonly shared: SharedArrayBuffer) {
    this.header = new Int32Array(shared, 0, 2);
    this.flat = new Float32Array(shared, 8);
  }

  static create(model: GPT): PublishedWeights {
    return new PublishedWeights(new SharedArrayBuffer(8 + 4 * weightCount(model)));
  }

  /** The version last published (-1 before the first). */
  get version(): number {
    return Atomics.load(this.header, 0) === 0 ? -1 : Atomics.load(this.header, 1);
  }

  publish(model: GPT, version: number): void {
    Atomics.add(this.header, 0, 1); // odd: writing
    copyWeightsOut(model, this.flat);
    Atomics.store(this.header, 1, version);
    Atomics.add(this.header, 0, 1); // even: done
  }

  /** Loads the latest published weights into `model` unless it holds `have` already; returns the version loaded. */
  load(model: GPT, have: number): number {
    for (;;) {
      const seq = Atomics.load(this.header, 0);
      const version = Atomics.load(this.header, 1);
      if (seq === 0 || version === have) return have;
      if (seq % 2 === 1) continue; // a write is under way
      const copy = this.flat.slice();
      if (Atomics.load(this.header, 0) !== seq) continue; // overwritten while copying
      loadWeights(model, copy);
      return version;
    }
  }
}
