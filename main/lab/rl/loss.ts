// The token-level clipped policy-gradient loss with clip-higher (DAPO, used by DUPO and GRPO here;
// docs/pipeline.md, 'RL (DUPO, DAPO, GRPO)'):
//
//   r_t   = exp(logp_new_t - logp_old_t)                                   per generated token
//   obj_t = min( r_t * A_t, clip(r_t, 1 - eps_low, 1 + eps_high) * A_t )
//   loss  = - sum_t m_t * obj_t / sum_t m_t                                 (minimised; = -J)
//
// m_t is the loss mask: 1 on tokens the policy generated in kept samples, 0 on the prompt, observations,
// padding, and on every token of an excluded sample (advantages.ts: weight 0); a sample of weight k has k on its
// generated tokens, the same as k copies of it (rl-update.ts counts a group DUPO copied k times once, so). The mask
// weighs each term, never the ratio (r_t is computed wherever m_t > 0). The sum runs over ALL tokens of
// the batch and is divided once by the batch's total of generated tokens (DAPO's token-level normalisation:
// a long rollout weighs by its length, not as one sample). With mini-batches or accumulation pass
// `tokenCount` = the whole batch's token count so every mini-batch is normalised the same way.
// clip-higher: eps_high > eps_low (DAPO: 0.2 / 0.28) lets low-probability tokens with A > 0 grow further
// before the clip stops them, which keeps entropy from collapsing.
//
// Gradient w.r.t. logp_new_t: d loss / d logp_new_t = -m_t * r_t * A_t / N when the unclipped term is the
// min, else 0. So A > 0 pushes the log-prob up unless r > 1 + eps_high (clipped above); A < 0 pushes it down
// unless r < 1 - eps_low (clipped below). Outside the range on the other side the min picks the unclipped term
// and the gradient flows (A > 0 with r < 1 - eps_low; A < 0 with r > 1 + eps_high).
//
// Metrics, over the mask:
//   actor/pg_clipfrac_high  fraction of tokens with A > 0 and r > 1 + eps_high (the clip is active above);
//   actor/pg_clipfrac_low   fraction of tokens with A < 0 and r < 1 - eps_low (the clip is active below);
//   actor/pg_clipfrac       their sum: the tokens whose gradient the clip zeroes (verl's pg_clipfrac);
//   actor/approx_kl         mean of (r - 1) - log r (Schulman's k3 estimator of KL(old || new): >= 0, low variance);
//   actor/entropy           mean entropy of the new policy, when given.
//
// Strictly on-policy (WebSailor-V2): one update per rollout batch with the weights that sampled it. Then
// logp_old = logp_new numerically and `oldLogProbs: 'on_policy'` uses a gradient-free copy of the new
// log-probs (r = 1, gradient A * grad logp, no clipping), which also guarantees old and new are computed on
// exactly the same windows and tokens. With several mini-batch updates per rollout batch, compute the old
// log-probs once before the first update (model/logprobs sequenceLogProbs on the training windows) instead.
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../base/errors';
import type { GPT } from '../model/gpt';
import { sequenceLogProbs, tokenStats } from '../model/logprobs';
import { makeBatch, type Batch } from '../model/mask';

export interface ClipConfig {
  epsLow: number;
  epsHigh: number;
}

/** DAPO's clip-higher values. */
export const CLIP_DEFAULTS: ClipConfig = { epsLow: 0.2, epsHigh: 0.28 };

export interface PgOptions extends ClipConfig {
  /** Normaliser: the number of generated tokens of the whole batch (default: the sum of this mask). */
  tokenCount?: number;
  /**
   * Entropy bonus (rl.entropyCoef, default 0: none). The fused head reports entropy without a gradient, so the
   * bonus follows the sampled-token estimator of the entropy's gradient, grad H = -E[log pi(a) grad log pi(a)]:
   * the loss gains coef * sum_t m_t * sg(logp_t) * logp_t / N, which pushes down the log-probs of confident
   * sampled tokens most (its value is no entropy; only its gradient counts).
   */
  entropyCoef?: number;
}

export interface PgInputs {
  /** log pi_theta per token, differentiable, [B, T]. */
  newLogProbs: tf.Tensor;
  /** log pi_theta_old per token, [B, T]; 'on_policy': a gradient-free copy of newLogProbs. */
  oldLogProbs: tf.Tensor | 'on_policy';
  /** Advantage per token [B, T], or per row [B, 1]. */
  advantages: tf.Tensor;
  /** Loss mask [B, T] (see the top of this file). */
  mask: tf.Tensor;
  /** Entropy of the new policy per token [B, T], for the metric only. */
  entropy?: tf.Tensor;
}

export interface PgStats {
  pgLoss: number;
  clipfrac: number;
  clipfracLow: number;
  clipfracHigh: number;
  approxKl: number;
  /** null when no entropy was given. */
  entropy: number | null;
  /** Tokens in the loss (sum of the mask). */
  tokens: number;
}

/** Log-ratios are clamped to [-20, 20] before exp (verl's guard): a stray token cannot make inf * 0 = NaN. */
const MAX_LOG_RATIO = 20;

function checkClip(opts: ClipConfig): void {
  if (!(opts.epsLow >= 0 && opts.epsLow < 1)) throw new LabError('bad_request', `epsLow must be in [0, 1), got ${opts.epsLow}`);
  if (!(opts.epsHigh >= 0)) throw new LabError('bad_request', `epsHigh must be >= 0, got ${opts.epsHigh}`);
}

/** The value of x with no gradient (tfjs has no stop_gradient). */
export const detach = tf.customGrad((x) => ({
  value: tf.clone(x as tf.Tensor),
  gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy),
})) as (x: tf.Tensor) => tf.Tensor;

/**
 * The loss (scalar, to minimise) and its statistics as one tensor [pgLoss, clipLow, clipHigh, approxKl,
 * entropy (NaN if absent), tokens]. Call inside tf.tidy (updateStep's lossFn is); read stats with readPgStats.
 */
export function pgLoss(inp: PgInputs, opts: PgOptions = CLIP_DEFAULTS): { loss: tf.Scalar; stats: tf.Tensor1D } {
  checkClip(opts);
  const { newLogProbs, mask } = inp;
  const shape = newLogProbs.shape;
  const old = inp.oldLogProbs === 'on_policy' ? detach(newLogProbs) : inp.oldLogProbs;
  for (const [name, t] of [['oldLogProbs', old], ['mask', mask]] as const) {
    if (t.shape.join() !== shape.join()) throw new LabError('bad_request', `${name} has shape [${t.shape.join(', ')}], newLogProbs [${shape.join(', ')}]`);
  }
  const adv = tf.broadcastTo(inp.advantages, shape);
  // Zero outside the loss (a stray padding token cannot overflow); inside, the mask weighs the term, not the ratio.
  const logRatio = tf.clipByValue(tf.mul(tf.sub(newLogProbs, old), tf.cast(tf.greater(mask, 0), 'float32')), -MAX_LOG_RATIO, MAX_LOG_RATIO);
  const ratio = tf.exp(logRatio);
  const unclipped = tf.mul(ratio, adv);
  const clipped = tf.mul(tf.clipByValue(ratio, 1 - opts.epsLow, 1 + opts.epsHigh), adv);
  const objective = tf.sum(tf.mul(tf.minimum(unclipped, clipped), mask));
  const tokens = tf.sum(mask);
  const norm = opts.tokenCount !== undefined ? tf.scalar(Math.max(opts.tokenCount, 1)) : tf.maximum(tokens, 1);
  const pg = tf.neg(tf.div(objective, norm)) as tf.Scalar;
  const coef = opts.entropyCoef ?? 0;
  if (!(coef >= 0)) throw new LabError('bad_request', `entropyCoef must be >= 0, got ${coef}`);
  const bonus = (): tf.Tensor => tf.mul(coef, tf.div(tf.sum(tf.mul(tf.mul(detach(newLogProbs), newLogProbs), mask)), norm));
  const loss = (coef > 0 ? tf.add(pg, bonus()) : pg) as tf.Scalar;

  const denom = tf.maximum(tokens, 1);
  const frac = (cond: tf.Tensor): tf.Scalar => tf.div(tf.sum(tf.mul(tf.cast(cond, 'float32'), mask)), denom) as tf.Scalar;
  const clipHigh = frac(tf.logicalAnd(tf.greater(adv, 0), tf.greater(ratio, 1 + opts.epsHigh)));
  const clipLow = frac(tf.logicalAnd(tf.less(adv, 0), tf.less(ratio, 1 - opts.epsLow)));
  const kl = tf.div(tf.sum(tf.mul(tf.sub(tf.sub(ratio, 1), logRatio), mask)), denom);
  const entropy = inp.entropy ? tf.div(tf.sum(tf.mul(inp.entropy, mask)), denom) : tf.scalar(NaN);
  // The statistics' pg_loss is the policy-gradient part alone: the bonus's value means nothing.
  const stats = tf.stack([pg, clipLow, clipHigh, kl, entropy, tokens]) as tf.Tensor1D;
  return { loss, stats };
}

/** Reads (does not dispose) the stats tensor of pgLoss. */
export async function readPgStats(stats: tf.Tensor): Promise<PgStats> {
  const [pg, low, high, kl, ent, tokens] = Array.from(await stats.data());
  return { pgLoss: pg!, clipfrac: low! + high!, clipfracLow: low!, clipfracHigh: high!, approxKl: kl!, entropy: Number.isNaN(ent!) ? null : ent!, tokens: tokens! };
}

/**
 * A lossFn for model/train updateStep plus the statistics of the call it made: `stats()` reads them (as of
 * the weights before the update) and frees them. The stats tensor is kept out of updateStep's tidy with
 * tf.keep and disposed on the next call or by stats().
 */
export function pgLossFn(build: (step: number) => PgInputs, opts: PgOptions = CLIP_DEFAULTS): { lossFn: (step: number) => tf.Scalar; stats: () => Promise<PgStats | null> } {
  let kept: tf.Tensor | null = null;
  return {
    lossFn: (step) => {
      const { loss, stats } = pgLoss(build(step), opts);
      kept?.dispose();
      kept = tf.keep(stats);
      return loss;
    },
    stats: async () => {
      if (!kept) return null;
      const s = await readPgStats(kept);
      kept.dispose();
      kept = null;
      return s;
    },
  };
}

// ---------- packing samples into loss inputs ----------

/** One training window of one rollout (train/view turnWindows), with its rollout's advantage and weight. */
export interface PgSample {
  ids: readonly number[];
  /** 1 on the tokens the policy generated in this window's turn (turnWindows' mask). */
  mask: readonly number[];
  advantage: number;
  /** 0 excludes the sample (advantages.ts); default 1. */
  weight?: number;
  /** oldLogProbs[t] = log pi_old(ids[t + 1] | ids[0..t]): ids.length - 1 entries, as sequenceLogProbs returns. */
  oldLogProbs?: readonly number[];
}

export interface PgBatch {
  /** ids, targets and the loss mask (= token mask * sample weight), [B, T] row-major. */
  batch: Batch;
  /** Advantage per target position [B * T] (0 on padding). */
  advantages: Float32Array;
  /** Old log-prob per target position [B * T], or null when no sample has them (strictly on-policy). */
  oldLogProbs: Float32Array | null;
}

/** Packs windows into right-padded [B, T] arrays (model/mask makeBatch) with advantages and old log-probs. */
export function packPgBatch(samples: readonly PgSample[], seqLen: number, padId: number): PgBatch {
  const withOld = samples.filter((s) => s.oldLogProbs !== undefined).length;
  if (withOld !== 0 && withOld !== samples.length) throw new LabError('bad_request', 'either every sample has oldLogProbs or none has');
  const batch = makeBatch(
    samples.map((s) => {
      const w = s.weight ?? 1;
      if (!(w >= 0) || !Number.isFinite(s.advantage)) throw new LabError('bad_request', `sample weight must be >= 0 and advantage finite, got ${w}, ${s.advantage}`);
      return { ids: [...s.ids], mask: s.mask.map((m) => m * w) };
    }),
    seqLen,
    padId,
  );
  const T = seqLen;
  const advantages = new Float32Array(samples.length * T);
  const oldLogProbs = withOld ? new Float32Array(samples.length * T) : null;
  samples.forEach((s, b) => {
    const n = batch.lengths[b]!;
    if (s.oldLogProbs && s.oldLogProbs.length < n) throw new LabError('bad_request', `sample ${b}: ${s.oldLogProbs.length} old log-probs for ${n} target tokens`);
    for (let t = 0; t < n; t++) {
      advantages[b * T + t] = s.advantage;
      if (oldLogProbs) oldLogProbs[b * T + t] = s.oldLogProbs![t]!;
    }
  });
  // makeBatch's lossTokens counts the weighted mask: the normaliser excludes weight-0 samples.
  return { batch, advantages, oldLogProbs };
}

/** Old log-probs of windows under the current weights, no gradient (call before the first update of a batch). */
export async function oldLogProbsFor(model: GPT, samples: readonly Pick<PgSample, 'ids'>[], batchSize = 8): Promise<number[][]> {
  return (await sequenceLogProbs(model, samples.map((s) => s.ids), { batchSize })).logProbs;
}

/** The RL lossFn for updateStep on a packed batch: new log-probs and entropy from the model, then pgLoss. */
export function rlLossFn(model: GPT, packed: PgBatch, opts: PgOptions = CLIP_DEFAULTS): { lossFn: (step: number) => tf.Scalar; stats: () => Promise<PgStats | null> } {
  const { batchSize: B, seqLen: T } = packed.batch;
  return pgLossFn(() => {
    const st = tokenStats(model, tf.tensor2d(packed.batch.ids, [B, T], 'int32'), tf.tensor2d(packed.batch.targets, [B, T], 'int32'));
    return {
      newLogProbs: st.logProbs,
      oldLogProbs: packed.oldLogProbs ? tf.tensor2d(packed.oldLogProbs, [B, T]) : 'on_policy',
      advantages: tf.tensor2d(packed.advantages, [B, T]),
      mask: tf.tensor2d(packed.batch.mask, [B, T]),
      entropy: st.entropy,
    };
  }, opts);
}

// ---------- plain-number reference ----------

/**
 * The same loss, statistics and the analytic gradient d loss / d logp_new in plain numbers (tests, and a
 * readable statement of what pgLoss computes). All arrays are flat and of equal length.
 */
export function pgLossReference(
  newLogProbs: readonly number[],
  oldLogProbs: readonly number[],
  advantages: readonly number[],
  mask: readonly number[],
  opts: PgOptions = CLIP_DEFAULTS,
  entropy?: readonly number[],
): PgStats & { loss: number; grad: number[] } {
  checkClip(opts);
  const n = newLogProbs.length;
  if ([oldLogProbs, advantages, mask].some((a) => a.length !== n) || (entropy && entropy.length !== n)) throw new LabError('bad_request', 'pgLossReference: arrays of different lengths');
  const tokens = mask.reduce((a, m) => a + m, 0);
  const N = opts.tokenCount !== undefined ? Math.max(opts.tokenCount, 1) : Math.max(tokens, 1);
  const D = Math.max(tokens, 1);
  const coef = opts.entropyCoef ?? 0;
  let bonus = 0;
  let objective = 0;
  let low = 0;
  let high = 0;
  let kl = 0;
  let ent = 0;
  const grad: number[] = [];
  for (let t = 0; t < n; t++) {
    const m = mask[t]!;
    const A = advantages[t]!;
    const lr = Math.max(-MAX_LOG_RATIO, Math.min(MAX_LOG_RATIO, (newLogProbs[t]! - oldLogProbs[t]!) * (m > 0 ? 1 : 0)));
    const r = Math.exp(lr);
    const u = r * A;
    const c = Math.min(Math.max(r, 1 - opts.epsLow), 1 + opts.epsHigh) * A;
    objective += m * Math.min(u, c);
    grad.push((u <= c ? (-m * r * A) / N : 0) + (coef * m * newLogProbs[t]!) / N + 0); // + 0 turns -0 into 0
    bonus += (coef * m * newLogProbs[t]! * newLogProbs[t]!) / N;
    if (A > 0 && r > 1 + opts.epsHigh) high += m;
    if (A < 0 && r < 1 - opts.epsLow) low += m;
    kl += m * (r - 1 - lr);
    if (entropy) ent += m * entropy[t]!;
  }
  const pgLoss = -objective / N;
  return {
    loss: pgLoss + bonus, pgLoss, grad,
    clipfrac: (low + high) / D, clipfracLow: low / D, clipfracHigh: high / D, approxKl: kl / D, entropy: entropy ? ent / D : null, tokens,
  };
}
