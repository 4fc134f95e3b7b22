// What the model says about given tokens: the masked next-token cross-entropy that SFT trains on (see
// docs/pipeline.md, 'RFT cold start'), and per-token log-probs and entropy for RL, differentiable inside tf.tidy or for
// whole sequences without a gradient.
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../base/errors';
import { head, headLogProbs, hidden, makeCtx, type ForwardOptions, type GPT } from './gpt';
import { hasFastGatherGrad } from './kernels/kernels';

/**
 * Masked next-token cross-entropy: -(1 / sum(mask)) * sum(mask * log p(target)).
 * ids, targets: int32 [B, T] (targets[b, t] = the token after ids[b, t]); mask: float32 [B, T], 1 = in the loss.
 * Normalised by the number of unmasked tokens in the whole batch (token level), or by `lossTokens` when given;
 * 0 if the mask is empty. With `ul` (positions b * T + t in the loss and a token each, mask.ts
 * repetitionCandidates), plus weight * -sum log(1 - p(token | position)) under the same normalisation:
 * token-level unlikelihood.
 */
export function loss(model: GPT, ids: tf.Tensor2D, targets: tf.Tensor2D, mask: tf.Tensor2D, opts: ForwardOptions = {}, lossTokens?: number, ul?: Unlikelihood): tf.Scalar {
  // A share of a batch (data-parallel replicas) is normalised by the whole batch's count, so shares add up.
  const n = lossTokens === undefined ? tf.maximum(tf.sum(mask), 1) : Math.max(lossTokens, 1);
  const [B, T] = ids.shape;
  if (!hasFastGatherGrad()) {
    const { h } = hidden(model, ids, makeCtx(model, opts), undefined);
    const flat = tf.reshape(h, [B * T, model.config.nEmbd]) as tf.Tensor2D;
    const lp = headLogProbs(model, flat, tf.reshape(targets, [B * T]) as tf.Tensor1D).logProbs;
    const ce = tf.neg(tf.sum(tf.mul(lp, tf.reshape(mask, [B * T]))));
    return tf.div(ul ? tf.add(ce, unlikelihoodSum(model, flat, ul.pos, ul)) : ce, n) as tf.Scalar;
  }
  // Only the positions in the loss go through the head and the softmax, the two costliest steps of a small
  // model: prompts, tool responses and padding are most of an SFT row and have no target to learn.
  const weights = mask.dataSync();
  const kept: number[] = [];
  for (let i = 0; i < weights.length; i++) if (weights[i] !== 0) kept.push(i);
  if (kept.length === 0) return tf.mul(tf.sum(hidden(model, ids, makeCtx(model, opts), undefined).h), 0) as tf.Scalar; // 0, with a (zero) gradient
  const { h } = hidden(model, ids, makeCtx(model, opts), undefined);
  const all = kept.length === B * T; // every position in the loss: no rows to pick
  const rows = all ? null : tf.tensor1d(kept, 'int32');
  const pick = (t: tf.Tensor): tf.Tensor => (rows ? tf.gather(t, rows) : t);
  const hk = pick(tf.reshape(h, [B * T, model.config.nEmbd])) as tf.Tensor2D;
  const lp = headLogProbs(model, hk, pick(tf.reshape(targets, [B * T])) as tf.Tensor1D).logProbs;
  const ce = tf.neg(tf.sum(tf.mul(lp, pick(tf.reshape(mask, [B * T])))));
  if (!ul) return tf.div(ce, n) as tf.Scalar;
  const row = new Map(kept.map((p, i) => [p, i]));
  return tf.div(tf.add(ce, unlikelihoodSum(model, hk, ul.pos.map((p) => row.get(p)!), ul)), n) as tf.Scalar;
}

/** Token-level unlikelihood: `weight` and the (position, token) pairs it pushes down. */
export interface Unlikelihood {
  weight: number;
  pos: readonly number[];
  tok: readonly number[];
}

/** weight * -sum over pairs of log(1 - p(tok | row)), rows of hidden states h [N, C]. Call inside tf.tidy. */
function unlikelihoodSum(model: GPT, h: tf.Tensor2D, rows: readonly number[], ul: Unlikelihood): tf.Scalar {
  if (rows.length === 0) return tf.scalar(0);
  const V = model.config.vocabSize;
  const logp = tf.reshape(tf.logSoftmax(head(model, h) as tf.Tensor2D), [-1]);
  const at = tf.tensor1d(rows.map((r, i) => r * V + ul.tok[i]!), 'int32');
  const p = tf.exp(tf.gather(logp, at));
  return tf.mul(tf.neg(tf.sum(tf.log(tf.clipByValue(tf.sub(1, p), 1e-5, 1)))), ul.weight) as tf.Scalar;
}

/** Differentiable log pi(targets[b, t] | ids[b, <= t]) as [B, T] (for RL ratios). Call inside tf.tidy. */
export function tokenLogProbs(model: GPT, ids: tf.Tensor2D, targets: tf.Tensor2D, opts: ForwardOptions = {}): tf.Tensor2D {
  return tokenStats(model, ids, targets, opts).logProbs;
}

/** Per-token log-prob of the target and entropy of the predicted distribution, both [B, T]. Call inside tf.tidy. */
export function tokenStats(model: GPT, ids: tf.Tensor2D, targets: tf.Tensor2D, opts: ForwardOptions = {}): { logProbs: tf.Tensor2D; entropy: tf.Tensor2D } {
  const [B, T] = ids.shape;
  const { h } = hidden(model, ids, makeCtx(model, opts), undefined);
  const st = headLogProbs(model, tf.reshape(h, [B * T, model.config.nEmbd]) as tf.Tensor2D, tf.reshape(targets, [B * T]) as tf.Tensor1D);
  return { logProbs: tf.reshape(st.logProbs, [B, T]) as tf.Tensor2D, entropy: tf.reshape(st.entropy, [B, T]) as tf.Tensor2D };
}

/**
 * Per-token log-probs of whole sequences, no gradient: out[s][t] = log p(seq[t + 1] | seq[0..t]), so each row
 * has seq.length - 1 entries. Sequences are right-padded into batches of `batchSize` (padding is causal-safe:
 * it only follows the real tokens). Each sequence must fit blockSize + 1 tokens.
 */
export async function sequenceLogProbs(
  model: GPT, seqs: readonly (readonly number[])[], opts: { batchSize?: number } = {},
): Promise<{ logProbs: number[][]; entropy: number[][] }> {
  const bs = Math.max(1, opts.batchSize ?? 8);
  const logProbs: number[][] = [];
  const entropy: number[][] = [];
  for (let s0 = 0; s0 < seqs.length; s0 += bs) {
    const group = seqs.slice(s0, s0 + bs);
    const T = Math.max(1, ...group.map((s) => s.length - 1));
    if (T > model.config.blockSize) throw new LabError('bad_request', `sequence of ${T + 1} tokens exceeds blockSize + 1 = ${model.config.blockSize + 1}`);
    const ids = new Int32Array(group.length * T);
    const tg = new Int32Array(group.length * T);
    group.forEach((s, b) => {
      for (let t = 0; t + 1 < s.length; t++) {
        ids[b * T + t] = s[t]!;
        tg[b * T + t] = s[t + 1]!;
      }
    });
    const out = tf.tidy(() => {
      const st = tokenStats(model, tf.tensor2d(ids, [group.length, T], 'int32'), tf.tensor2d(tg, [group.length, T], 'int32'));
      return tf.stack([st.logProbs, st.entropy]);
    });
    const data = await out.data();
    out.dispose();
    const half = group.length * T;
    group.forEach((s, b) => {
      const n = Math.max(0, s.length - 1);
      logProbs.push(Array.from(data.subarray(b * T, b * T + n)));
      entropy.push(Array.from(data.subarray(half + b * T, half + b * T + n)));
    });
  }
  return { logProbs, entropy };
}
