// The fast training paths (model/kernels/kernels.ts, model/kernels/xent.ts, model/kernels/attention.ts, model/replicas.ts) against the
// reference: tfjs's own kernels and autodiff on the same model, batch and weights.
import { afterAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../main/lab/model/backend';
import { createModel, disposeModel, resolveGPTConfig, type GPT, type GPTConfig } from '../../main/lab/model/gpt';
import { loss, tokenStats } from '../../main/lab/model/logprobs';
import { generate } from '../../main/lab/model/generate';
import { generateGroup } from '../../main/lab/model/group-sample';
import { installFastKernels, restoreStockKernels, scatterAddRows, sliceInto } from '../../main/lab/model/kernels/kernels';
import { makeBatch, splitBatch, type Batch } from '../../main/lab/model/mask';
import { Replicas } from '../../main/lab/model/replicas';
import { PublishedWeights } from '../../main/lab/model/shared-weights';
import { createOptimizer, resolveTrainConfig, trainStep } from '../../main/lab/model/train';
import { softmaxXentGradRows, softmaxXentRows } from '../../main/lab/model/kernels/xent';
import { attentionBackward, attentionForward, paddedWidth } from '../../main/lab/model/kernels/attention';
import { layerNormGradRows, layerNormRows } from '../../main/lab/model/kernels/layernorm';
import { smearGradRows, smearRows } from '../../main/lab/model/kernels/smear';
import { createRng, seedFrom } from '../../main/lab/util/rng';

afterAll(() => installFastKernels());

describe('pure kernel bodies', () => {
  it('scatter-adds rows by segment id and drops ids out of range', () => {
    const out = new Float32Array(6);
    scatterAddRows([1, 2, 3, 4, 5, 6, 7, 8], [2, 0, 2, 3], 3, out);
    expect(Array.from(out)).toEqual([3, 4, 0, 0, 1 + 5, 2 + 6]);
  });

  it('softmax cross-entropy rows: log-prob, entropy, softmax and gradient by hand', () => {
    // Row 0: logits [0, ln 3] -> p = [1/4, 3/4]; target 1. Row 1: a target outside the vocabulary.
    const logits = [0, Math.log(3), 5, 5];
    const logp = new Float32Array(2);
    const ent = new Float32Array(2);
    const probs = new Float32Array(4);
    softmaxXentRows(logits, [1, 7], 2, logp, ent, probs);
    expect(logp[0]).toBeCloseTo(Math.log(0.75), 6);
    expect(ent[0]).toBeCloseTo(-(0.25 * Math.log(0.25) + 0.75 * Math.log(0.75)), 6);
    expect(Array.from(probs)).toEqual([0.25, 0.75, 0.5, 0.5].map((x) => Math.fround(x)));
    expect(logp[1]).toBe(0);
    const grad = new Float32Array(4);
    softmaxXentGradRows(probs, [1, 7], [2, 1], 2, grad);
    // d/dlogits of 2 * log p_1 = 2 * (onehot(1) - p) = [-0.5, 0.5]; the out-of-range row gets none.
    expect(Array.from(grad)).toEqual([-0.5, 0.5, 0, 0]);
  });

  it('attention rows: probabilities, output and every gradient by hand', () => {
    // One head, T = 2, D = 1, scale 1, causal. q = [1, 1], k = [0, ln 3], v = [10, 20]. Query 0 sees key 0 alone;
    // query 1 scores [0, ln 3], so p = [1/4, 3/4] and y = 2.5 + 15.
    const dims = { B: 1, H: 1, T: 2, D: 1 };
    const [q, k, v] = [[1, 1], [0, Math.log(3)], [10, 20]];
    const y = new Float32Array(2);
    const probs = new Float32Array(2 * paddedWidth(2));
    attentionForward(q, k, v, dims, 1, null, y, probs);
    expect(Array.from(probs)).toEqual([1, 0, 0, 0, 0.25, 0.75, 0, 0].map(Math.fround));
    expect(Array.from(y)).toEqual([10, 17.5]);
    // dy = [0, 1]: dP_1 = [10, 20], rowsum(dP P) = 17.5, dS_1 = P (dP - 17.5) = [-1.875, 1.875].
    const [dq, dk, dv] = [new Float32Array(2), new Float32Array(2), new Float32Array(2)];
    attentionBackward(q, k, v, probs, [0, 1], dims, 1, dq, dk, dv);
    expect(dq[0]).toBe(0);
    expect(dq[1]).toBeCloseTo(1.875 * Math.log(3), 6);
    expect(Array.from(dk)).toEqual([-1.875, 1.875]);
    expect(Array.from(dv)).toEqual([0.25, 0.75]);
  });

  it('layer-norm rows: output, saved statistics and gradients by hand', () => {
    // x = [1, 3]: mean 2, variance 1. With two values the normalised row is [-1, 1] whatever x is, so dx = 0
    // (up to what eps = 1e-5 adds to the variance).
    const rs = 1 / Math.sqrt(1 + 1e-5);
    const [y, mean, rstd] = [new Float32Array(2), new Float32Array(1), new Float32Array(1)];
    layerNormRows([1, 3], [2, 1], [0.5, 0], 2, y, mean, rstd);
    expect(mean[0]).toBe(2);
    expect(rstd[0]).toBeCloseTo(rs, 7);
    expect(y[0]).toBeCloseTo(-2 * rs + 0.5, 6);
    expect(y[1]).toBeCloseTo(rs, 6);
    const [dx, dg, db] = [new Float32Array(2), new Float32Array(2), new Float32Array(2)];
    layerNormGradRows([1, 3], [2, 1], mean, rstd, [1, 0], 2, dx, dg, db);
    expect(Math.abs(dx[0]!) + Math.abs(dx[1]!)).toBeLessThan(1e-4);
    expect(dg[0]).toBeCloseTo(-rs, 6);
    expect(dg[1]).toBe(0);
    expect(Array.from(db)).toEqual([1, 0]);
  });

  it('smeared-key rows and their gradients by hand', () => {
    // One row, T = 2, one head of D = 1, a = 0 so s = 1/2: y = [k0 / 2, (k1 + k0) / 2].
    const y = new Float32Array(2);
    smearRows([2, 6], [0], [1, 2, 1, 1], y);
    expect(Array.from(y)).toEqual([1, 4]);
    // dy = [1, 10]: dk0 = s dy0 + (1 - s) dy1 = 5.5, dk1 = s dy1 = 5;
    // da = s (1 - s) (dy0 (k0 - 0) + dy1 (k1 - k0)) = 1/4 (2 + 40).
    const [dk, da] = [new Float32Array(2), new Float32Array(1)];
    smearGradRows([2, 6], [0], [1, 10], [1, 2, 1, 1], dk, da);
    expect(Array.from(dk)).toEqual([5.5, 5]);
    expect(da[0]).toBeCloseTo(10.5, 6);
  });

  it('splits a batch into contiguous shares with their own token counts', () => {
    const rows = [3, 5, 2].map((n) => ({ ids: Array.from({ length: n + 1 }, (_, i) => i + 1), mask: Array.from({ length: n + 1 }, (_, i) => (i % 2 ? 1 : 0)) }));
    const batch = makeBatch(rows, 5, 0);
    const [a, b] = splitBatch(batch, 2);
    expect([a!.batchSize, b!.batchSize]).toEqual([2, 1]);
    expect(a!.realTokens + b!.realTokens).toBe(batch.realTokens);
    expect(a!.lossTokens + b!.lossTokens).toBe(batch.lossTokens);
    expect(Array.from(b!.ids)).toEqual(Array.from(batch.ids.slice(10)));
    expect(splitBatch(batch, 4).map((p) => p.batchSize)).toEqual([1, 1, 1, 0]);
  });
});

const SMALL: Partial<GPTConfig> = { vocabSize: 61, blockSize: 24, nLayer: 2, nHead: 2, nEmbd: 16 };

function randomBatch(cfg: GPTConfig, rows: number, seed: number): Batch {
  const rng = createRng(seed);
  const examples = Array.from({ length: rows }, () => {
    const n = 8 + rng.int(cfg.blockSize - 7);
    const ids = Array.from({ length: n + 1 }, () => rng.int(cfg.vocabSize));
    return { ids, mask: ids.map(() => (rng.next() < 0.7 ? 1 : 0)) };
  });
  return makeBatch(examples, cfg.blockSize, 0);
}

/** Loss and gradients of the model on the batch, read out. */
function lossAndGrads(model: GPT, b: Batch): { loss: number; grads: Map<string, Float32Array> } {
  const { value, grads } = tf.tidy(() =>
    tf.variableGrads(
      () => loss(model, tf.tensor2d(b.ids, [b.batchSize, b.seqLen], 'int32'), tf.tensor2d(b.targets, [b.batchSize, b.seqLen], 'int32'), tf.tensor2d(b.mask, [b.batchSize, b.seqLen], 'float32')),
      [...model.params.values()],
    ),
  );
  const byVar = new Map([...model.params].map(([name, v]) => [v.name, name]));
  const out = { loss: value.dataSync()[0]!, grads: new Map(Object.entries(grads).map(([k, g]) => [byVar.get(k)!, g.dataSync() as Float32Array])) };
  tf.dispose([value, ...Object.values(grads)]);
  return out;
}

const maxRelDiff = (a: Float32Array, b: Float32Array): number => {
  const scale = Math.max(1e-6, ...Array.from(a, Math.abs));
  return Math.max(...Array.from(a, (x, i) => Math.abs(x - b[i]!))) / scale;
};

describe.each(['cpu', 'wasm'] as const)('fast paths on %s equal tfjs autodiff', (backend) => {
  it.each([
    ['plain', {}],
    ['distance penalties', { distanceBias: true }],
    // Heads 16 wide: the SIMD attention on wasm (8 wide above runs its JavaScript rows).
    ['one 16-wide head, distance penalties', { nHead: 1, distanceBias: true }],
    // Not on the fused attention (gpt.ts fastPath): the reference's tf ops with the other fused kernels.
    ['bidirectional responses and distance penalties', { bidirectionalObservations: true, distanceBias: true }],
  ])('loss and every gradient, %s', async (_, options) => {
    await selectBackend({ only: [backend] });
    const cfg = resolveGPTConfig({ ...SMALL, ...options });
    const model = createModel(cfg, { seed: 3 });
    const b = randomBatch(cfg, 3, 11);
    restoreStockKernels();
    const reference = lossAndGrads(model, b);
    expect(installFastKernels()).toContain(backend);
    const fast = lossAndGrads(model, b);
    expect(fast.loss).toBeCloseTo(reference.loss, 5);
    expect([...fast.grads.keys()].sort()).toEqual([...reference.grads.keys()].sort());
    for (const [name, g] of reference.grads) expect(maxRelDiff(g, fast.grads.get(name)!), name).toBeLessThan(1e-4);
    disposeModel(model);
  });

  it('per-token log-probs and entropy (the RL objective) and their gradient, through the fused head', async () => {
    await selectBackend({ only: [backend] });
    const cfg = resolveGPTConfig({ ...SMALL, vocabSize: 64 }); // a vocabulary of whole SIMD lanes
    const model = createModel(cfg, { seed: 4 });
    const b = randomBatch(cfg, 4, 13); // 4 x 24 rows: past the few rows decoding keeps on the plain head
    const vars = [...model.params.values()];
    const weights = tf.randomNormal([b.batchSize, b.seqLen], 0, 1, 'float32', 2);
    const run = (): { logp: Float32Array; ent: Float32Array; grads: Float32Array[] } => {
      const out = tf.tidy(() => {
        let ent: tf.Tensor | undefined;
        const { value, grads } = tf.variableGrads(() => {
          const st = tokenStats(model, tf.tensor2d(b.ids, [b.batchSize, b.seqLen], 'int32'), tf.tensor2d(b.targets, [b.batchSize, b.seqLen], 'int32'));
          ent = tf.keep(tf.clone(st.entropy));
          return tf.sum(tf.mul(st.logProbs, weights));
        }, vars);
        return { value, ent: ent!, grads: vars.map((v) => grads[v.name]!) };
      });
      const r = { logp: Float32Array.of(out.value.dataSync()[0]!), ent: out.ent.dataSync() as Float32Array, grads: out.grads.map((g) => g.dataSync() as Float32Array) };
      tf.dispose([out.value, out.ent, ...out.grads]);
      return r;
    };
    restoreStockKernels();
    const reference = run();
    installFastKernels();
    const before = tf.memory().numTensors;
    const fast = run();
    expect(tf.memory().numTensors).toBe(before);
    expect(maxRelDiff(reference.logp, fast.logp)).toBeLessThan(1e-5);
    expect(maxRelDiff(reference.ent, fast.ent)).toBeLessThan(1e-5);
    reference.grads.forEach((g, i) => expect(maxRelDiff(g, fast.grads[i]!), [...model.params.keys()][i]).toBeLessThan(1e-4));
    tf.dispose(weights);
    disposeModel(model);
  });

  it('a batched matmul equals the stock kernel (XNNPACK per batch entry on wasm)', async () => {
    await selectBackend({ only: [backend] });
    const a = tf.randomNormal([2, 3, 5, 7], 0, 1, 'float32', 1);
    const b = tf.randomNormal([2, 3, 7, 4], 0, 1, 'float32', 2);
    restoreStockKernels();
    const reference = tf.matMul(a, b).dataSync();
    installFastKernels();
    const fast = tf.matMul(a, b);
    expect(fast.shape).toEqual([2, 3, 5, 4]);
    expect(maxRelDiff(reference as Float32Array, fast.dataSync() as Float32Array)).toBeLessThan(1e-6);
    tf.dispose([a, b, fast]);
  });
});

describe('data-parallel replicas', () => {
  it('a step on two threads equals the step on one, and the replica computes with the same weights', async () => {
    await selectBackend({ only: ['wasm'] });
    const cfg = resolveGPTConfig(SMALL);
    const tc = resolveTrainConfig({ batchSize: 5, warmupSteps: 0 });
    const batches = [randomBatch(cfg, 5, 1), randomBatch(cfg, 5, 2), randomBatch(cfg, 5, 3)];
    const weights = async (replicas?: Replicas): Promise<{ w: Float32Array; losses: number[] }> => {
      const model = createModel(cfg, { seed: 5 });
      const opt = createOptimizer(model, tc);
      const losses: number[] = [];
      for (const b of batches) losses.push((await trainStep(model, opt, b, tc, replicas)).loss);
      const w = Float32Array.from([...model.params.values()].flatMap((v) => Array.from(v.dataSync())));
      if (replicas) for (const copy of await replicas.replicaWeights(model)) expect(copy).toEqual(w);
      opt.dispose();
      disposeModel(model);
      return { w, losses };
    };
    const one = await weights();
    const shape = createModel(cfg);
    const replicas = await Replicas.start(shape, 1);
    disposeModel(shape);
    try {
      const two = await weights(replicas);
      two.losses.forEach((l, i) => expect(l).toBeCloseTo(one.losses[i]!, 5));
      expect(maxRelDiff(one.w, two.w)).toBeLessThan(1e-5);
    } finally {
      await replicas.close();
    }
  });
});

describe('batched group sampling', () => {
  it.each([
    ['plain', {}],
    ['every model option', { bidirectionalObservations: true, distanceBias: true }],
  ])('each row of a group equals the same sample decoded alone (%s), with no tensor left behind', async (_, options) => {
    await selectBackend({ only: ['wasm'] });
    const cfg = resolveGPTConfig({ ...SMALL, blockSize: 40, ...options });
    const model = createModel(cfg, { seed: 9 });
    const prompt = [1, 5, 9, 14, 3];
    const stopTokens = [7];
    const before = tf.memory().numTensors;
    const group = await generateGroup(model, prompt, 4, { maxNewTokens: 30, temperature: 1, stopTokens, seed: 'q1' });
    expect(tf.memory().numTensors).toBe(before);
    expect(group.some((r) => r.tokens.length > 3)).toBe(true);
    for (const [g, row] of group.entries()) {
      const alone = await generate(model, prompt, { maxNewTokens: 30, temperature: 1, stopTokens, rng: createRng(seedFrom(`q1/${g}`)) });
      expect(row.tokens).toEqual(alone.tokens);
      expect(row.finishReason).toBe(alone.finishReason);
      row.logProbs.forEach((lp, i) => expect(lp).toBeCloseTo(alone.logProbs[i]!, 4));
    }
    disposeModel(model);
  });
});

describe('slices on the wasm heap', () => {
  it('sliceInto copies the runs a slice takes (hand-checked 2 x 3 x 4)', () => {
    const x = Float32Array.from({ length: 24 }, (_, i) => i);
    const out = new Float32Array(4);
    sliceInto(x, [2, 3, 4], [1, 1, 1], [1, 2, 2], out);
    expect(Array.from(out)).toEqual([17, 18, 21, 22]);
    const whole = new Float32Array(8);
    sliceInto(x, [2, 3, 4], [0, 1, 0], [2, 1, 4], whole);
    expect(Array.from(whole)).toEqual([4, 5, 6, 7, 16, 17, 18, 19]);
  });

  it('slice, split, gather, transpose and sum equal the stock kernels', async () => {
    await selectBackend({ only: ['wasm'] });
    const x = tf.randomNormal([3, 5, 6, 4], 0, 1, 'float32', 8);
    const idx = tf.tensor1d([2, 0, 2, 1], 'int32');
    const ops = (): Float32Array[] =>
      tf.tidy(() => [
        tf.slice(x, [1, 2, 0, 1], [2, 3, 6, 2]),
        tf.slice(x, [0, 0, 3, 0], [3, 5, 2, 4]),
        ...tf.split(x, [1, 3, 2], 2),
        tf.gather(x, idx),
        tf.transpose(tf.reshape(x, [24, 15])), // 4 x 4 blocks do not fit: the stock kernel
        tf.transpose(tf.reshape(x, [15, 24]).slice([0, 0], [12, 24])), // SIMD blocks
        tf.transpose(x, [0, 1, 3, 2]), // a batch of [6, 4] matrices
        tf.transpose(tf.randomNormal([68, 100], 0, 1, 'float32', 5)), // SIMD blocks over whole and partial 32 x 32 tiles
        tf.transpose(tf.randomNormal([2, 36, 40], 0, 1, 'float32', 6), [0, 2, 1]), // a batch of them
        tf.transpose(tf.randomNormal([300, 301], 0, 1, 'float32', 3)), // large and odd: blocked JavaScript
        tf.transpose(x, [2, 0, 1, 3]), // not the last two axes: the stock kernel
      ].map((t) => t.dataSync() as Float32Array));
    // Sums add in another order: equal up to rounding.
    const sums = (): Float32Array[] =>
      tf.tidy(() => [
        tf.sum(tf.randomNormal([7, 5, 12], 0, 1, 'float32', 9), [0, 1]), // column sums: SIMD, 35 rows (four at a time, then three)
        tf.sum(x, [0, 1, 2]), // four columns
        tf.sum(tf.reshape(x, [45, 8]).slice([0, 0], [45, 7]), 0), // seven columns: JavaScript
      ].map((t) => t.dataSync() as Float32Array));
    restoreStockKernels();
    const reference = ops();
    const referenceSums = sums();
    installFastKernels();
    ops().forEach((got, i) => expect(got).toEqual(reference[i]));
    sums().forEach((got, i) => expect(maxRelDiff(referenceSums[i]!, got)).toBeLessThan(1e-6));
    tf.dispose([x, idx]);
  });
});

describe('published weights', () => {
  it('a reader loads the newest version once, and only whole versions', async () => {
    await selectBackend({ only: ['wasm'] });
    const cfg = resolveGPTConfig(SMALL);
    const learner = createModel(cfg, { seed: 1 });
    const reader = createModel(cfg, { seed: 2 });
    const board = PublishedWeights.create(learner);
    expect(board.version).toBe(-1);
    expect(board.load(reader, 7)).toBe(7); // nothing published: keeps what it has
    board.publish(learner, 0);
    expect(board.load(reader, -1)).toBe(0);
    const flat = (m: GPT): Float32Array => Float32Array.from([...m.params.values()].flatMap((v) => Array.from(v.dataSync())));
    expect(flat(reader)).toEqual(flat(learner));
    tf.tidy(() => learner.params.get('wte')!.assign(tf.add(learner.params.get('wte')!, 1)));
    board.publish(learner, 1);
    expect(board.version).toBe(1);
    expect(board.load(reader, 1)).toBe(1); // already has version 1: nothing loaded
    expect(flat(reader)).not.toEqual(flat(learner));
    expect(board.load(reader, 0)).toBe(1);
    expect(flat(reader)).toEqual(flat(learner));
    disposeModel(learner);
    disposeModel(reader);
  });
});
