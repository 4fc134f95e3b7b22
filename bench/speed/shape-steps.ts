// What one training step of each model shape costs, to size bench/research/shapes.ts before running it: per shape, a
// fresh model (vocabulary 1024 and distance penalties, as `sailor pretrain` makes them), batches of 8 full-length
// rows of random tokens, every core sharing each batch as training runs do (model/replicas.ts). Prints the
// median CPU seconds (this process, every thread) and wall milliseconds of a step. CPU time is the figure that
// holds on a shared machine; real batches are often shorter than the context (fitSeqLen), so this is an upper bound.
// Run: npx tsx bench/speed/shape-steps.ts [--shapes tiny,4x64,2x128,tiny-512,small] [--steps 10]
import { parseArgs } from 'node:util';
import { selectBackend } from '../../main/lab/model/backend';
import { createModel, disposeModel, paramCount, resolveGPTConfig } from '../../main/lab/model/gpt';
import { randomBatch, timeSteps, type Batch } from '../lib/step-timing';
import { defaultWorkers, Replicas } from '../../main/lab/model/replicas';
import { createOptimizer, resolveTrainConfig, trainStep } from '../../main/lab/model/train';
import { createRng } from '../../main/lab/util/rng';
import { SHAPES } from '../lib/shapes-list';

const { values } = parseArgs({ options: { shapes: { type: 'string', default: Object.keys(SHAPES).join(',') }, steps: { type: 'string', default: '10' } } });
const steps = Number(values.steps);
const { report } = await selectBackend();
console.log(`backend ${report.chosen}; ${steps} timed steps after 2 warm-up steps, batch 8 x the context`);
console.log('| shape | layers x width, context | params | weights (float32) | CPU s/step | threads | wall ms/step |');
console.log('|---|---|---|---|---|---|---|');
for (const name of values.shapes!.split(',')) {
  const s = SHAPES[name];
  if (!s) throw new Error(`unknown shape ${name} (expected ${Object.keys(SHAPES).join(', ')})`);
  const cfg = resolveGPTConfig({ vocabSize: 1024, ...s, distanceBias: true });
  const model = createModel(cfg, { seed: 1 });
  const tc = resolveTrainConfig({ batchSize: 8, seqLen: cfg.blockSize });
  const opt = createOptimizer(model, tc);
  const workers = defaultWorkers(report.chosen, tc.batchSize);
  const replicas = workers > 1 ? await Replicas.start(model, workers - 1) : undefined;
  const rng = createRng(7);
  const batch = (): Batch => randomBatch(rng, tc.batchSize, cfg.blockSize, cfg.vocabSize);
  try {
    const { wallMs, cpuMs } = await timeSteps(batch, (b) => trainStep(model, opt, b, tc, replicas), 2, steps);
    const p = paramCount(cfg);
    console.log(`| ${name} | ${s.nLayer} x ${s.nEmbd}, ${s.blockSize} | ${(p / 1e6).toFixed(2)}M | ${((p * 4) / 1e6).toFixed(2)} MB | ${(cpuMs / 1000).toFixed(3)} | ${workers} | ${wallMs.toFixed(0)} |`);
  } finally {
    await replicas?.close();
    opt.dispose?.();
    disposeModel(model);
  }
}
