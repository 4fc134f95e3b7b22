// The chunked RL update is the same optimiser step as one updateStep over the whole batch: same loss,
// same statistics, same weights afterwards; and it leaves no tensor behind.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createModel, disposeModel, resolveGPTConfig, type GPT } from '../../main/lab/model/gpt';
import { createOptimizer, resolveTrainConfig, updateStep } from '../../main/lab/model/train';
import { packPgBatch, rlLossFn, type PgSample } from '../../main/lab/rl/loss';
import { rlUpdate, shareSamples, slotsOnce, startUpdateReplicas } from '../../main/lab/train/rl-stage/rl-update';
import { createRng } from '../../main/lab/util/rng';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const cfg = resolveGPTConfig({ preset: 'tiny', vocabSize: 50, blockSize: 24, nEmbd: 16, nHead: 2, nLayer: 1 });
const train = resolveTrainConfig({ lr: 1e-2, warmupSteps: 0, weightDecay: 0, gradClip: 1, seqLen: 24 });
const clip = { epsLow: 0.2, epsHigh: 0.28 };

function samples(n: number): PgSample[] {
  const rng = createRng(5);
  return Array.from({ length: n }, (_, i) => {
    const len = 6 + rng.int(18);
    const ids = Array.from({ length: len }, () => 1 + rng.int(49));
    const start = 2 + rng.int(len - 3);
    return { ids, mask: ids.map((_, t) => (t >= start ? 1 : 0)), advantage: i % 3 === 0 ? -1 : 0.5, weight: i === 4 ? 0 : 1 };
  });
}

async function weights(model: GPT): Promise<Float32Array[]> {
  return Promise.all([...model.params.values()].map(async (v) => (await v.data()) as Float32Array));
}

describe('rlUpdate', () => {
  it('equals one updateStep over the whole batch (40 windows in 3 chunks)', { timeout: 180_000 }, async () => {
    const batch = samples(40);
    const a = createModel(cfg, { seed: 3 });
    const b = createModel(cfg, { seed: 3 });
    const optA = createOptimizer(a, train);
    const optB = createOptimizer(b, train);
    const before = tf.memory().numTensors;
    const r = (await rlUpdate(a, optA, batch, train, clip, 0))!;
    expect(tf.memory().numTensors).toBe(before);
    const whole = rlLossFn(b, packPgBatch(batch, 23, 0), clip);
    const u = await updateStep(b, optB, whole.lossFn, train);
    const s = (await whole.stats())!;
    expect(r.update.loss).toBeCloseTo(u.loss, 5);
    expect(r.update.gradNorm).toBeCloseTo(u.gradNorm, 4);
    expect(r.pg.pgLoss).toBeCloseTo(s.pgLoss, 5);
    expect(r.pg.tokens).toBe(s.tokens);
    expect(r.pg.entropy!).toBeCloseTo(s.entropy!, 4);
    const [wa, wb] = [await weights(a), await weights(b)];
    // Adam moves every weight by about lr on the first step, so float round-off of tiny gradients shows at 1e-5.
    wa.forEach((w, i) => w.forEach((x, j) => expect(x).toBeCloseTo(wb[i]![j]!, 4)));
    optA.dispose();
    optB.dispose();
    disposeModel(a);
    disposeModel(b);
  });

  it('gives the same update on one thread and on two (data-parallel replicas), three steps in a row', async () => {
    const steps = [samples(40), samples(23).reverse(), samples(3)]; // the last: fewer windows than chunks of two threads
    const run = async (threads: number): Promise<{ w: Float32Array[]; r: NonNullable<Awaited<ReturnType<typeof rlUpdate>>>[] }> => {
      const model = createModel(cfg, { seed: 3 });
      const opt = createOptimizer(model, train);
      const replicas = threads > 1 ? await startUpdateReplicas(model, threads - 1) : undefined;
      try {
        const before = tf.memory().numTensors;
        const r = [];
        for (const batch of steps) r.push((await rlUpdate(model, opt, batch, train, { ...clip, entropyCoef: 0.01 }, 0, replicas))!);
        expect(tf.memory().numTensors).toBe(before);
        return { w: await weights(model), r };
      } finally {
        await replicas?.close();
        opt.dispose();
        disposeModel(model);
      }
    };
    const one = await run(1);
    const two = await run(2);
    two.r.forEach((r, i) => {
      const o = one.r[i]!;
      expect(r.update.loss).toBeCloseTo(o.update.loss, 5);
      expect(r.update.gradNorm).toBeCloseTo(o.update.gradNorm, 4);
      expect(r.pg.tokens).toBe(o.pg.tokens);
      expect(r.pg.entropy!).toBeCloseTo(o.pg.entropy!, 4);
      expect(r.pg.approxKl).toBeCloseTo(o.pg.approxKl, 6);
    });
    two.w.forEach((w, i) => w.forEach((x, j) => expect(x).toBeCloseTo(one.w[i]![j]!, 4)));
  }, 180_000);

  it('shares samples out by length, in order, every sample once', () => {
    const lens = [10, 10, 10, 10, 40];
    const batch = lens.map((n) => ({ ids: new Array<number>(n).fill(1), mask: new Array<number>(n).fill(1), advantage: 1 }));
    // 80 ids in all: the first four (40 ids) fill the first half, the long one the second.
    const shares = shareSamples(batch, 2);
    expect(shares.map((s) => s.map((x) => x.ids.length))).toEqual([[10, 10, 10, 10], [40]]);
    expect(shareSamples(batch.slice(0, 1), 3).map((s) => s.length)).toEqual([0, 1, 0]);
  });

  it('counts each copied entry of a batch once, with its copies (the groups DUPO copies)', () => {
    expect(slotsOnce(['a', 'b', 'a', 'c', 'a'])).toEqual([{ item: 'a', copies: 3 }, { item: 'b', copies: 1 }, { item: 'c', copies: 1 }]);
    expect(slotsOnce([])).toEqual([]);
  });

  it('gives a sample weighted by k the update of k copies of it: loss, gradient norm, statistics, weights', async () => {
    const [a, b, c] = samples(3);
    const run = async (batch: PgSample[]): Promise<{ w: Float32Array[]; r: NonNullable<Awaited<ReturnType<typeof rlUpdate>>> }> => {
      const model = createModel(cfg, { seed: 3 });
      const opt = createOptimizer(model, train);
      const r = (await rlUpdate(model, opt, batch, train, { ...clip, entropyCoef: 0.01 }, 0))!;
      const w = await weights(model);
      opt.dispose();
      disposeModel(model);
      return { w, r };
    };
    const copies = await run([a!, b!, a!, c!, a!]);
    const weighted = await run([{ ...a!, weight: 3 }, b!, c!]);
    expect(weighted.r.pg.tokens).toBe(copies.r.pg.tokens);
    expect(weighted.r.update.loss).toBeCloseTo(copies.r.update.loss, 5);
    expect(weighted.r.update.gradNorm).toBeCloseTo(copies.r.update.gradNorm, 4);
    expect(weighted.r.pg.entropy!).toBeCloseTo(copies.r.pg.entropy!, 4);
    expect(weighted.r.pg.clipfrac).toBeCloseTo(copies.r.pg.clipfrac, 6);
    weighted.w.forEach((w, i) => w.forEach((x, j) => expect(x).toBeCloseTo(copies.w[i]![j]!, 4)));
  });

  it('returns null (no optimiser step) when every sample has weight 0', async () => {
    const model = createModel(cfg, { seed: 1 });
    const opt = createOptimizer(model, train);
    const r = await rlUpdate(model, opt, samples(3).map((s) => ({ ...s, weight: 0 })), train, clip, 0);
    expect(r).toBeNull();
    expect(opt.step).toBe(0);
    opt.dispose();
    disposeModel(model);
  });
});
