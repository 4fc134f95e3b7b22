// The tensor count of a training loop stays flat: after 200 steps it equals the count after 10. The loop
// here does what the trainer does between steps too: a held-out loss and a generation with the KV cache.
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { createModel, disposeModel, resolveGPTConfig } from '../../main/lab/model/gpt';
import { loss } from '../../main/lab/model/logprobs';
import { generate } from '../../main/lab/model/generate';
import { makeBatch } from '../../main/lab/model/mask';
import { createOptimizer, resolveTrainConfig, trainStep } from '../../main/lab/model/train';
import { createRng } from '../../main/lab/util/rng';
import { selectBackend } from '../../main/lab/model/backend';
import { Replicas } from '../../main/lab/model/replicas';

describe('tensor discipline', () => {
  it.each([
    ['stock cpu kernels', async () => void (await tf.setBackend('cpu'))],
    ['wasm with the fast kernels, two threads', async () => void (await selectBackend({ only: ['wasm'] }))],
  ])('numTensors after 200 steps equals numTensors after 10 (%s)', { timeout: 120_000 }, async (backend, setup) => {
    await setup();
    const cfg = resolveGPTConfig({ preset: 'tiny', vocabSize: 40, blockSize: 16, nEmbd: 16, nHead: 2, nLayer: 1 });
    const model = createModel(cfg, { seed: 1 });
    const train = resolveTrainConfig({ maxSteps: 200, decaySteps: 200, warmupSteps: 5, batchSize: 2, seqLen: 16 });
    const opt = createOptimizer(model, train);
    const rng = createRng(3);
    const example = () => {
      const ids = Array.from({ length: 17 }, () => 1 + rng.int(39));
      return { ids, mask: ids.map((_, i) => (i % 3 === 0 ? 0 : 1)) };
    };
    const replicas = backend.includes('two threads') ? await Replicas.start(model, 1) : undefined;
    const counts: Record<number, number> = {};
    for (let step = 1; step <= 200; step++) {
      await trainStep(model, opt, makeBatch([example(), example()], 16, 0), train, replicas);
      if (step % 50 === 0) {
        const b = makeBatch([example()], 16, 0);
        tf.tidy(() => loss(model, tf.tensor2d(b.ids, [1, 16], 'int32'), tf.tensor2d(b.targets, [1, 16], 'int32'), tf.tensor2d(b.mask, [1, 16]))).dispose();
        await generate(model, [1, 2, 3], { maxNewTokens: 5, temperature: 1, rng });
      }
      if (step === 10 || step === 200) counts[step] = tf.memory().numTensors;
    }
    await replicas?.close();
    expect(counts[200]).toBe(counts[10]);
    opt.dispose?.();
    disposeModel(model);
  });
});
