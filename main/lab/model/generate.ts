// Generation from the policy model: sampling a token from logits, the incremental Decoder with its KV cache
// (the agent loop feeds prompts and observations and samples turns), generate() with and without the cache,
// and decodeStep for callers that decode several rows at once (group-sample.ts).
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../base/errors';
import { createRng, type Rng } from '../util/rng';
import { head, hidden, makeCtx, type GPT } from './gpt';
import type { LayerKV } from './attention-heads';
import { observationReach } from './positions';

export interface SampleOptions {
  maxNewTokens: number;
  /** Softmax temperature (default 1). 0 = greedy. */
  temperature?: number;
  /** Nucleus sampling mass (default 1 = off). */
  topP?: number;
  /** Seeded RNG for sampling (default createRng(0)). Its state advances: pass the run's RNG to keep reproducibility. */
  rng?: Rng;
  /** Generation stops after emitting any of these ids; the stop token is included in the output. */
  stopTokens?: readonly number[];
}

export type FinishReason = 'stop' | 'length' | 'context';

export interface GenerateResult {
  tokens: number[];
  /**
   * log pi(token | context) of each generated token under the temperature-scaled distribution before top-p
   * truncation (what verl/TRL record as old log-probs; at temperature 1 it is the policy itself).
   * Greedy decoding (temperature 0) reports the temperature-1 log-prob.
   */
  logProbs: number[];
  /** Entropy (nats) of the same distribution at each step. */
  entropies: number[];
  /** stop: a stop token; length: maxNewTokens; context: the blockSize positions are used up. */
  finishReason: FinishReason;
}

/** Scratch for sampleFromLogits: the row's scaled exponentials (grown on demand, never shrunk). */
let scratch = new Float64Array(0);

/**
 * Picks the next token from one row of logits, in plain JS (V is small; one read per token). One pass for
 * the maximum, one for the exponentials (kept for the draw), so a decoding step pays V exps, not 2 V, and
 * allocates nothing without top-p.
 */
export function sampleFromLogits(logits: Float32Array | number[], opts: { temperature?: number; topP?: number; rng: Rng }): { id: number; logProb: number; entropy: number } {
  const V = logits.length;
  const temp = opts.temperature ?? 1;
  const scale = temp > 0 ? 1 / temp : 1;
  if (scratch.length < V) scratch = new Float64Array(V);
  const e = scratch;
  let max = -Infinity;
  let argmax = 0;
  for (let i = 0; i < V; i++) {
    const x = logits[i]! * scale;
    if (x > max) {
      max = x;
      argmax = i;
    }
  }
  let z = 0;
  let dot = 0; // sum e_i * (x_i - max), for the entropy
  for (let i = 0; i < V; i++) {
    const x = logits[i]! * scale - max;
    const ei = Math.exp(x);
    e[i] = ei;
    z += ei;
    dot += ei * x;
  }
  const logZ = Math.log(z); // relative to max
  const entropy = logZ - dot / z;
  const logProbOf = (id: number): number => logits[id]! * scale - max - logZ;
  if (temp <= 0) return { id: argmax, logProb: logProbOf(argmax), entropy };
  const topP = opts.topP ?? 1;
  if (topP < 1) {
    // Smallest prefix of tokens sorted by probability (ties by id) whose mass reaches topP.
    const sorted = Array.from({ length: V }, (_, i) => i).sort((a, b) => e[b]! - e[a]! || a - b);
    let acc = 0;
    let k = 0;
    while (k < V && acc < topP) acc += e[sorted[k++]!]! / z;
    let r = opts.rng.next() * acc;
    let id = sorted[k - 1]!; // float round-off fallback
    for (let j = 0; j < k; j++) {
      r -= e[sorted[j]!]! / z;
      if (r < 0) {
        id = sorted[j]!;
        break;
      }
    }
    return { id, logProb: logProbOf(id), entropy };
  }
  let r = opts.rng.next() * z;
  let id = V - 1; // float round-off fallback
  for (let i = 0; i < V; i++) {
    r -= e[i]!;
    if (r < 0) {
      id = i;
      break;
    }
  }
  return { id, logProb: logProbOf(id), entropy };
}

async function yieldToEventLoop(): Promise<void> {
  await new Promise<void>((resolve) => setTimeout(resolve, 0));
}

/**
 * Incremental decoding state for one sequence, holding a KV cache per layer. The agent loop uses it across
 * turns: feed(prompt), sample(...) a thought + action, feed(observation tokens), sample(...) again; the
 * cache is never recomputed. Call dispose() when done (the cached tensors live outside any tidy).
 */
export class Decoder {
  private kv: LayerKV[] | undefined;
  private lastLogits: tf.Tensor1D | undefined;
  private readonly tokens: number[] = [];
  /** Sampled tokens in the context whose forward pass is deferred until the context is needed again. */
  private pending: number[] = [];

  constructor(readonly model: GPT) {}

  /** Number of positions used (fed + sampled tokens). */
  get length(): number {
    return this.tokens.length;
  }

  get context(): readonly number[] {
    return this.tokens;
  }

  /** Appends tokens to the context (one forward pass over them, plus the last sampled token if still pending). */
  feed(ids: readonly number[]): void {
    this.append(ids, true);
  }

  /**
   * feed(), and for sampled tokens (checkCache false) without the stale-response check: a token the model
   * writes is decoded causally whatever it is. (A full pass over a text in which the model wrote
   * <tool_response> would read the tokens after it bidirectionally: a policy's turn stops on that tag.)
   */
  private append(ids: readonly number[], checkCache: boolean): void {
    const all = [...this.pending, ...ids];
    if (all.length === 0) return;
    const fed = this.tokens.length - this.pending.length;
    if (fed + all.length > this.model.config.blockSize) {
      throw new LabError('bad_request', `context of ${fed + all.length} tokens exceeds blockSize ${this.model.config.blockSize}`);
    }
    const past = this.kv;
    const C = this.model.config.nEmbd;
    const ctx = makeCtx(this.model, {}, true);
    // A single sampled token needs no mask: it reads every key, as a causal query does.
    if (this.model.config.bidirectionalObservations && (checkCache || all.length > 1)) ctx.reach = this.reachOfNew(ids, fed, checkCache);
    const out = tf.tidy(() => {
      const { h, kv } = hidden(this.model, tf.tensor2d(Int32Array.from(all), [1, all.length], 'int32'), ctx, past);
      const last = tf.reshape(tf.slice(h, [0, all.length - 1, 0], [1, 1, C]), [C]);
      return { logits: head(this.model, last) as tf.Tensor1D, kv };
    });
    this.disposeState();
    this.kv = out.kv;
    this.lastLogits = out.logits;
    this.tokens.push(...ids);
    this.pending = [];
  }

  /**
   * Samples up to maxNewTokens, feeding each sampled token back; stops early on a stop token or a full context.
   * Every sampled token (the stop token too) becomes part of the context.
   */
  async sample(opts: SampleOptions): Promise<GenerateResult> {
    this.feed([]); // flush a pending token from the previous turn
    if (!this.lastLogits) throw new LabError('bad_request', 'Decoder.sample needs a non-empty context: feed() a prompt first');
    const res = await sampleLoop(
      opts,
      this.tokens.length,
      this.model.config.blockSize,
      async () => (await this.lastLogits!.data()) as Float32Array,
      (id) => this.append([id], false),
    );
    // The loop never feeds the last sampled token (it may be the end of the episode): keep it pending.
    const last = res.tokens.at(-1);
    if (last !== undefined) {
      this.tokens.push(last);
      this.pending = [last];
    }
    return res;
  }

  /**
   * observationReach of the positions from `fed` on, once `ids` are appended. Cached keys were computed
   * without the new tokens, so a response already in the cache must not continue into them.
   */
  private reachOfNew(ids: readonly number[], fed: number, checkCache: boolean): Int32Array {
    const all = [...this.tokens, ...ids];
    const reach = observationReach(all, 1, all.length);
    for (let k = 0; checkCache && k < fed; k++) {
      if (reach[k]! >= fed) throw new LabError('bad_request', 'a tool response must be fed whole: part of it is already in the KV cache (did the policy write <tool_response>? stop the turn on it)');
    }
    return reach.subarray(fed);
  }

  dispose(): void {
    this.disposeState();
    this.kv = undefined;
    this.lastLogits = undefined;
  }

  private disposeState(): void {
    this.lastLogits?.dispose();
    disposeKv(this.kv);
  }
}

/**
 * One cached decoding step for B rows that share their past length: feeds ids (B rows of T, row-major) after `past`
 * and returns the logits of each row's last position [B, V] and the new cache (the caller disposes the old).
 * No attention mask is needed for one new position, nor a response reach (a single token reads every key).
 * `wteT`: the tied head's wte^T, made once by a caller that decodes many steps with the same weights.
 */
export function decodeStep(model: GPT, ids: readonly number[], B: number, past: LayerKV[] | undefined, wteT?: tf.Tensor): { logits: tf.Tensor2D; kv: LayerKV[] } {
  return tf.tidy(() => {
    const T = ids.length / B;
    const C = model.config.nEmbd;
    const { h, kv } = hidden(model, tf.tensor2d(Int32Array.from(ids), [B, T], 'int32'), makeCtx(model, {}, true), past);
    return { logits: head(model, tf.reshape(tf.slice(h, [0, T - 1, 0], [B, 1, C]), [B, C]), wteT) as tf.Tensor2D, kv };
  });
}

export function disposeKv(kv: readonly LayerKV[] | undefined): void {
  for (const l of kv ?? []) tf.dispose([l.kT, l.v, ...(l.kLast ? [l.kLast] : [])]);
}

async function sampleLoop(
  opts: SampleOptions,
  startLen: number,
  blockSize: number,
  nextLogits: () => Promise<Float32Array>,
  append: (id: number) => void,
): Promise<GenerateResult> {
  const rng = opts.rng ?? createRng(0);
  const stops = new Set(opts.stopTokens ?? []);
  const res: GenerateResult = { tokens: [], logProbs: [], entropies: [], finishReason: 'length' };
  let len = startLen;
  for (let n = 0; n < opts.maxNewTokens; n++) {
    const s = sampleFromLogits(await nextLogits(), { temperature: opts.temperature, topP: opts.topP, rng });
    res.tokens.push(s.id);
    res.logProbs.push(s.logProb);
    res.entropies.push(s.entropy);
    if (stops.has(s.id)) {
      res.finishReason = 'stop';
      break;
    }
    if (n + 1 === opts.maxNewTokens) break;
    if (len + 1 > blockSize) {
      // The sampled token is kept (it is a valid output), but there is no position left to continue.
      res.finishReason = 'context';
      break;
    }
    append(s.id);
    len++;
    if ((n & 31) === 31) await yieldToEventLoop();
  }
  return res;
}

/**
 * Samples a continuation of `prompt` with a KV cache (one forward over the prompt, then one position per
 * token). Returns the tokens with their log-probs and entropies. `useCache: false` recomputes the whole
 * context every token (the bench's baseline; same results up to float rounding).
 */
export async function generate(model: GPT, prompt: readonly number[], opts: SampleOptions & { useCache?: boolean }): Promise<GenerateResult> {
  if (prompt.length === 0) throw new LabError('bad_request', 'generate needs a non-empty prompt (start with <|bos|>)');
  if (opts.useCache === false) return generateNoCache(model, prompt, opts);
  const dec = new Decoder(model);
  try {
    dec.feed(prompt);
    return await dec.sample(opts);
  } finally {
    dec.dispose();
  }
}

/** Generation without a cache: a full forward over the context for every new token. */
export async function generateNoCache(model: GPT, prompt: readonly number[], opts: SampleOptions): Promise<GenerateResult> {
  const cfg = model.config;
  if (prompt.length > cfg.blockSize) throw new LabError('bad_request', `prompt of ${prompt.length} tokens exceeds blockSize ${cfg.blockSize}`);
  const ctxTokens = [...prompt];
  const nextLogits = async (): Promise<Float32Array> => {
    const t = tf.tidy(() => {
      const T = ctxTokens.length;
      const { h } = hidden(model, tf.tensor2d(Int32Array.from(ctxTokens), [1, T], 'int32'), makeCtx(model, {}, true), undefined);
      return head(model, tf.reshape(tf.slice(h, [0, T - 1, 0], [1, 1, cfg.nEmbd]), [cfg.nEmbd]));
    });
    const d = (await t.data()) as Float32Array;
    t.dispose();
    return d;
  };
  return sampleLoop(opts, prompt.length, cfg.blockSize, nextLogits, (id) => ctxTokens.push(id));
}
