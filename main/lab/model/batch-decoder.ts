// Continuous batching (the scheduling vLLM popularised, at this scale): one decoder serves every episode in
// flight. An episode asks for a turn with sample(prompt, opts) and awaits it as it would generate(); the
// decoder prefills the prompt, the row joins the batch, and every decoding step feeds one token of every row
// in one forward pass. A row that finishes its turn (a stop token, its budget, a full context) leaves the
// batch and its promise resolves, so the episode runs its tool call while the others go on decoding; its next
// turn joins again. Why it pays: a decoding step of one row is mostly fixed per-operation cost, which the
// rows share (group-sample.ts does the same for the G samples of one prompt).
//
// Rows hold different numbers of positions. Each row owns a slot of a host-side cache with room for a whole
// context (slot-cache.ts): its prompt's keys are copied in once and every step writes one position in place,
// and attention reads the row's own positions only. Each row samples from its own logits with its own RNG,
// so its tokens are generate()'s with the same prompt and stream whatever runs beside it (up to float
// rounding in the batched matmuls, which a test bounds).
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../base/errors';
import { createRng } from '../util/rng';
import { head, hidden, makeCtx, type GPT } from './gpt';
import type { LayerKV } from './attention-heads';
import { disposeKv, sampleFromLogits, type GenerateResult, type SampleOptions } from './generate';
import { SlotCache } from './slot-cache';
import { SPECIAL_TOKENS } from './tokenizer';

interface Row {
  opts: SampleOptions;
  stops: ReadonlySet<number>;
  rng: NonNullable<SampleOptions['rng']>;
  /** Its slot in the cache and the positions it holds. */
  slot: number;
  cached: number;
  /** The logits of its next token. */
  logits: Float32Array;
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

const PAD = SPECIAL_TOKENS.indexOf('<|pad|>');

/**
 * Prompts of different lengths read in one forward pass, each padded at its end (causal attention never lets
 * a real token see the padding behind it, so each row is read exactly as alone): the logits after each row's
 * last token [n, V] and its cache (each row's first lens[r] positions are its own).
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
    return { kv, logits: head(model, last) as tf.Tensor2D };
  });
}

export class BatchDecoder {
  private rows: Row[] = [];
  private readonly cache: SlotCache;
  private queue: Request[] = [];
  private running: Promise<void> | null = null;
  readonly stats: BatchDecoderStats = { steps: 0, tokens: 0, prefills: 0, maxRows: 0, prefillS: 0, decodeS: 0 };

  /** `maxRows`: rows decoded at once at most; further turns wait for a row to finish. */
  constructor(
    readonly model: GPT,
    private readonly opts: { maxRows?: number } = {},
  ) {
    this.cache = new SlotCache(model.config);
  }

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
        await this.admit();
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
      for (const r of this.rows) this.cache.release(r.slot);
      this.rows = [];
    } finally {
      this.running = null;
    }
  }

  /** Prefills the waiting prompts as one batch; their rows join with their prompts' keys in their slots. */
  private async admit(): Promise<void> {
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
    const V = part.logits.shape[1];
    const logits = (await part.logits.data()) as Float32Array;
    const Tp = part.kv[0]!.kT.shape[3];
    const layers = part.kv.map((l) => ({ kT: l.kT.dataSync() as Float32Array, v: l.v.dataSync() as Float32Array, last: (l.kLast?.dataSync() ?? null) as Float32Array | null }));
    part.logits.dispose();
    disposeKv(part.kv);
    joining.forEach((q, r) => {
      const slot = this.cache.alloc();
      layers.forEach((l, i) => this.cache.fill(i, slot, r, q.prompt.length, Tp, l.kT, l.v, l.last));
      this.stats.prefills++;
      this.rows.push({
        opts: q.opts,
        stops: new Set(q.opts.stopTokens ?? []),
        rng: q.opts.rng ?? createRng(0),
        slot,
        cached: q.prompt.length,
        logits: logits.slice(r * V, (r + 1) * V),
        result: { tokens: [], logProbs: [], entropies: [], finishReason: 'length' },
        resolve: q.resolve,
        reject: q.reject,
      });
    });
  }

  /** Samples a token for every row; finished rows leave; one forward pass feeds the rest their token. */
  private async step(): Promise<void> {
    const { blockSize } = this.model.config;
    const next: number[] = [];
    const keep: Row[] = [];
    this.stats.maxRows = Math.max(this.stats.maxRows, this.rows.length);
    for (const row of this.rows) {
      const { opts, result } = row;
      const s = sampleFromLogits(row.logits, { temperature: opts.temperature, topP: opts.topP, rng: row.rng });
      result.tokens.push(s.id);
      result.logProbs.push(s.logProb);
      result.entropies.push(s.entropy);
      this.stats.tokens++;
      // generate()'s rules, in its order: a stop token, the turn's budget, then the context.
      if (row.stops.has(s.id)) result.finishReason = 'stop';
      else if (result.tokens.length >= opts.maxNewTokens) result.finishReason = 'length';
      else if (row.cached + 1 > blockSize) result.finishReason = 'context';
      else {
        keep.push(row);
        next.push(s.id);
        continue;
      }
      this.cache.release(row.slot);
      row.resolve(result);
    }
    this.rows = keep;
    if (keep.length === 0) return;
    const B = keep.length;
    const logits = tf.tidy(() => {
      const ctx = makeCtx(this.model, {}, true);
      ctx.slots = { cache: this.cache, slots: Int32Array.from(keep, (r) => r.slot), positions: Int32Array.from(keep, (r) => r.cached) };
      const { h } = hidden(this.model, tf.tensor2d(Int32Array.from(next), [B, 1], 'int32'), ctx, undefined);
      // wte^T made per step: the weights may change between steps (async RL updates the model it plays).
      const wteT = this.model.config.tiedHead ? tf.transpose(this.model.params.get('wte')!) : undefined;
      return head(this.model, tf.reshape(h, [B, this.model.config.nEmbd]), wteT) as tf.Tensor2D;
    });
    const all = (await logits.data()) as Float32Array;
    logits.dispose();
    const V = logits.shape[1];
    keep.forEach((r, b) => {
      r.logits = all.subarray(b * V, (b + 1) * V);
      r.cached++;
    });
    this.stats.steps++;
  }

  /** Waits for the turns in flight; the decoder holds no tensors at any time between steps. */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }
}
