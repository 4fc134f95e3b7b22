// The wasm backend's matrix-product kernels against each other on the `tiny` training step (one thread):
// tfjs's XNNPACK, gemm.wat with SIMD multiply and add, and gemm.wat with relaxed SIMD's fused multiply-add
// (kernels/gemm.ts), alternated round by round in one process so all see the same machine. Prints the
// median wall and CPU milliseconds of a step per kernel and round, and the step's products alone
// (2 x [2048, 64] x [64, 2048]-class shapes, CPU GFLOP/s, best of repeats).
// Run: npx tsx bench/speed/matmul-kernels.ts [--rounds 3] [--steps 6] [--json]
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../main/lab/model/backend';
import { installFastKernels, matmulKernel, restoreStockKernels, setMatmulKernel } from '../../main/lab/model/kernels/kernels';
import type { GemmKind } from '../../main/lab/model/kernels/gemm';
import { createModel, disposeModel, resolveGPTConfig } from '../../main/lab/model/gpt';
import { createOptimizer, resolveTrainConfig, trainStep } from '../../main/lab/model/train';
import { createRng } from '../../main/lab/util/rng';
import { median, randomBatch, timeSteps } from '../lib/step-timing';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, steps: { type: 'string', default: '6' }, json: { type: 'boolean', default: false } } });
const log = (...xs: unknown[]): void => console.error(...xs);
await selectBackend({ only: ['wasm'] });
const cfg = resolveGPTConfig({ preset: 'tiny', vocabSize: 2048 });
const train = resolveTrainConfig({ batchSize: 8, warmupSteps: 0 });
const model = createModel(cfg, { seed: 1 });
const opt = createOptimizer(model, train);
const rng = createRng(3);
const kinds: GemmKind[] = ['xnnpack', 'simd', 'relaxed-simd-fma'];
const use = (kind: GemmKind): GemmKind => {
  setMatmulKernel(kind);
  restoreStockKernels();
  installFastKernels();
  return matmulKernel();
};
/** CPU GFLOP/s of a @ b, best of `reps`. */
function products(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [M, K, N] of [[2048, 64, 2048], [2048, 2048, 64], [2048, 64, 256], [2048, 256, 64]] as const) {
    const a = tf.randomNormal([M, K]);
    const b = tf.randomNormal([K, N]);
    let best = Infinity;
    for (let r = 0; r < 6; r++) {
      const c0 = process.cpuUsage();
      tf.matMul(a, b).dispose();
      const c = process.cpuUsage(c0);
      best = Math.min(best, (c.user + c.system) / 1000);
    }
    out[`${M}x${K}x${N}`] = (2 * M * K * N) / best / 1e6;
    tf.dispose([a, b]);
  }
  return out;
}
const load0 = loadavg();
const rounds: Record<string, { kind: GemmKind; wallMs: number; cpuMs: number; gflops: Record<string, number> }[]> = {};
for (let r = 0; r < Number(values.rounds); r++) {
  for (const want of kinds) {
    const kind = use(want);
    const t = await timeSteps(() => randomBatch(rng, 8, cfg.blockSize, cfg.vocabSize), (b) => trainStep(model, opt, b, train), 2, Number(values.steps));
    (rounds[want] ??= []).push({ kind, ...t, gflops: products() });
    log(`round ${r + 1} ${want.padEnd(16)} (${kind}): step ${t.wallMs.toFixed(0)} ms wall, ${t.cpuMs.toFixed(0)} ms CPU`);
  }
}
use('relaxed-simd-fma');
opt.dispose();
disposeModel(model);
const result = {
  loadBefore: load0, loadAfter: loadavg(), rounds,
  medianCpuMs: Object.fromEntries(Object.entries(rounds).map(([k, xs]) => [k, median(xs.map((x) => x.cpuMs))])),
};
if (values.json) console.log(JSON.stringify(result, null, 2));
else {
  console.log(`tiny step on one thread, wasm, load ${load0.map((x) => x.toFixed(1)).join(' ')} -> ${result.loadAfter.map((x) => x.toFixed(1)).join(' ')}`);
  for (const [k, xs] of Object.entries(rounds)) {
    console.log(`  ${k.padEnd(17)} step ms (wall / CPU) per round: ${xs.map((x) => `${x.wallMs.toFixed(0)} / ${x.cpuMs.toFixed(0)}`).join(', ')}`);
    console.log(`  ${''.padEnd(17)} products, CPU GFLOP/s (last round): ${Object.entries(xs.at(-1)!.gflops).map(([s, g]) => `${s} ${g.toFixed(1)}`).join(', ')}`);
  }
}
