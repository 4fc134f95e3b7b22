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

/** A kept thread lent to another model (ActingThreads.kept): its copy becomes one of that model's, read from `weights`. */
export interface ThreadModel {
  type: 'model';
  config: GPTConfig;
  weights: SharedArrayBuffer;
}

export type ToDecoderThread = ThreadTurn | ThreadModel;
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
  private isReady = false;
  /** Turns it decoded, over its life. */
  served = 0;
  stats: BatchDecoderStats = EMPTY_STATS();
  /** Resolves when the thread can decode; rejects if it fails first. */
  readonly started: Promise<void>;

  constructor(
    readonly worker: Worker,
    readonly index: number,
    /** The shared weights its model copy reads (whose model it decodes for). */
    public boundTo: SharedArrayBuffer,
  ) {
    let ready!: () => void;
    let failed!: (e: Error) => void;
    this.started = new Promise<void>((resolve, reject) => ((ready = resolve), (failed = reject)));
    this.started.catch(() => undefined); // a kept thread's start is not awaited: its failure shows in `usable`
    worker.on('message', (msg: FromDecoderThread) => {
      if (msg.type === 'ready') {
        this.isReady = true;
        return ready();
      }
      const p = this.pending.get(msg.id);
      if (!p) return;
      if (msg.type === 'error') return p.reject(new LabError('internal', `decoding thread ${index}: ${msg.message}`));
      // The episode's stream goes on where the thread's copy stopped.
      for (let i = 0; i < msg.draws; i++) p.opts.rng?.next();
      this.stats = msg.stats;
      this.served++;
      p.resolve(msg.result);
    });
    const fail = (err: Error): void => {
      this.failure = err;
      failed(err);
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

  /** Started and not failed: it can take turns. */
  get usable(): boolean {
    return this.isReady && this.failure === null;
  }

  /** Makes its copy one of `config`'s, reading `weights` (only with no turn in flight; messages keep their order). */
  bind(config: GPTConfig, weights: SharedArrayBuffer): void {
    this.boundTo = weights;
    this.stats = EMPTY_STATS();
    this.worker.postMessage({ type: 'model', config, weights } satisfies ThreadModel);
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

/** Starts `count` decoding threads on the backend with the model whose weights `weights` holds. */
function spawnDecoders(backend: string, config: GPTConfig, weights: SharedArrayBuffer, count: number, firstIndex = 1): DecoderThread[] {
  if (count <= 0) return [];
  const script = scriptBeside(import.meta.url, 'decoder-worker.ts', 'decoder.js');
  return Array.from({ length: count }, (_, i) => new DecoderThread(spawnWorker(script, { backend, config, weights } satisfies DecoderThreadInit), firstIndex + i, weights));
}

/**
 * The decoding threads this process keeps, by backend, for the work that plays many episodes outside a
 * training run (the rollout and compare jobs, `sailor rollout` and `eval` with a model): started once, and
 * lent to one model after another (ActingThreads.kept), so a job after the first pays no thread start.
 */
const keptThreads = new Map<string, DecoderThread[]>();

export class ActingThreads implements TurnSampler {
  private nextId = 0;
  private version = 0;

  private constructor(
    private readonly model: GPT,
    private readonly own: BatchDecoder,
    private readonly threads: DecoderThread[],
    private readonly weights: PublishedWeights | null,
    /** The threads are the process's (kept): close() leaves them running. */
    private readonly borrowed: boolean,
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
    const workers = weights ? spawnDecoders(backend, model.config, weights.shared, others) : [];
    const pool = new ActingThreads(model, new BatchDecoder(model), workers, weights, false);
    try {
      await Promise.all(workers.map((t) => t.started));
    } catch (err) {
      await pool.close();
      throw err;
    }
    for (const t of workers) t.idle();
    return pool;
  }

  /**
   * `threads` decoders for `model` from the threads the process keeps (keptThreads), at once: the kept
   * threads start in the background the first time (until they can decode, every turn decodes here), and
   * one that decodes for another model is lent to this one between that model's turns. The turns are the
   * same wherever they decode, so the episodes do not depend on when the threads join. close() leaves the
   * threads running for the next model; idle, they do not keep the process alive.
   */
  static kept(model: GPT, threads = defaultActingThreads(tf.getBackend())): ActingThreads {
    const backend = tf.getBackend();
    const others = THREADED_BACKENDS.has(backend) ? Math.max(0, threads - 1) : 0;
    const weights = others > 0 ? PublishedWeights.create(model) : null;
    weights?.publish(model, 0);
    const kept = keptThreads.get(backend) ?? [];
    if (weights && kept.length < others) {
      const more = spawnDecoders(backend, model.config, weights.shared, others - kept.length, kept.length + 1);
      for (const t of more) t.idle();
      kept.push(...more);
      keptThreads.set(backend, kept);
    }
    return new ActingThreads(model, new BatchDecoder(model), kept.slice(0, others), weights, true);
  }

  /** Threads the process keeps (every backend). */
  static get keptCount(): number {
    return [...keptThreads.values()].reduce((n, ts) => n + ts.length, 0);
  }

  /** Turns the threads the process keeps have decoded, for every model. */
  static get keptTurns(): number {
    return [...keptThreads.values()].flat().reduce((n, t) => n + t.served, 0);
  }

  /** Resolves when every thread of this pool can decode (kept threads start in the background). */
  async whenReady(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.started));
  }

  /** Decoding threads, this one included. */
  get size(): number {
    return 1 + this.threads.length;
  }

  /** Each thread's figures since it started (a kept one's: since it was lent to this model), this thread's first. */
  get threadStats(): BatchDecoderStats[] {
    return [{ ...this.own.stats }, ...this.threads.map((t) => (t.boundTo === this.weights?.shared ? { ...t.stats } : EMPTY_STATS()))];
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

  /**
   * One turn on the thread with the fewest turns in flight (this one on a tie: it needs no copy), among the
   * threads that can decode for this model now: started, and this model's or idle (then lent to it).
   */
  sample(prompt: readonly number[], opts: SampleOptions): Promise<GenerateResult> {
    const mine = this.weights?.shared;
    let best: DecoderThread | null = null;
    for (const t of this.threads) {
      if (!t.usable || (t.boundTo !== mine && t.inFlight > 0)) continue;
      if (t.inFlight < (best?.inFlight ?? this.own.inFlight)) best = t;
    }
    if (!best || !mine) return this.own.sample(prompt, opts);
    if (best.boundTo !== mine) best.bind(this.model.config, mine);
    return best.sample(this.nextId++, prompt, opts, this.version);
  }

  /** Waits for this thread's turns in flight and stops the others (kept threads stay, for the next model). */
  async close(): Promise<void> {
    await this.own.drain();
    if (!this.borrowed) await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}
