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
// It is data-parallel on every core as SFT's steps are (model/replicas.ts): the samples are shared out
// among this thread and the stage's replicas (update-worker.ts), each computes its share's gradients
// (pgGradients, the same code on every thread) and updateStep adds them before clipping and AdamW.
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
import { oldLogProbsFor, packPgBatch, rlLossFn, type ClipConfig, type PgBatch, type PgOptions, type PgSample, type PgStats } from '../../rl/loss';
import { Replicas } from '../../model/replicas';
import { scriptBeside } from '../../util/worker-spawn';
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
export function packChunks(samples: readonly PgSample[], padId: number, chunk = CHUNK_WINDOWS): PgBatch[] {
  const out: PgBatch[] = [];
  for (let i = 0; i < samples.length; i += chunk) {
    const part = samples.slice(i, i + chunk);
    const seqLen = Math.max(1, ...part.map((s) => s.ids.length - 1));
    out.push(packPgBatch(part, seqLen, padId));
  }
  return out;
}

/**
 * Splits samples into `parts` contiguous shares of about equal work (by window length), one per thread of a
 * data-parallel update; shares may be empty when there are fewer samples than parts.
 */
export function shareSamples(samples: readonly PgSample[], parts: number): PgSample[][] {
  const total = samples.reduce((a, s) => a + s.ids.length, 0);
  const out: PgSample[][] = Array.from({ length: parts }, () => []);
  let done = 0;
  for (const s of samples) {
    // The share whose slice of the total this sample's middle falls in.
    const p = Math.min(parts - 1, Math.floor(((done + s.ids.length / 2) * parts) / Math.max(total, 1)));
    out[p]!.push(s);
    done += s.ids.length;
  }
  return out;
}

/** One share of a data-parallel RL update: packed chunks and the loss options (tokenCount: the whole batch's). */
export interface PgWork {
  chunks: PgBatch[];
  opts: PgOptions;
}

/** Token-weighted sums of the loss statistics (added across chunks and threads, then divided once). */
export interface PgSums {
  tokens: number;
  low: number;
  high: number;
  kl: number;
  ent: number;
  entTokens: number;
}

const noSums = (): PgSums => ({ tokens: 0, low: 0, high: 0, kl: 0, ent: 0, entTokens: 0 });

/**
 * The summed gradients (one per variable, model.params order; null when there is no chunk) of a share's
 * chunks, one chunk's activations alive at a time, with its loss part and statistics. The same on rank 0
 * and on a replica thread (update-worker.ts). Each chunk's loss is normalised by opts.tokenCount.
 */
export async function pgGradients(model: GPT, work: PgWork, step: number): Promise<{ grads: tf.Tensor[] | null; loss: number; sums: PgSums }> {
  const names = [...model.params.keys()];
  const vars = [...model.params.values()];
  const varName = new Map(vars.map((v, i) => [v.name, names[i]!]));
  let sum: tf.Tensor[] | null = null;
  let loss = 0;
  const acc = noSums();
  try {
    for (const chunk of work.chunks) {
      const { lossFn, stats } = rlLossFn(model, chunk, work.opts);
      const prev: tf.Tensor[] | null = sum;
      sum = tf.tidy(() => {
        const { value, grads } = tf.variableGrads(() => lossFn(step), vars);
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
  } catch (err) {
    if (sum) tf.dispose(sum);
    throw err;
  }
  return { grads: sum, loss, sums: acc };
}

/** Starts `count` replica threads for data-parallel RL updates (their entry: update-worker.ts). */
export function startUpdateReplicas(model: GPT, count: number): Promise<Replicas<PgWork>> {
  return Replicas.start<PgWork>(model, count, scriptBeside(import.meta.url, 'update-worker.ts', 'rl-replica.js'));
}

/**
 * One optimiser step on the samples (see the top of this file). Returns null when no token is in the loss.
 * With `replicas` the samples are shared out among this thread and the replicas' (shareSamples), each share
 * packed into its own chunks; their gradients are added as SFT's are (model/train updateStep).
 */
export async function rlUpdate(
  model: GPT, opt: AdamW, samples: readonly PgSample[], cfg: TrainConfig, clip: ClipConfig & { entropyCoef?: number }, padId: number, replicas?: Replicas<PgWork>,
): Promise<RlUpdateResult | null> {
  const shares = shareSamples(samples, 1 + (replicas?.size ?? 0)).map((share) => packChunks(share, padId));
  const tokenCount = shares.flat().reduce((a, c) => a + c.batch.lossTokens, 0);
  if (tokenCount === 0) return null;
  const opts: PgOptions = { ...clip, tokenCount };
  const [ownChunks, ...rest] = shares;
  const peers = replicas?.start(model, rest.map((chunks) => (chunks.length > 0 ? { chunks, opts } : null)), opt.step);
  peers?.catch(() => undefined); // handled where awaited (updateStep), not unhandled while this thread computes
  let own: Awaited<ReturnType<typeof pgGradients>>;
  try {
    own = await pgGradients(model, { chunks: ownChunks!, opts }, opt.step);
  } catch (err) {
    await peers?.catch(() => undefined); // the replicas finish their share before the pool is used again
    throw err;
  }
  const vars = [...model.params.values()];
  const grads = own.grads ?? vars.map((v) => tf.zeros(v.shape));
  try {
    // A loss of the weights whose value is this thread's loss part and whose gradient is its summed gradients.
    const summed = tf.customGrad((..._inputs: unknown[]) => ({
      value: tf.scalar(own.loss),
      gradFunc: (dy: tf.Tensor) => grads.map((g) => tf.mul(g, dy)),
    })) as (...xs: tf.Tensor[]) => tf.Scalar;
    const update = await updateStep(model, opt, () => summed(...vars), cfg, peers && (() => peers));
    const sums = [own.sums, ...((await peers)?.extras ?? []) as PgSums[]].reduce((a, x) => {
      for (const k of Object.keys(a) as (keyof PgSums)[]) a[k] += x[k];
      return a;
    }, noSums());
    const d = Math.max(sums.tokens, 1);
    return {
      update,
      pg: {
        pgLoss: update.loss,
        clipfracLow: sums.low / d,
        clipfracHigh: sums.high / d,
        clipfrac: (sums.low + sums.high) / d,
        approxKl: sums.kl / d,
        entropy: sums.entTokens > 0 ? sums.ent / sums.entTokens : null,
        tokens: sums.tokens,
      },
    };
  } finally {
    tf.dispose(grads);
  }
}

/**
 * The distinct entries of a batch, in the order they first appear, each with how many slots it fills (DUPO
 * copies a group with signal into the slots of groups without). Pure.
 */
export function slotsOnce<T>(batch: readonly T[]): Array<{ item: T; copies: number }> {
  const seen = new Map<T, { item: T; copies: number }>();
  for (const item of batch) {
    const s = seen.get(item);
    if (s) s.copies++;
    else seen.set(item, { item, copies: 1 });
  }
  return [...seen.values()];
}

/**
 * The update on a step's batch of groups (copies included): `updatesPerBatch` optimiser steps on mini-batches
 * of whole groups, in order. A group copied into several slots of a mini-batch (DUPO) is computed once, its
 * samples weighted by its copies: packPgBatch weighs the loss mask, and the token count that normalises the
 * loss counts the weighted mask, so the loss, its gradient and the statistics are those of the copies (up to
 * float rounding) for the work of one. Null: no token was in the loss.
 */
export async function trainOnBatch(stage: RlStage, batch: readonly Group[]): Promise<{ pg: PgStats; update: { gradNorm: number; lr: number } } | null> {
  const { rl, opt, trainCfg, pad } = stage;
  const { model } = stage.run;
  const U = Math.min(rl.updatesPerBatch, batch.length);
  const minis = Array.from({ length: U }, (_, u) => slotsOnce(batch.slice(Math.floor((u * batch.length) / U), Math.floor(((u + 1) * batch.length) / U))));
  const samplesOfGroup = new Map<Group, PgSample[]>();
  for (const g of new Set(batch)) {
    samplesOfGroup.set(g, g.rollouts.flatMap((r, i) => (g.adv.weights[i] === 0 ? [] : samplesOf(stage, g.qa, r, g.turnAdvantages?.[i] ?? [g.adv.advantages[i]!]))));
  }
  const per = minis.map((m) => m.flatMap(({ item, copies }) => samplesOfGroup.get(item)!.map((s) => (copies === 1 ? s : { ...s, weight: (s.weight ?? 1) * copies }))));
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
  const results: RlUpdateResult[] = [];
  let at = 0;
  for (const mini of per) {
    const r = await rlUpdate(model, opt, all.slice(at, at + mini.length), trainCfg, { epsLow: rl.epsLow, epsHigh: rl.epsHigh, entropyCoef: rl.entropyCoef }, pad, stage.replicas);
    at += mini.length;
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
