import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createModel, disposeModel, resolveGPTConfig } from '../../main/lab/model/gpt';
import { makeBatch, type Batch } from '../../main/lab/model/mask';
import { createOptimizer, resolveTrainConfig, sftMetrics, trainStep } from '../../main/lab/model/train';

const cfg = resolveGPTConfig({ vocabSize: 40, blockSize: 16, nLayer: 1, nHead: 2, nEmbd: 32 });
const tc = resolveTrainConfig({ lr: 1e-2, minLr: 1e-3, warmupSteps: 2, decaySteps: 40, batchSize: 2 });

function batch(): Batch {
  const a = Array.from({ length: 17 }, (_, i) => (i * 3) % 40);
  const b = Array.from({ length: 12 }, (_, i) => (i * 7 + 1) % 40);
  return makeBatch([{ ids: a, mask: a.map((_, i) => (i < 4 ? 0 : 1)) }, { ids: b, mask: b.map(() => 1) }], 16, 0);
}

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('trainStep', () => {
  it('lowers the loss, follows the schedule and keeps the tensor count flat', async () => {
    const model = createModel(cfg, { seed: 1 });
    const opt = createOptimizer(model, tc);
    const b = batch();
    const first = await trainStep(model, opt, b, tc);
    const afterOne = tf.memory().numTensors;
    expect(first.step).toBe(0);
    expect(first.lr).toBeCloseTo(1e-2 / 3, 10);
    expect(first.gradNorm).toBeGreaterThan(0);
    expect(first.tokens).toBe(16 + 11);
    expect(first.lossTokens).toBe(16 - 3 + 11);
    let last = first;
    for (let i = 0; i < 24; i++) last = await trainStep(model, opt, b, tc);
    expect(tf.memory().numTensors).toBe(afterOne);
    expect(opt.step).toBe(25);
    expect(last.loss).toBeLessThan(first.loss * 0.5);
    const m = sftMetrics(last, 0.5);
    expect(Object.keys(m).sort()).toEqual(['actor/grad_norm', 'actor/lr', 'perf/tokens_per_s', 'sft/loss', 'sft/masked_frac']);
    expect(m['perf/tokens_per_s']).toBe(54);
    opt.dispose();
    disposeModel(model);
  });

  it('ignores masked targets entirely (same loss, same update)', async () => {
    const b1 = batch();
    const b2 = { ...b1, targets: b1.targets.slice() };
    for (let i = 0; i < b2.targets.length; i++) if (b2.mask[i] === 0) b2.targets[i] = 39 - b2.targets[i]!;
    expect(b2.targets).not.toEqual(b1.targets);
    const results = [];
    for (const b of [b1, b2]) {
      const model = createModel(cfg, { seed: 2 });
      const opt = createOptimizer(model, tc);
      const r = await trainStep(model, opt, b, tc);
      results.push({ loss: r.loss, w: Array.from(await model.params.get('h.0.attn.c_attn.weight')!.data()) });
      opt.dispose();
      disposeModel(model);
    }
    expect(results[0]!.loss).toBe(results[1]!.loss);
    expect(results[0]!.w).toEqual(results[1]!.w);
  });

  it('merges config defaults once and validates', () => {
    expect(resolveTrainConfig().weightDecay).toBe(0.1);
    expect(() => resolveTrainConfig({ beta2: 1 })).toThrow(/beta2/);
    expect(() => resolveTrainConfig({ batchSize: 0 })).toThrow(/batchSize/);
  });
});
