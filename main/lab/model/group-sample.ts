// Batched sampling: the G samples of one prompt (an RL group's first turn, pass@k) decode together, one
// forward pass of G rows per token instead of G passes of one row. The prompt is read once; its KV cache is
// copied to every row; each row samples from its own logits with its own RNG stream. A row that finishes
// (a stop token or its token budget) leaves the batch, so the rest decode on fewer rows.
// Why it pays on one CPU core: a decoding step of one row is mostly fixed per-operation cost (tens of small
// kernels per layer), which G rows share.
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../base/errors';
import { createRng, seedFrom } from '../util/rng';
import type { GPT } from './gpt';
import type { LayerKV } from './attention-heads';
import { decodeStep, disposeKv, sampleFromLogits, type GenerateResult, type SampleOptions } from './generate';

/** Keeps the rows `keep` (indices into the batch) of every cached tensor; disposes the old cache. */
function keepRows(kv: LayerKV[], keep: readonly number[]): LayerKV[] {
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

/**
 * G continuations of `prompt`, decoded as one batch with a KV cache. Row g samples with createRng(seedFrom
 * `${seed}/${g}`) (`seed` defaults to 0), so a row's text does not depend on how many rows run beside it.
 * Same options and results as generate(), one result per row.
 */
export async function generateGroup(model: GPT, prompt: readonly number[], G: number, opts: Omit<SampleOptions, 'rng'> & { seed?: number | string }): Promise<GenerateResult[]> {
  if (prompt.length === 0) throw new LabError('bad_request', 'generateGroup needs a non-empty prompt (start with <|bos|>)');
  if (!(Number.isInteger(G) && G >= 1)) throw new LabError('bad_request', `group size must be a positive integer, got ${G}`);
  const { blockSize } = model.config;
  if (prompt.length > blockSize) throw new LabError('bad_request', `prompt of ${prompt.length} tokens exceeds blockSize ${blockSize}`);
  const rngs = Array.from({ length: G }, (_, g) => createRng(seedFrom(`${opts.seed ?? 0}/${g}`)));
  const stops = new Set(opts.stopTokens ?? []);
  const results: GenerateResult[] = Array.from({ length: G }, () => ({ tokens: [], logProbs: [], entropies: [], finishReason: 'length' }));
  // The tied head's wte^T once for the whole call (the weights do not change while it runs).
  const wteT = model.config.tiedHead ? tf.tidy(() => tf.transpose(model.params.get('wte')!)) : undefined;
  const first = decodeStep(model, prompt, 1, undefined, wteT);
  let kv: LayerKV[] = tf.tidy(() => first.kv.map((l) => {
    const tile = <T extends tf.Tensor>(t: T): T => tf.tile(t, [G, 1, 1, 1]) as T;
    return l.kLast ? { kT: tile(l.kT), v: tile(l.v), kLast: tile(l.kLast) } : { kT: tile(l.kT), v: tile(l.v) };
  }));
  disposeKv(first.kv);
  let logits: tf.Tensor2D = tf.tidy(() => tf.tile(first.logits, [G, 1]));
  first.logits.dispose();
  let rows = Array.from({ length: G }, (_, g) => g); // batch row -> sample index
  let length = prompt.length;
  try {
    for (let n = 0; rows.length > 0; n++) {
      const V = logits.shape[1];
      const all = (await logits.data()) as Float32Array; // one read per step for every row
      const next: number[] = [];
      const keep: number[] = [];
      rows.forEach((g, b) => {
        const s = sampleFromLogits(all.subarray(b * V, (b + 1) * V), { temperature: opts.temperature, topP: opts.topP, rng: rngs[g]! });
        const r = results[g]!;
        r.tokens.push(s.id);
        r.logProbs.push(s.logProb);
        r.entropies.push(s.entropy);
        if (stops.has(s.id)) r.finishReason = 'stop';
        else if (n + 1 >= opts.maxNewTokens) r.finishReason = 'length';
        else if (length + 1 > blockSize) r.finishReason = 'context';
        else {
          keep.push(b);
          next.push(s.id);
        }
      });
      if (keep.length === 0) break;
      if (keep.length < rows.length) {
        kv = keepRows(kv, keep);
        rows = keep.map((b) => rows[b]!);
      }
      const step = decodeStep(model, next, next.length, kv, wteT);
      disposeKv(kv);
      logits.dispose();
      kv = step.kv;
      logits = step.logits;
      length++;
      if ((n & 31) === 31) await new Promise<void>((resolve) => setTimeout(resolve, 0));
    }
  } finally {
    disposeKv(kv);
    logits.dispose();
    wteT?.dispose();
  }
  return results;
}
