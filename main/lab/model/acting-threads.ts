// Acting on every core: the turns of the episodes in flight decode on several threads at once, each a
// BatchDecoder over its share of the turns. The calling thread decodes one share with the model itself; each
// other thread (decoder-worker.ts) holds a copy of the model whose weights it loads from shared memory
// (shared-weights.ts PublishedWeights, as the RL rollout thread does), so every thread samples with the same
// weights bit for bit. The episodes themselves (tools, tokenizer, rewards) stay on the calling thread; only
// a turn's prompt and sampling options go to a thread, and its tokens come back.
//
// A turn's tokens do not depend on the thread or on the rows beside it (batch-decoder.ts), and its random
// draws come from the episode's own stream: a thread samples with a copy of the stream and reports how many
// draws it took, and the episode's stream advances by as many. So the trajectories are those of one thread
// (a test compares them question by question).
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../base/errors';
import { scriptBeside, spawnWorker } from '../util/worker-spawn';
import { BatchDecoder, type BatchDecoderStats } from './batch-decoder';
import type { GenerateResult, SampleOptions } from './generate';
import type { GPT, GPTConfig } from './gpt';
import { PublishedWeights } from './shared-weights';

/** What plays a turn of an episode: generate()'s result for the prompt and options, wherever it decodes. */
export interface TurnSampler {
  sample(prompt: readonly number[], opts: SampleOptions): Promise<GenerateResult>;
}

/** A turn as a decoding thread receives it: the options without the stream, the stream's state instead. */
export interface ThreadTurn {
  type: 'turn';
  id: number;
  prompt: number[];
  opts: Omit<SampleOptions, 'rng'>;
  rngState: number | null;
  /** The weights' version the turn must decode with (the thread loads it first). */
  version: number;
}

export type ToDecoderThread = ThreadTurn;
export type FromDecoderThread =
  | { type: 'ready' }
  | { type: 'turn'; id: number; result: GenerateResult; draws: number; stats: BatchDecoderStats }
  | { type: 'error'; id: number; message: string };

/** What a decoding thread starts with (its workerData). */
export interface DecoderThreadInit {
  backend: string;
  config: GPTConfig;
  weights: SharedArrayBuffer;
}

/** Backends whose kernels run on the calling thread (as for training replicas): more threads, more cores. */
const THREADED_BACKENDS = new Set(['wasm', 'cpu']);

/** Threads that decode turns on this backend: every core for wasm and cpu, one elsewhere. */
export function defaultActingThreads(backend: string, cores = availableParallelism()): number {
  return THREADED_BACKENDS.has(backend) ? Math.max(1, cores) : 1;
}

const EMPTY_STATS = (): BatchDecoderStats => ({ steps: 0, tokens: 0, prefills: 0, maxRows: 0, prefillS: 0, decodeS: 0 });

/** One other thread's decoder, seen from the calling thread. */
class DecoderThread {
  private readonly pending = new Map<number, { resolve: (r: GenerateResult) => void; reject: (e: Error) => void; opts: SampleOptions }>();
  private failure: Error | null = null;
  stats: BatchDecoderStats = EMPTY_STATS();

  constructor(readonly worker: Worker, readonly index: number) {
    worker.on('message', (msg: FromDecoderThread) => {
      if (msg.type === 'ready') return;
      const p = this.pending.get(msg.id);
      if (!p) return;
      if (msg.type === 'error') return p.reject(new LabError('internal', `decoding thread ${index}: ${msg.message}`));
      // The episode's stream goes on where the thread's copy stopped.
      for (let i = 0; i < msg.draws; i++) p.opts.rng?.next();
      this.stats = msg.stats;
      p.resolve(msg.result);
    });
    const fail = (err: Error): void => {
      this.failure = err;
      for (const p of [...this.pending.values()]) p.reject(err);
    };
    worker.on('error', (err) => fail(new LabError('internal', `decoding thread ${index} failed: ${err.message}`)));
    worker.on('exit', (code) => fail(new LabError('internal', `decoding thread ${index} exited (code ${code})`)));
  }

  /** An idle thread does not keep the process alive (a long-lived pool needs no close to let it exit). */
  idle(): void {
    this.worker.unref();
  }

  get inFlight(): number {
    return this.pending.size;
  }

  sample(id: number, prompt: readonly number[], opts: SampleOptions, version: number): Promise<GenerateResult> {
    if (this.failure) return Promise.reject(this.failure);
    const { rng, ...rest } = opts;
    return new Promise((resolve, reject) => {
      const done = (): void => {
        this.pending.delete(id);
        if (this.pending.size === 0) this.worker.unref();
      };
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve: (r) => (done(), resolve(r)), reject: (e) => (done(), reject(e)), opts });
      this.worker.postMessage({ type: 'turn', id, prompt: [...prompt], opts: rest, rngState: rng ? rng.state() : null, version } satisfies ThreadTurn);
    });
  }
}

export class ActingThreads implements TurnSampler {
  private nextId = 0;
  private version = 0;

  private constructor(
    private readonly model: GPT,
    private readonly own: BatchDecoder,
    private readonly threads: DecoderThread[],
    private readonly weights: PublishedWeights | null,
  ) {}

  /**
   * `threads` decoders in all (default: every core on wasm and cpu): this thread's and threads - 1 others,
   * started with the model's current weights. Resolves once every thread can decode.
   */
  static async start(model: GPT, threads = defaultActingThreads(tf.getBackend())): Promise<ActingThreads> {
    const others = Math.max(0, threads - 1);
    const backend = tf.getBackend();
    if (others > 0 && !THREADED_BACKENDS.has(backend)) throw new LabError('bad_request', `decoding threads need the wasm or cpu backend, not ${backend}`);
    const weights = others > 0 ? PublishedWeights.create(model) : null;
    weights?.publish(model, 0);
    const script = others > 0 ? scriptBeside(import.meta.url, 'decoder-worker.ts', 'decoder.js') : '';
    const workers = Array.from({ length: others }, (_, i) => {
      const init: DecoderThreadInit = { backend, config: model.config, weights: weights!.shared };
      return new DecoderThread(spawnWorker(script, init), i + 1);
    });
    const pool = new ActingThreads(model, new BatchDecoder(model), workers, weights);
    try {
      await Promise.all(workers.map((t) => new Promise<void>((resolve, reject) => {
        t.worker.once('message', () => resolve());
        t.worker.once('error', reject);
        t.worker.once('exit', (code) => reject(new LabError('internal', `decoding thread exited while starting (code ${code})`)));
      })));
    } catch (err) {
      await pool.close();
      throw err;
    }
    for (const t of workers) t.idle();
    return pool;
  }

  /** Decoding threads, this one included. */
  get size(): number {
    return 1 + this.threads.length;
  }

  /** Each thread's figures since it started, this thread's first. */
  get threadStats(): BatchDecoderStats[] {
    return [{ ...this.own.stats }, ...this.threads.map((t) => ({ ...t.stats }))];
  }

  /** Every thread's figures (the decoding steps of all threads added up; maxRows the largest batch of any). */
  get stats(): BatchDecoderStats {
    const all = this.threadStats;
    const sum = (k: keyof BatchDecoderStats): number => all.reduce((a, s) => a + s[k], 0);
    return { steps: sum('steps'), tokens: sum('tokens'), prefills: sum('prefills'), maxRows: Math.max(...all.map((s) => s.maxRows)), prefillS: sum('prefillS'), decodeS: sum('decodeS') };
  }

  /**
   * The model's current weights for the other threads (call after an update, with no turn in flight: a turn
   * decodes with the weights of the version current when it was asked).
   */
  sync(): void {
    if (!this.weights) return;
    this.weights.publish(this.model, ++this.version);
  }

  /** One turn on the thread with the fewest turns in flight (this one on a tie: it needs no copy). */
  sample(prompt: readonly number[], opts: SampleOptions): Promise<GenerateResult> {
    let best: DecoderThread | null = null;
    for (const t of this.threads) if (t.inFlight < (best?.inFlight ?? this.own.inFlight)) best = t;
    if (!best) return this.own.sample(prompt, opts);
    return best.sample(this.nextId++, prompt, opts, this.version);
  }

  /** Waits for this thread's turns in flight and stops the others. */
  async close(): Promise<void> {
    await this.own.drain();
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}
