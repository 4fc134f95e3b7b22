import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createModel, disposeModel, resolveGPTConfig, type GPT } from '../../main/lab/model/gpt';
import { loss } from '../../main/lab/model/logprobs';
import { createOptimizer, resolveTrainConfig, updateStep } from '../../main/lab/model/train';
import { oldLogProbsFor, packPgBatch, pgLoss, pgLossReference, readPgStats, rlLossFn, type PgSample } from '../../main/lab/rl/loss';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

// Eight tokens, eps_low 0.2 / eps_high 0.28 (range [0.8, 1.28]). old log-prob -2 everywhere, new = -2 + ln r.
//  t  A   r     r*A    clip(r)*A   min     clip active   d loss / d new (N = 7)
//  0  +1  1.0   1.0    1.0         1.0     -             -1/7      (up)
//  1  +1  1.5   1.5    1.28        1.28    high          0         (clipped above)
//  2  +1  0.5   0.5    0.8         0.5     -             -0.5/7    (up: below the range the min is unclipped)
//  3  -1  0.5   -0.5   -0.8        -0.8    low           0         (clipped below)
//  4  -1  1.5   -1.5   -1.28       -1.5    -             +1.5/7    (down: above the range the min is unclipped)
//  5  +2  1.25  2.5    2.5         2.5     -             -2.5/7    (inside thanks to clip-higher; 0.2/0.2 clips it)
//  6  +5  3.0   masked                                   0
//  7  -1  0.85  -0.85  -0.85       -0.85   -             +0.85/7   (down)
// Objective sum 1 + 1.28 + 0.5 - 0.8 - 1.5 + 2.5 - 0.85 = 2.13; loss = -2.13 / 7 = -0.304286.
// clipfrac_low = clipfrac_high = 1/7; approx KL = mean of r - 1 - ln r over the 7 = 0.087820.
const R = [1, 1.5, 0.5, 0.5, 1.5, 1.25, 3, 0.85];
const A = [1, 1, 1, -1, -1, 2, 5, -1];
const M = [1, 1, 1, 1, 1, 1, 0, 1];
const OLD = R.map(() => -2);
const NEW = R.map((r) => -2 + Math.log(r));
const CLIP = { epsLow: 0.2, epsHigh: 0.28 };
const GRAD = [-1 / 7, 0, -0.5 / 7, 0, 1.5 / 7, -2.5 / 7, 0, 0.85 / 7];

describe('pgLossReference (plain numbers)', () => {
  it('matches the hand-computed table', () => {
    const r = pgLossReference(NEW, OLD, A, M, CLIP);
    expect(r.loss).toBeCloseTo(-2.13 / 7, 12);
    expect(r.tokens).toBe(7);
    expect(r.clipfracHigh).toBeCloseTo(1 / 7, 12);
    expect(r.clipfracLow).toBeCloseTo(1 / 7, 12);
    expect(r.clipfrac).toBeCloseTo(2 / 7, 12);
    expect(r.approxKl).toBeCloseTo(0.0878199, 6);
    r.grad.forEach((g, i) => expect(g).toBeCloseTo(GRAD[i]!, 12));
  });

  it('clip-higher matters: symmetric 0.2 clips token 5 and changes the value', () => {
    // 1 + 1.2 + 0.5 - 0.8 - 1.5 + 2.4 - 0.85 = 1.95
    const r = pgLossReference(NEW, OLD, A, M, { epsLow: 0.2, epsHigh: 0.2 });
    expect(r.loss).toBeCloseTo(-1.95 / 7, 12);
    expect(r.clipfracHigh).toBeCloseTo(2 / 7, 12);
    expect(r.grad[5]).toBe(0);
  });
});

describe('pgLoss (tf)', () => {
  const t = (xs: number[]): tf.Tensor2D => tf.tensor2d(xs, [2, 4]);

  it('gives the table value, statistics and gradient', async () => {
    const ent = [1, 2, 3, 4, 5, 6, 100, 7];
    const stats = tf.tidy(() => pgLoss({ newLogProbs: t(NEW), oldLogProbs: t(OLD), advantages: t(A), mask: t(M), entropy: t(ent) }, CLIP).stats);
    const s = await readPgStats(stats);
    stats.dispose();
    expect(s.pgLoss).toBeCloseTo(-2.13 / 7, 5);
    expect(s.clipfracLow).toBeCloseTo(1 / 7, 6);
    expect(s.clipfracHigh).toBeCloseTo(1 / 7, 6);
    expect(s.clipfrac).toBeCloseTo(2 / 7, 6);
    expect(s.approxKl).toBeCloseTo(0.0878199, 5);
    expect(s.entropy).toBeCloseTo(28 / 7, 5); // masked token's 100 left out
    expect(s.tokens).toBe(7);

    const grad = tf.grad((x: tf.Tensor) => pgLoss({ newLogProbs: x, oldLogProbs: t(OLD), advantages: t(A), mask: t(M) }, CLIP).loss);
    const g = Array.from(await grad(t(NEW)).data());
    g.forEach((v, i) => expect(v).toBeCloseTo(GRAD[i]!, 5));
    // The signs, stated: A > 0 pushes up (negative loss gradient: descent raises log p) unless clipped above;
    // A < 0 pushes down unless clipped below.
    expect(g[0]).toBeLessThan(0);
    expect(g[5]).toBeLessThan(0);
    expect(g[2]).toBeLessThan(0);
    expect(Math.abs(g[1]!)).toBe(0);
    expect(g[4]).toBeGreaterThan(0);
    expect(g[7]).toBeGreaterThan(0);
    expect(Math.abs(g[3]!)).toBe(0);
    expect(Math.abs(g[6]!)).toBe(0);
  });

  it('normalises by a given token count, broadcasts per-row advantages, survives wild masked tokens', async () => {
    const v = tf.tidy(() => pgLoss({ newLogProbs: t(NEW), oldLogProbs: t(OLD), advantages: t(A), mask: t(M) }, { ...CLIP, tokenCount: 14 }).loss.arraySync());
    expect(v).toBeCloseTo(-2.13 / 14, 5);
    // Row advantages [B, 1]; a masked token with a log-ratio of 100 (exp overflows without the guard).
    const out = tf.tidy(() => {
      const nw = tf.tensor2d([0, 0, 0, 0, 0, 0, 0, 0], [2, 4]);
      const old = tf.tensor2d([0, 0, 0, -100, 0, 0, 0, 0], [2, 4]);
      const mask = tf.tensor2d([1, 1, 1, 0, 1, 1, 0, 0], [2, 4]);
      return pgLoss({ newLogProbs: nw, oldLogProbs: old, advantages: tf.tensor2d([1, -1], [2, 1]), mask }, CLIP).loss.arraySync();
    });
    expect(out).toBeCloseTo(-(3 * 1 + 2 * -1) / 5, 6);
  });

  it('adds the entropy bonus: gradient coef * m * logp / N beside the table, the pg statistic unchanged, 0 by default', async () => {
    const opts = { ...CLIP, entropyCoef: 0.1 };
    const grad = tf.grad((x: tf.Tensor) => pgLoss({ newLogProbs: x, oldLogProbs: t(OLD), advantages: t(A), mask: t(M) }, opts).loss);
    const g = Array.from(await grad(t(NEW)).data());
    // Token 0: -1/7 from the table, plus 0.1 * logp_0 / 7 = 0.1 * -2 / 7 (d/dx of sg(x) * x is sg(x)).
    expect(g[0]).toBeCloseTo(-1 / 7 + (0.1 * NEW[0]!) / 7, 5);
    g.forEach((v, i) => expect(v).toBeCloseTo(GRAD[i]! + (0.1 * M[i]! * NEW[i]!) / 7, 5));
    const ref = pgLossReference(NEW, OLD, A, M, opts);
    ref.grad.forEach((v, i) => expect(v).toBeCloseTo(g[i]!, 5));
    const value = tf.tidy(() => pgLoss({ newLogProbs: t(NEW), oldLogProbs: t(OLD), advantages: t(A), mask: t(M) }, opts).loss.arraySync());
    expect(value).toBeCloseTo(ref.loss, 5);
    expect(ref.pgLoss).toBeCloseTo(-2.13 / 7, 5);
    const stats = tf.tidy(() => pgLoss({ newLogProbs: t(NEW), oldLogProbs: t(OLD), advantages: t(A), mask: t(M) }, opts).stats);
    expect((await readPgStats(stats)).pgLoss).toBeCloseTo(-2.13 / 7, 5);
    stats.dispose();
    expect(pgLossReference(NEW, OLD, A, M, CLIP).grad).toEqual(pgLossReference(NEW, OLD, A, M, { ...CLIP, entropyCoef: 0 }).grad);
    expect(() => tf.tidy(() => pgLoss({ newLogProbs: t(NEW), oldLogProbs: t(OLD), advantages: t(A), mask: t(M) }, { ...CLIP, entropyCoef: -1 }).loss)).toThrow(/entropyCoef/);
  });

  it("'on_policy': ratio 1, gradient -A * m / N, nothing clipped", async () => {
    const grad = tf.grad((x: tf.Tensor) => pgLoss({ newLogProbs: x, oldLogProbs: 'on_policy', advantages: t(A), mask: t(M) }, CLIP).loss);
    const g = Array.from(await grad(t(NEW)).data());
    g.forEach((v, i) => expect(v).toBeCloseTo((-A[i]! * M[i]!) / 7, 6));
    const stats = tf.tidy(() => pgLoss({ newLogProbs: t(NEW), oldLogProbs: 'on_policy', advantages: t(A), mask: t(M) }, CLIP).stats);
    const s = await readPgStats(stats);
    stats.dispose();
    expect(s.pgLoss).toBeCloseTo(-(1 + 1 + 1 - 1 - 1 + 2 - 1) / 7, 6);
    expect(s.clipfrac).toBe(0);
    expect(s.approxKl).toBe(0);
    expect(s.entropy).toBeNull();
  });

  it('rejects mismatched shapes and bad clip ranges', () => {
    expect(() => tf.tidy(() => pgLoss({ newLogProbs: t(NEW), oldLogProbs: tf.zeros([8]), advantages: t(A), mask: t(M) }))).toThrow(/oldLogProbs has shape/);
    expect(() => pgLossReference([0], [0], [1], [1], { epsLow: 1, epsHigh: 0.2 })).toThrow(/epsLow/);
  });
});

describe('RL update through updateStep', () => {
  const cfg = resolveGPTConfig({ vocabSize: 16, blockSize: 8, nLayer: 1, nHead: 2, nEmbd: 16 });
  const tc = resolveTrainConfig({ lr: 3e-2, minLr: 3e-2, warmupSteps: 0, decaySteps: 1000, gradClip: 1, weightDecay: 0 });
  // Two windows: a prompt (mask 0) then generated tokens (mask 1).
  const good: PgSample = { ids: [1, 5, 6, 7, 8, 9], mask: [0, 0, 1, 1, 1, 1], advantage: 1 };
  const bad: PgSample = { ids: [1, 5, 10, 11, 12, 13], mask: [0, 0, 1, 1, 1, 1], advantage: -1 };

  async function genLogProb(model: GPT, s: PgSample): Promise<number> {
    const lp = (await oldLogProbsFor(model, [s]))[0]!;
    return lp.reduce((a, x, t) => a + x * s.mask[t + 1]!, 0);
  }

  it('raises the log-prob of A > 0 tokens, lowers A < 0, keeps the tensor count flat', async () => {
    const model = createModel(cfg, { seed: 3 });
    const opt = createOptimizer(model, tc);
    const before = [await genLogProb(model, good), await genLogProb(model, bad)];
    const packed = packPgBatch([good, bad], 7, 0);
    expect(packed.batch.lossTokens).toBe(8);
    expect(packed.oldLogProbs).toBeNull();
    let n0 = 0;
    for (let i = 0; i < 4; i++) {
      const { lossFn, stats } = rlLossFn(model, packed, { epsLow: 0.2, epsHigh: 0.28 });
      const r = await updateStep(model, opt, lossFn, tc);
      const s = (await stats())!;
      expect(s.tokens).toBe(8);
      expect(s.clipfrac).toBe(0); // on-policy: r = 1
      expect(s.entropy).toBeGreaterThan(0);
      expect(r.loss).toBeCloseTo(0, 6); // -(4 * 1 + 4 * -1) / 8 at r = 1
      if (i === 0) n0 = tf.memory().numTensors;
      else expect(tf.memory().numTensors).toBe(n0);
    }
    const after = [await genLogProb(model, good), await genLogProb(model, bad)];
    expect(after[0]).toBeGreaterThan(before[0]!);
    expect(after[1]).toBeLessThan(before[1]!);
    opt.dispose();
    disposeModel(model);
  });

  it('on-policy with A = 1 on every token, its gradient is the SFT loss gradient (imitating the sampled turns)', () => {
    const model = createModel({ ...cfg, distanceBias: true }, { seed: 6 });
    const vars = [...model.params.values()];
    const packed = packPgBatch([{ ...good, advantage: 1 }, { ...bad, advantage: 1 }], 7, 0);
    const b = packed.batch;
    const rl = tf.variableGrads(() => rlLossFn(model, packed).lossFn(0), vars);
    const sft = tf.variableGrads(
      () => loss(model, tf.tensor2d(b.ids, [b.batchSize, b.seqLen], 'int32'), tf.tensor2d(b.targets, [b.batchSize, b.seqLen], 'int32'), tf.tensor2d(b.mask, [b.batchSize, b.seqLen])),
      vars,
    );
    expect(rl.value.dataSync()[0]).toBeCloseTo(-1, 6); // -(sum of A * r) / N at r = 1
    let largest = 0;
    for (const [name, g] of Object.entries(sft.grads)) {
      const [x, y] = [rl.grads[name]!.dataSync(), g.dataSync()];
      x.forEach((v, i) => expect(v).toBeCloseTo(y[i]!, 6));
      largest = Math.max(largest, ...Array.from(y, Math.abs));
    }
    expect(largest).toBeGreaterThan(1e-3); // not two zero gradients
    tf.dispose([rl.value, sft.value, ...Object.values(rl.grads), ...Object.values(sft.grads)]);
    disposeModel(model);
  });

  it('old log-probs computed before the update give the same first step as on_policy', async () => {
    const results: number[][] = [];
    for (const withOld of [false, true]) {
      const model = createModel(cfg, { seed: 4 });
      const opt = createOptimizer(model, tc);
      const samples = withOld ? (await oldLogProbsFor(model, [good, bad])).map((lp, i) => ({ ...[good, bad][i]!, oldLogProbs: lp })) : [good, bad];
      const packed = packPgBatch(samples, 7, 0);
      expect(packed.oldLogProbs === null).toBe(!withOld);
      const { lossFn, stats } = rlLossFn(model, packed);
      await updateStep(model, opt, lossFn, tc);
      const s = (await stats())!;
      expect(s.approxKl).toBeCloseTo(0, 6);
      results.push(Array.from(await model.params.get('h.0.mlp.c_fc.weight')!.data()));
      opt.dispose();
      disposeModel(model);
    }
    results[0]!.forEach((w, i) => expect(w).toBeCloseTo(results[1]![i]!, 5));
  });

  it('an excluded sample (weight 0) changes nothing: same update as leaving it out', async () => {
    const weights: number[][] = [];
    for (const samples of [[good], [good, { ...bad, weight: 0 }]]) {
      const model = createModel(cfg, { seed: 5 });
      const opt = createOptimizer(model, tc);
      const packed = packPgBatch(samples, 7, 0);
      expect(packed.batch.lossTokens).toBe(4); // the excluded sample's tokens are out of the normaliser too
      const { lossFn } = rlLossFn(model, packed);
      await updateStep(model, opt, lossFn, tc);
      weights.push(Array.from(await model.params.get('wte')!.data()));
      opt.dispose();
      disposeModel(model);
    }
    weights[0]!.forEach((w, i) => expect(w).toBeCloseTo(weights[1]![i]!, 6));
  });
});
