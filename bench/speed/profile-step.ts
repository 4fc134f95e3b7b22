// Where a training step's time goes, kernel by kernel: `npx tsx bench/speed/profile-step.ts [--backend wasm] [--steps 3] [--shapes]`.
// Profiles one-thread `tiny` steps (the shape bench/speed/train.ts times) with tf.profile and prints each kernel's
// total milliseconds and count per step, largest first. Kernel times overlap where a custom gradient's
// wrapper is counted beside the kernels it runs, so the column does not add up to the step exactly.
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../main/lab/model/backend';
import { createModel, resolveGPTConfig } from '../../main/lab/model/gpt';
import { randomBatch, type Batch } from '../lib/step-timing';
import { createOptimizer, resolveTrainConfig, trainStep } from '../../main/lab/model/train';
import { createRng } from '../../main/lab/util/rng';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { backend: { type: 'string', default: 'wasm' }, steps: { type: 'string', default: '3' }, shapes: { type: 'boolean', default: false } } });
const backend = values.backend as 'wasm' | 'cpu';
const steps = Number(values.steps);
const byShape = values.shapes; // also one row per kernel and input shapes

await selectBackend({ only: [backend] });
const cfg = resolveGPTConfig({ preset: 'tiny', vocabSize: 2048 });
const model = createModel(cfg, { seed: 1 });
const tc = resolveTrainConfig({ batchSize: 8 });
const opt = createOptimizer(model, tc);
const rng = createRng(7);
const batch = (): Batch => randomBatch(rng, tc.batchSize, cfg.blockSize, cfg.vocabSize);
for (let i = 0; i < 4; i++) await trainStep(model, opt, batch(), tc); // warm-up

const byKernel = new Map<string, { ms: number; n: number }>();
let wallMs = 0;
for (let s = 0; s < steps; s++) {
  const b = batch();
  const t0 = performance.now();
  const info = await tf.profile(async () => {
    await trainStep(model, opt, b, tc);
  });
  wallMs += performance.now() - t0;
  for (const k of info.kernels) {
    const e = byKernel.get(k.name) ?? { ms: 0, n: 0 };
    e.ms += typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : 0;
    e.n += 1;
    byKernel.set(k.name, e);
    if (byShape) {
      const key = `  ${k.name} ${JSON.stringify(k.inputShapes)}`;
      const f = byKernel.get(key) ?? { ms: 0, n: 0 };
      f.ms += typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : 0;
      f.n += 1;
      byKernel.set(key, f);
    }
  }
}
const rows = [...byKernel].sort((a, b) => b[1].ms - a[1].ms);
const kernelRows = rows.filter(([name]) => !name.startsWith(' '));
const total = kernelRows.reduce((t, [, e]) => t + e.ms, 0);
const kernels = kernelRows.reduce((t, [, e]) => t + e.n, 0);
console.log(`${backend}: ${(wallMs / steps).toFixed(0)} ms a step under the profiler, kernels ${(total / steps).toFixed(0)} ms, ${(kernels / steps).toFixed(0)} kernels a step`);
console.log('kernel | ms a step | calls a step');
for (const [name, e] of rows) console.log(`${name} | ${(e.ms / steps).toFixed(1)} | ${(e.n / steps).toFixed(0)}`);
