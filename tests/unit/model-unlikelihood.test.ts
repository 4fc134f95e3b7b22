// Token-level unlikelihood (issue #41): which recent tokens each loss position pushes down, and the term's value
// against -log(1 - p) computed by hand from the model's own logits.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createModel, disposeModel, forward, resolveGPTConfig } from '../../main/lab/model/gpt';
import { makeBatch, repetitionCandidates, splitBatch } from '../../main/lab/model/mask';
import { loss } from '../../main/lab/model/logprobs';
import { batchLoss, createOptimizer, resolveTrainConfig, trainStep } from '../../main/lab/model/train';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('repetitionCandidates', () => {
  it('takes the last `window` input tokens other than the target, once each, at positions in the loss only', () => {
    // Row: 5 7 7 9 7 | targets 7 7 9 7 3; the first two targets are out of the loss (prompt).
    const b = makeBatch([{ ids: [5, 7, 7, 9, 7, 3], mask: [0, 0, 0, 1, 1, 1] }], 5, 0);
    expect(Array.from(b.targets)).toEqual([7, 7, 9, 7, 3]);
    expect(Array.from(b.mask)).toEqual([0, 0, 1, 1, 1]);
    const c = repetitionCandidates(b, 3);
    // t = 2 (inputs 5 7 7, target 9): 7, 7, 5 -> 7, 5. t = 3 (inputs 7 7 9, target 7): 9 (7 is the target).
    // t = 4 (inputs 7 9 7, target 3): 7, 9.
    expect(c.pos).toEqual([2, 2, 3, 4, 4]);
    expect(c.tok).toEqual([7, 5, 9, 7, 9]);
    expect(repetitionCandidates(b, 1)).toEqual({ pos: [2, 3, 4], tok: [7, 9, 7] });
  });

  it('keeps the option through splitBatch, so replicas add the same term', () => {
    const b = makeBatch([{ ids: [1, 2, 3], mask: [0, 1, 1] }, { ids: [4, 5, 6], mask: [0, 1, 1] }], 2, 0);
    b.unlikelihood = { weight: 0.5, window: 4 };
    for (const part of splitBatch(b, 2)) expect(part.unlikelihood).toEqual({ weight: 0.5, window: 4 });
  });
});

describe('the unlikelihood term', () => {
  const cfg = resolveGPTConfig({ vocabSize: 12, blockSize: 8, nLayer: 1, nHead: 2, nEmbd: 16 });

  it('adds weight * -log(1 - p(token)) per pair, normalised like the cross-entropy', () => {
    const model = createModel(cfg, { seed: 3 });
    const b = makeBatch([{ ids: [1, 4, 4, 6, 4, 2], mask: [0, 1, 1, 1, 1, 1] }], 5, 0);
    const [B, T] = [b.batchSize, b.seqLen];
    const ids = tf.tensor2d(b.ids, [B, T], 'int32');
    const targets = tf.tensor2d(b.targets, [B, T], 'int32');
    const mask = tf.tensor2d(b.mask, [B, T], 'float32');
    const c = repetitionCandidates(b, 2);
    const plain = loss(model, ids, targets, mask).dataSync()[0]!;
    const withUl = loss(model, ids, targets, mask, {}, undefined, { weight: 0.7, ...c }).dataSync()[0]!;
    const probs = tf.softmax(forward(model, ids)).arraySync() as number[][][];
    const byHand = c.pos.reduce((s, p, i) => s - Math.log(1 - probs[0]![p % T]![c.tok[i]!]!), 0);
    expect(withUl - plain).toBeCloseTo((0.7 * byHand) / b.lossTokens, 5);
    expect(withUl).toBeGreaterThan(plain);
    expect(batchLoss(model, { ...b, unlikelihood: { weight: 0.7, window: 2 } }, 0, { seed: 0 }).dataSync()[0]).toBeGreaterThan(0);
    tf.dispose([ids, targets, mask]);
    disposeModel(model);
  });

  it('lowers the probability of the repeated token under training, where the data never repeats it', async () => {
    // Data 1 2 3 1 2 3 ...: after 3 comes 1, never 3 again. The term pushes p(3 | ... 3) down faster.
    const seq = [1, 2, 3, 1, 2, 3, 1, 2];
    const b = makeBatch([{ ids: seq, mask: seq.map(() => 1) }], 7, 0);
    const tc = resolveTrainConfig({ lr: 1e-2, minLr: 1e-2, warmupSteps: 0, decaySteps: 20, batchSize: 1 });
    const pRepeat = async (weight: number): Promise<number> => {
      const model = createModel(cfg, { seed: 5 });
      const opt = createOptimizer(model, tc);
      for (let i = 0; i < 8; i++) await trainStep(model, opt, { ...b, ...(weight > 0 ? { unlikelihood: { weight, window: 1 } } : {}) }, tc);
      const probs = tf.tidy(() => tf.softmax(forward(model, tf.tensor2d([seq.slice(0, 3)], [1, 3], 'int32'))).arraySync() as number[][][]);
      opt.dispose();
      disposeModel(model);
      return probs[0]![2]![3]!; // p(3 | 1 2 3)
    };
    expect(await pRepeat(2)).toBeLessThan(await pRepeat(0));
  });
});
