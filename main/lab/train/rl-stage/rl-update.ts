// The RL stage's update: a step's batch of groups as policy-gradient samples (one per generated turn), then
// `updatesPerBatch` optimiser steps on mini-batches of whole groups (trainOnBatch).
//
// Old log-probs (the ratio's denominator): strictly on-policy (sync, one update per batch) uses the new
// log-probs without gradient (ratio 1; rl/loss 'on_policy'); several updates per batch compute them once
// before the first update; async uses the log-probs recorded while sampling, so a stale sample's ratio
// corrects for the policy having moved (at temperature 1 and top-p 1 these are the policy's own).
// With several updates per batch each update is a token-level mean over its own mini-batch.
//
// One optimiser step (rlUpdate) runs over a batch too large for one forward/backward pass (a step of 4
// questions x 8 rollouts is ~200 turn windows; more than ~32 at once exhaust the WebAssembly heap).
//
// The batch is packed into chunks (rl/loss packPgBatch); each chunk's loss is normalised by the token count
// of the WHOLE batch (DAPO's token-level mean), so the gradients of the chunks add up to the gradient of the
// batch. They are summed chunk by chunk (one chunk's activations alive at a time), then handed to
// model/train updateStep through a loss whose gradient is that sum: updateStep does what it does for SFT
// (global-norm clipping, the learning-rate schedule, AdamW, one read, a yield to the event loop).
import * as tf from '@tensorflow/tfjs';
import type { QA } from '../../formats';
import { renderStepParts, type AgentStep } from '../../agent/react';
import type { GPT } from '../../model/gpt';
import { updateStep, type TrainConfig, type UpdateResult } from '../../model/train';
import type { AdamW } from '../../model/optim';
import { oldLogProbsFor, packPgBatch, rlLossFn, type ClipConfig, type PgSample, type PgStats } from '../../rl/loss';
import { policyPrompt, TURN_TOKENS, type SampledTurn } from '../policy/policy';
import type { RlStage } from './rl-stage';
import type { Group, Rollout } from './rl-rollouts';

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
export async function rlUpdate(
  model: GPT, opt: AdamW, samples: readonly PgSample[], cfg: TrainConfig, clip: ClipConfig & { entropyCoef?: number }, padId: number,
): Promise<RlUpdateResult | null> {
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

/** The update on a step's batch of groups (copies included): `updatesPerBatch` optimiser steps. Null: no token was in the loss. */
export async function trainOnBatch(stage: RlStage, batch: readonly Group[]): Promise<{ pg: PgStats; update: { gradNorm: number; lr: number } } | null> {
  const { rl, opt, trainCfg, pad } = stage;
  const { model } = stage.run;
  const U = Math.min(rl.updatesPerBatch, batch.length);
  const per = batch.map((g) => g.rollouts.flatMap((r, i) => (g.adv.weights[i] === 0 ? [] : samplesOf(stage, g.qa, r, g.turnAdvantages?.[i] ?? [g.adv.advantages[i]!]))));
  let all = per.flat();
  // Old log-probs (see the top of this file): async keeps the sampling ones (when the policy reported them),
  // several updates per batch compute them once now, one update per batch is on-policy (none needed).
  const keepSampled = rl.mode === 'async' && all.length > 0 && all.every((x) => x.oldLogProbs !== undefined);
  if (!keepSampled && U > 1) {
    const old = await oldLogProbsFor(model, all);
    all = all.map((x, i) => ({ ...x, oldLogProbs: old[i]! }));
  } else if (!keepSampled) {
    all = all.map(({ oldLogProbs: _drop, ...x }) => x);
  }
  // Mini-batches of whole groups, in order.
  const sizes = per.map((p) => p.length);
  const results: RlUpdateResult[] = [];
  let at = 0;
  for (let u = 0; u < U; u++) {
    const from = Math.floor((u * batch.length) / U);
    const to = Math.floor(((u + 1) * batch.length) / U);
    const n = sizes.slice(from, to).reduce((a, x) => a + x, 0);
    const r = await rlUpdate(model, opt, all.slice(at, at + n), trainCfg, { epsLow: rl.epsLow, epsHigh: rl.epsHigh, entropyCoef: rl.entropyCoef }, pad);
    at += n;
    if (r) results.push(r);
  }
  if (results.length === 0) return null;
  const tokens = results.reduce((a, r) => a + r.pg.tokens, 0) || 1;
  const w = (f: (p: PgStats) => number): number => results.reduce((a, r) => a + f(r.pg) * r.pg.tokens, 0) / tokens;
  const ent = results.every((r) => r.pg.entropy !== null) ? w((p) => p.entropy!) : null;
  return {
    pg: {
      pgLoss: w((p) => p.pgLoss), clipfrac: w((p) => p.clipfrac), clipfracLow: w((p) => p.clipfracLow), clipfracHigh: w((p) => p.clipfracHigh),
      approxKl: w((p) => p.approxKl), entropy: ent, tokens,
    },
    update: { gradNorm: results.reduce((a, r) => a + r.update.gradNorm, 0) / results.length, lr: results.at(-1)!.update.lr },
  };
}

/**
 * One sample per generated turn: the context the policy was given followed by what it sampled, the loss
 * on the sampled ids. A policy that reports no turns (a scripted one) gets its turns as the model would
 * have been given and would have written them: the same prompt, the turn's text tokenised. `advantages`:
 * per turn (credit per turn), or one for every turn; a turn past the list takes its last.
 */
function samplesOf(stage: RlStage, qa: QA, r: Rollout, advantages: readonly number[]): PgSample[] {
  const { model, tok } = stage.run;
  const turns: Array<Pick<SampledTurn, 'prompt' | 'tokens'> & { logProbs?: number[] }> = r.turns.length
    ? r.turns
    : (r.traj.steps as AgentStep[]).map((st, j, steps) => {
        const { think, action } = renderStepParts(st);
        return { prompt: policyPrompt(tok, qa.question, steps.slice(0, j), model.config.blockSize, TURN_TOKENS), tokens: [...tok.encode(think), ...tok.encode(action)] };
      });
  return turns
    .map((t, j) => ({ ...t, advantage: advantages[Math.min(j, advantages.length - 1)]! }))
    .filter((t) => t.tokens.length > 0)
    .map((t) => {
      const tokens = t.tokens.slice(0, model.config.blockSize + 1 - t.prompt.length);
      return {
        ids: [...t.prompt, ...tokens],
        mask: [...t.prompt.map(() => 0), ...tokens.map(() => 1)],
        advantage: t.advantage,
        ...(t.logProbs ? { oldLogProbs: [...new Array<number>(t.prompt.length - 1).fill(0), ...t.logProbs.slice(0, tokens.length)] } : {}),
      };
    });
}
