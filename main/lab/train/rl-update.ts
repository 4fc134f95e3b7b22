// One RL optimiser step over a batch too large for one forward/backward pass (a step of 4 questions x 8
// rollouts is ~200 turn windows; more than ~32 at once exhaust the WebAssembly heap).
//
// The batch is packed into chunks (rl/loss packPgBatch); each chunk's loss is normalised by the token count
// of the WHOLE batch (DAPO's token-level mean), so the gradients of the chunks add up to the gradient of the
// batch. They are summed chunk by chunk (one chunk's activations alive at a time), then handed to
// model/train updateStep through a loss whose gradient is that sum: updateStep does what it does for SFT
// (global-norm clipping, the learning-rate schedule, AdamW, one read, a yield to the event loop).
import * as tf from '@tensorflow/tfjs';
import type { GPT } from '../model/gpt';
import { updateStep, type TrainConfig, type UpdateResult } from '../model/train';
import type { AdamW } from '../model/optim';
import { packPgBatch, rlLossFn, type ClipConfig, type PgSample, type PgStats } from '../rl/loss';

/** Turn windows per forward/backward pass. */
export const CHUNK_WINDOWS = 16;

export interface RlUpdateResult {
  update: UpdateResult;
  /** The loss statistics over the whole batch (token-weighted over the chunks). */
  pg: PgStats;
}

/** Splits samples into chunks and packs each to its own longest window (less padding than blockSize). */
export function packChunks(samples: readonly PgSample[], padId: number, chunk = CHUNK_WINDOWS): ReturnType<typeof packPgBatch>[] {
  const out: ReturnType<typeof packPgBatch>[] = [];
  for (let i = 0; i < samples.length; i += chunk) {
    const part = samples.slice(i, i + chunk);
    const seqLen = Math.max(1, ...part.map((s) => s.ids.length - 1));
    out.push(packPgBatch(part, seqLen, padId));
  }
  return out;
}

/** One optimiser step on the samples (see the top of this file). Returns null when no token is in the loss. */
export async function rlUpdate(model: GPT, opt: AdamW, samples: readonly PgSample[], cfg: TrainConfig, clip: ClipConfig, padId: number): Promise<RlUpdateResult | null> {
  const chunks = packChunks(samples, padId);
  const tokenCount = chunks.reduce((a, c) => a + c.batch.lossTokens, 0);
  if (tokenCount === 0) return null;
  const names = [...model.params.keys()];
  const vars = [...model.params.values()];
  const varName = new Map(vars.map((v, i) => [v.name, names[i]!]));
  let sum: tf.Tensor[] | null = null;
  let loss = 0;
  const acc = { tokens: 0, low: 0, high: 0, kl: 0, ent: 0, entTokens: 0 };
  try {
    for (const chunk of chunks) {
      const { lossFn, stats } = rlLossFn(model, chunk, { ...clip, tokenCount });
      const prev: tf.Tensor[] | null = sum;
      sum = tf.tidy(() => {
        const { value, grads } = tf.variableGrads(() => lossFn(opt.step), vars);
        value.dispose();
        const byName = new Map(Object.entries(grads).map(([k, g]) => [varName.get(k)!, g]));
        return names.map((n, i) => (prev ? tf.add(prev[i]!, byName.get(n)!) : tf.clone(byName.get(n)!)));
      });
      if (prev) tf.dispose(prev);
      const s = (await stats())!;
      loss += s.pgLoss;
      acc.tokens += s.tokens;
      acc.low += s.clipfracLow * s.tokens;
      acc.high += s.clipfracHigh * s.tokens;
      acc.kl += s.approxKl * s.tokens;
      if (s.entropy !== null) {
        acc.ent += s.entropy * s.tokens;
        acc.entTokens += s.tokens;
      }
    }
    const grads = sum!;
    // A loss of the weights whose value is the batch loss and whose gradient is the accumulated sum.
    const summed = tf.customGrad((..._inputs: unknown[]) => ({
      value: tf.scalar(loss),
      gradFunc: (dy: tf.Tensor) => grads.map((g) => tf.mul(g, dy)),
    })) as (...xs: tf.Tensor[]) => tf.Scalar;
    const update = await updateStep(model, opt, () => summed(...vars), cfg);
    const d = Math.max(acc.tokens, 1);
    return {
      update,
      pg: {
        pgLoss: loss,
        clipfracLow: acc.low / d,
        clipfracHigh: acc.high / d,
        clipfrac: (acc.low + acc.high) / d,
        approxKl: acc.kl / d,
        entropy: acc.entTokens > 0 ? acc.ent / acc.entTokens : null,
        tokens: acc.tokens,
      },
    };
  } finally {
    if (sum) tf.dispose(sum);
  }
}
