// Continuous batching (the scheduling vLLM popularised, at this scale): one decoder serves every episode in
// flight. An episode asks for a turn with sample(prompt, opts) and awaits it as it would generate(); the
// decoder prefills the prompt, the row joins the batch, and every decoding step feeds one token of every row
// in one forward pass. A row that finishes its turn (a stop token, its budget, a full context) leaves the
// batch and its promise resolves, so the episode runs its tool call while the others go on decoding; its next
// turn joins again. Why it pays: a decoding step of one row is mostly fixed per-operation cost, which the
// rows share (group-sample.ts does the same for the G samples of one prompt).
//
// Rows hold different numbers of positions. The cache is one tensor per layer with the rows right-aligned
// (attention-mask.ts RaggedRows): row b's keys fill its last columns, zeros before them are masked out, and each row's
// new token stands at its own position. Each row samples from its own logits with its own RNG, so its tokens
// are generate()'s with the same prompt and stream whatever runs beside it (up to float rounding in the
// batched matmuls, which a test bounds).
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../base/errors';
import { createRng } from '../util/rng';
import { head, hidden, makeCtx, type GPT, type LayerKV } from './gpt';
import { disposeKv, sampleFromLogits, type GenerateResult, type SampleOptions } from './generate';
import { SPECIAL_TOKENS } from './tokenizer';

interface Row {
  opts: SampleOptions;
  stops: ReadonlySet<number>;
  rng: NonNullable<SampleOptions['rng']>;
  /** Positions in the cache. */
  cached: number;
  result: GenerateResult;
  resolve: (r: GenerateResult) => void;
  reject: (err: unknown) => void;
}

interface Request {
  prompt: readonly number[];
  opts: SampleOptions;
  resolve: (r: GenerateResult) => void;
  reject: (err: unknown) => void;
}

/** Figures since construction, for benches and logs. */
export interface BatchDecoderStats {
  /** Decoding steps (one forward pass of every row in the batch). */
  steps: number;
  /** Tokens sampled, all rows together. */
  tokens: number;
  /** Prompts prefilled (turns served). */
  prefills: number;
  /** Most rows decoded in one step. */
  maxRows: number;
  /** Seconds spent prefilling prompts and in decoding steps (sampling included). */
  prefillS: number;
  decodeS: number;
}

const MASKED = -1e9;
const PAD = SPECIAL_TOKENS.indexOf('<|pad|>');

/** Keeps the rows `keep` (indices into the batch) of every cached tensor; disposes the old cache. */
export function keepRows(kv: LayerKV[], keep: readonly number[]): LayerKV[] {
  const idx = tf.tensor1d(keep as number[], 'int32');
  const out = kv.map((l) => {
    const rows: LayerKV = { kT: tf.gather(l.kT, idx), v: tf.gather(l.v, idx) };
    if (l.kLast) rows.kLast = tf.gather(l.kLast, idx);
    return rows;
  });
  idx.dispose();
  disposeKv(kv);
  return out;
}

/** The cache widened to `width` columns by zeros on the left (the right-aligned layout); kv itself is kept. */
function padLeft(kv: readonly LayerKV[], width: number): LayerKV[] {
  return kv.map((l) => {
    const add = width - l.kT.shape[3];
    const out: LayerKV = { kT: tf.pad(l.kT, [[0, 0], [0, 0], [0, 0], [add, 0]]), v: tf.pad(l.v, [[0, 0], [0, 0], [add, 0], [0, 0]]) };
    if (l.kLast) out.kLast = tf.clone(l.kLast);
    return out;
  });
}

/**
 * Prompts of different lengths read in one forward pass, each padded at its end (causal attention never lets
 * a real token see the padding behind it, so each row is read exactly as alone): the logits after each row's
 * last token [n, V] and its cache, right-aligned.
 */
function prefill(model: GPT, prompts: readonly (readonly number[])[]): { kv: LayerKV[]; logits: tf.Tensor2D } {
  const n = prompts.length;
  const lens = prompts.map((p) => p.length);
  const T = Math.max(...lens);
  const ids = new Int32Array(n * T).fill(PAD);
  prompts.forEach((p, r) => ids.set(p, r * T));
  return tf.tidy(() => {
    const ctx = makeCtx(model, {}, true);
    ctx.lastPositions = Int32Array.from(lens, (l) => l - 1);
    const { h, kv } = hidden(model, tf.tensor2d(ids, [n, T], 'int32'), ctx, undefined);
    const last = tf.gather(tf.reshape(h, [n * T, model.config.nEmbd]), Int32Array.from(lens, (l, r) => r * T + l - 1));
    const aligned = kv.map((l) => {
      const out: LayerKV = { kT: alignRight(l.kT, lens, 3), v: alignRight(l.v, lens, 2) };
      if (l.kLast) out.kLast = l.kLast;
      return out;
    });
    return { kv: aligned, logits: head(model, last) as tf.Tensor2D };
  });
}

/**
 * Moves each row r of x [n, .., T, ..] (time at `axis`) right by T - lens[r] columns, so that its real
 * columns end at T (one flat gather; the columns shifted in are copies of column 0, which the key mask hides).
 */
function alignRight(x: tf.Tensor4D, lens: readonly number[], axis: 2 | 3): tf.Tensor4D {
  const [n, d1, d2, d3] = x.shape;
  const T = axis === 3 ? d3 : d2;
  const A = axis === 3 ? d1 * d2 : d1; // what comes before time in a row
  const E = axis === 3 ? 1 : d3; // what comes after it
  const idx = new Int32Array(n * A * T * E);
  let o = 0;
  for (let r = 0; r < n; r++) {
    const shift = T - lens[r]!;
    for (let a = 0; a < A; a++) {
      const base = (r * A + a) * T;
      for (let c = 0; c < T; c++) {
        const src = (base + Math.max(0, c - shift)) * E;
        for (let e = 0; e < E; e++) idx[o++] = src + e;
      }
    }
  }
  return tf.reshape(tf.gather(tf.reshape(x, [-1]), idx), x.shape) as tf.Tensor4D;
}

export class BatchDecoder {
  private rows: Row[] = [];
  private kv: LayerKV[] = [];
  /** Logits [B, V] of each row's next token. */
  private logits: tf.Tensor2D | null = null;
  private queue: Request[] = [];
  private running: Promise<void> | null = null;
  readonly stats: BatchDecoderStats = { steps: 0, tokens: 0, prefills: 0, maxRows: 0, prefillS: 0, decodeS: 0 };

  /** `maxRows`: rows decoded at once at most; further turns wait for a row to finish. */
  constructor(
    readonly model: GPT,
    private readonly opts: { maxRows?: number } = {},
  ) {}

  /** Rows decoding now and turns waiting to join. */
  get inFlight(): number {
    return this.rows.length + this.queue.length;
  }

  /**
   * One turn: the continuation of `prompt` as generate(model, prompt, opts) samples it (same options, same
   * result), decoded in the shared batch. Resolves when this row finishes.
   */
  sample(prompt: readonly number[], opts: SampleOptions): Promise<GenerateResult> {
    if (prompt.length === 0) return Promise.reject(new LabError('bad_request', 'BatchDecoder.sample needs a non-empty prompt (start with <|bos|>)'));
    const { blockSize } = this.model.config;
    if (prompt.length > blockSize) return Promise.reject(new LabError('bad_request', `context of ${prompt.length} tokens exceeds blockSize ${blockSize}`));
    if (!(opts.maxNewTokens >= 1)) return Promise.resolve({ tokens: [], logProbs: [], entropies: [], finishReason: 'length' });
    return new Promise<GenerateResult>((resolve, reject) => {
      this.queue.push({ prompt, opts, resolve, reject });
      // Started on the next turn of the event loop: every episode that asks in this one joins the first step.
      this.running ??= new Promise<void>((r) => setImmediate(r)).then(() => this.loop());
    });
  }

  private async loop(): Promise<void> {
    try {
      while (this.rows.length > 0 || this.queue.length > 0) {
        let t = performance.now();
        this.admit();
        this.stats.prefillS += (performance.now() - t) / 1000;
        if (this.rows.length === 0) continue;
        t = performance.now();
        await this.step();
        this.stats.decodeS += (performance.now() - t) / 1000;
        // Episodes whose turn ended run their tool call and ask again before the next step.
        await new Promise<void>((r) => setImmediate(r));
      }
    } catch (err) {
      // A failed step fails every turn in flight (their episodes end as policy_error), never hangs them.
      for (const q of [...this.queue.splice(0), ...this.rows]) q.reject(err);
      this.clear();
    } finally {
      this.running = null;
    }
  }

  /** Prefills the waiting prompts as one batch and adds their rows to the batch. */
  private admit(): void {
    const room = (this.opts.maxRows ?? Infinity) - this.rows.length;
    const joining = this.queue.splice(0, Math.max(0, room));
    if (joining.length === 0) return;
    let part: { kv: LayerKV[]; logits: tf.Tensor2D };
    try {
      part = prefill(this.model, joining.map((q) => q.prompt));
    } catch (err) {
      for (const q of joining) q.reject(err);
      return;
    }
    for (const q of joining) {
      this.stats.prefills++;
      this.rows.push({
        opts: q.opts,
        stops: new Set(q.opts.stopTokens ?? []),
        rng: q.opts.rng ?? createRng(0),
        cached: q.prompt.length,
        result: { tokens: [], logProbs: [], entropies: [], finishReason: 'length' },
        resolve: q.resolve,
        reject: q.reject,
      });
    }
    const width = Math.max(this.width(), part.kv[0]!.kT.shape[3]);
    const caches = [this.kv, part.kv].filter((kv) => kv.length > 0);
    const merged = tf.tidy(() => {
      const padded = caches.map((kv) => padLeft(kv, width));
      return padded[0]!.map((_, i) => {
        const layer = padded.map((kv) => kv[i]!);
        const out: LayerKV = { kT: tf.concat(layer.map((l) => l.kT), 0), v: tf.concat(layer.map((l) => l.v), 0) };
        if (layer[0]!.kLast) out.kLast = tf.concat(layer.map((l) => l.kLast!), 0);
        return out;
      });
    });
    const logits = this.logits ? tf.concat([this.logits, part.logits], 0) : part.logits;
    for (const kv of caches) disposeKv(kv);
    if (this.logits) {
      this.logits.dispose();
      part.logits.dispose();
    }
    this.kv = merged;
    this.logits = logits;
  }

  /** Columns of the cache (0 when empty). */
  private width(): number {
    return this.kv[0]?.kT.shape[3] ?? 0;
  }

  /** Samples a token for every row; finished rows leave; one forward pass feeds the rest their token. */
  private async step(): Promise<void> {
    const { blockSize } = this.model.config;
    const V = this.logits!.shape[1];
    const all = (await this.logits!.data()) as Float32Array;
    this.logits!.dispose();
    this.logits = null;
    const next: number[] = [];
    const keep: number[] = [];
    const done: Row[] = [];
    this.stats.maxRows = Math.max(this.stats.maxRows, this.rows.length);
    this.rows.forEach((row, b) => {
      const { opts, result } = row;
      const s = sampleFromLogits(all.subarray(b * V, (b + 1) * V), { temperature: opts.temperature, topP: opts.topP, rng: row.rng });
      result.tokens.push(s.id);
      result.logProbs.push(s.logProb);
      result.entropies.push(s.entropy);
      this.stats.tokens++;
      // generate()'s rules, in its order: a stop token, the turn's budget, then the context.
      if (row.stops.has(s.id)) result.finishReason = 'stop';
      else if (result.tokens.length >= opts.maxNewTokens) result.finishReason = 'length';
      else if (row.cached + 1 > blockSize) result.finishReason = 'context';
      else {
        keep.push(b);
        next.push(s.id);
        return;
      }
      done.push(row);
    });
    if (keep.length < this.rows.length) this.leave(keep);
    for (const row of done) row.resolve(row.result);
    if (keep.length === 0) return;
    const positions = Int32Array.from(this.rows, (r) => r.cached);
    const width = this.width();
    const mask = new Float32Array(this.rows.length * (width + 1));
    this.rows.forEach((r, b) => mask.fill(MASKED, b * (width + 1), b * (width + 1) + width - r.cached));
    const out = tf.tidy(() => {
      const ctx = makeCtx(this.model, {}, true);
      ctx.ragged = { positions, keyMask: tf.tensor4d(mask, [this.rows.length, 1, 1, width + 1]) };
      const B = this.rows.length;
      const { h, kv } = hidden(this.model, tf.tensor2d(Int32Array.from(next), [B, 1], 'int32'), ctx, this.kv);
      // wte^T made per step: the weights may change between steps (async RL updates the model it plays).
      const wteT = this.model.config.tiedHead ? tf.transpose(this.model.params.get('wte')!) : undefined;
      return { logits: head(this.model, tf.reshape(h, [B, this.model.config.nEmbd]), wteT) as tf.Tensor2D, kv };
    });
    disposeKv(this.kv);
    this.kv = out.kv;
    this.logits = out.logits;
    for (const r of this.rows) r.cached++;
    this.stats.steps++;
  }

  /** Keeps the rows `keep`; drops the columns no remaining row uses. */
  private leave(keep: number[]): void {
    const rows = keep.map((b) => this.rows[b]!);
    if (rows.length === 0) {
      this.clear();
      return;
    }
    let kv = keepRows(this.kv, keep);
    const width = Math.max(...rows.map((r) => r.cached));
    const W = kv[0]!.kT.shape[3];
    if (width < W) {
      const trimmed = tf.tidy(() => kv.map((l) => {
        const [B, H, D] = l.kT.shape;
        const out: LayerKV = { kT: tf.slice(l.kT, [0, 0, 0, W - width], [B, H, D, width]), v: tf.slice(l.v, [0, 0, W - width, 0], [B, H, width, D]) };
        if (l.kLast) out.kLast = tf.clone(l.kLast);
        return out;
      }));
      disposeKv(kv);
      kv = trimmed;
    }
    this.kv = kv;
    this.rows = rows;
  }

  private clear(): void {
    disposeKv(this.kv);
    this.kv = [];
    this.logits?.dispose();
    this.logits = null;
    this.rows = [];
  }

  /** Waits for the turns in flight; the decoder holds no tensors afterwards. */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }
}
