// Data-parallel training on every core: the thread that owns the model (rank 0) and N replicas, each a worker
// thread with its own TensorFlow.js backend and a copy of the model, split every batch by rows.
//
// One step:
//   1. rank 0 writes its weights into shared memory and posts each replica its rows;
//   2. every replica loads those weights, computes the gradients of its rows' loss (normalised by the whole
//      batch's tokens, so the parts add up to the batch's loss) and writes them into its slot of shared memory;
//   3. meanwhile rank 0 computes its own rows' gradients; it then adds the replicas' slots, clips and applies
//      AdamW once (train.ts updateStep). Only rank 0 has optimiser state; replicas never update anything.
// So the weights every thread computes with are rank 0's, bit for bit, at every step, and a checkpoint,
// kill -9 and resume are exactly as with one thread. The step's gradient equals the one-thread gradient up to
// float rounding (the sum is taken in another order). Dropout masks differ per share (the presets use none).
//
// Shared memory: one SharedArrayBuffer of (1 + N) * P floats: rank 0's weights, then each replica's gradients,
// all flat in paramSpecs order (P = parameter count). Messages carry only the work (rows, counts).
//
// What a replica computes is its worker entry's (replica-serve.ts serveReplica): replica-worker.ts computes the
// SFT loss of rows of a batch (the default); the RL stage names its own entry, which computes the
// policy-gradient loss of packed chunks (train/rl-stage/update-worker.ts). The pool, the shared memory and
// the gradient sum (train.ts updateStep) are the same for both.
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../base/errors';
import { scriptBeside, spawnWorker } from '../util/worker-spawn';
import type { GPT, GPTConfig } from './gpt';
import type { Batch } from './mask';
import type { PeerGrads } from './train';
import { copyWeightsOut, weightCount } from './shared-weights';

/** The SFT work of one replica: rows of the step's batch, normalised by the whole batch's loss tokens. */
export interface SftWork {
  batch: Batch;
  seed: number;
  lossTokens: number;
}

/** What a replica thread starts with (its workerData). */
export interface ReplicaInit {
  backend: string;
  config: GPTConfig;
  shared: SharedArrayBuffer;
  /** This replica's gradient slot: floats [slot * P, (slot + 1) * P) of `shared` (slot 0 holds the weights). */
  slot: number;
}

export type ToReplica<W = unknown> =
  | { type: 'step'; work: W; step: number }
  /** Load rank 0's weights and send back what the replica then holds (tests check the copies agree). */
  | { type: 'weights' };

/** `extra`: whatever else the entry reports of its share (the RL entry: the loss statistics). */
export type FromReplica = { type: 'ready' } | { type: 'done'; loss: number; extra?: unknown } | { type: 'weights'; values: Float32Array } | { type: 'error'; message: string };

/** Backends whose kernels run on the calling thread, so more threads mean more cores at work. */
const THREADED_BACKENDS = new Set(['wasm', 'cpu']);

/**
 * How many threads train on this backend: every core for wasm and cpu (at most one per row of the batch),
 * one for tfjs-node and tfjs-node-gpu, whose kernels already use every core or the GPU.
 */
export function defaultWorkers(backend: string, batchSize: number, cores = availableParallelism()): number {
  return THREADED_BACKENDS.has(backend) ? Math.max(1, Math.min(cores, batchSize)) : 1;
}

interface Pending {
  resolve: (msg: FromReplica) => void;
  reject: (err: Error) => void;
}

class Replica {
  private pending: Pending | null = null;
  private failure: Error | null = null;

  constructor(readonly worker: Worker, readonly slot: number) {
    worker.on('message', (msg: FromReplica) => {
      const p = this.pending;
      this.pending = null;
      if (msg.type === 'error') p?.reject(new LabError('internal', `training replica ${slot}: ${msg.message}`));
      else p?.resolve(msg);
    });
    const fail = (err: Error): void => {
      this.failure = err;
      this.pending?.reject(err);
      this.pending = null;
    };
    worker.on('error', (err) => fail(new LabError('internal', `training replica ${slot} failed: ${err.message}`)));
    worker.on('exit', (code) => fail(new LabError('internal', `training replica ${slot} exited (code ${code})`)));
  }

  /** Sends a message and resolves with the replica's answer (one request at a time). */
  request(msg: ToReplica<unknown> | null): Promise<FromReplica> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.pending) return Promise.reject(new LabError('internal', `training replica ${this.slot} is busy`));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      if (msg) this.worker.postMessage(msg);
    });
  }
}

/** What the replicas computed for one step: PeerGrads, and each busy replica's `extra`. */
export interface ReplicaAnswers extends PeerGrads {
  extras: unknown[];
}

/** The default entry: SFT rows (replica-worker.ts, bundled as replica.js). */
const SFT_ENTRY = { source: 'replica-worker.ts', bundled: 'replica.js' };

export class Replicas<W = SftWork> {
  private readonly flat: Float32Array;
  private readonly params: number;

  private constructor(
    private readonly replicas: Replica[],
    shared: SharedArrayBuffer,
    params: number,
  ) {
    this.flat = new Float32Array(shared);
    this.params = params;
  }

  /**
   * Starts `count` replica threads of the model on the active backend and waits until each is ready. `script`:
   * the worker entry that computes a share's gradients (default: SFT rows, replica-worker.ts).
   */
  static async start<W = SftWork>(model: GPT, count: number, script = scriptBeside(import.meta.url, SFT_ENTRY.source, SFT_ENTRY.bundled)): Promise<Replicas<W>> {
    const backend = tf.getBackend();
    if (count > 0 && !THREADED_BACKENDS.has(backend)) throw new LabError('bad_request', `data-parallel replicas need the wasm or cpu backend, not ${backend}`);
    const params = weightCount(model);
    const shared = new SharedArrayBuffer(4 * params * (1 + count));
    const replicas = Array.from({ length: count }, (_, i) => {
      const init: ReplicaInit = { backend, config: model.config, shared, slot: i + 1 };
      return new Replica(spawnWorker(script, init), i + 1);
    });
    const group = new Replicas<W>(replicas, shared, params);
    try {
      await Promise.all(replicas.map((r) => r.request(null))); // the 'ready' each sends once its model exists
    } catch (err) {
      await group.close();
      throw err;
    }
    return group;
  }

  /** Number of replica threads (rank 0 not counted). */
  get size(): number {
    return this.replicas.length;
  }

  /**
   * Shares out one step: writes the model's weights for the replicas and posts each its work (works[i] to
   * replica i; null or missing skips it). Resolves with their loss parts, gradient slots and extras.
   */
  start(model: GPT, works: readonly (W | null | undefined)[], step: number): Promise<ReplicaAnswers> {
    this.writeWeights(model);
    const busy = this.replicas.flatMap((r, i) => (works[i] ? [{ r, work: works[i] }] : []));
    return Promise.all(busy.map(({ r, work }) => r.request({ type: 'step', work, step } satisfies ToReplica<W>))).then((answers) => ({
      loss: answers.reduce((sum, a) => sum + (a.type === 'done' ? a.loss : 0), 0),
      grads: busy.map(({ r }) => this.flat.subarray(r.slot * this.params, (r.slot + 1) * this.params)),
      extras: answers.map((a) => (a.type === 'done' ? a.extra : undefined)),
    }));
  }

  /** The weights each replica holds after loading the model's current ones (for tests). */
  async replicaWeights(model: GPT): Promise<Float32Array[]> {
    this.writeWeights(model);
    const answers = await Promise.all(this.replicas.map((r) => r.request({ type: 'weights' })));
    return answers.map((a) => (a.type === 'weights' ? a.values : new Float32Array()));
  }

  private writeWeights(model: GPT): void {
    copyWeightsOut(model, this.flat.subarray(0, this.params));
  }

  async close(): Promise<void> {
    await Promise.all(this.replicas.map((r) => r.worker.terminate()));
  }
}
