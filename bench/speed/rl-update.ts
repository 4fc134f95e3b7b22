// The RL update alone, on one thread against every core (data-parallel replicas, rl-update.ts), alternated
// A B A B in one process so both sides see the same machine: the median and spread of wall and CPU time per
// update, and the ratio. The batch is a step of 4 questions x 8 rollouts as the RL stage packs it: turn
// windows of random tokens (lengths like the quick preset's: a prompt of up to 160 tokens and a turn of up to
// 48), the loss on the turn's tokens, advantages of both signs.
// Run: npx tsx bench/speed/rl-update.ts [--windows 200] [--reps 5] [--threads 2] [--json]
import { parseArgs } from 'node:util';
import { availableParallelism, loadavg } from 'node:os';
import { selectBackend } from '../../main/lab/model/backend';
import { createModel, disposeModel, resolveGPTConfig } from '../../main/lab/model/gpt';
import { createOptimizer, resolveTrainConfig } from '../../main/lab/model/train';
import type { PgSample } from '../../main/lab/rl/loss';
import { rlUpdate, startUpdateReplicas } from '../../main/lab/train/rl-stage/rl-update';
import { createRng } from '../../main/lab/util/rng';
import { median } from '../lib/step-timing';

const { values } = parseArgs({
  options: {
    windows: { type: 'string', default: '200' },
    reps: { type: 'string', default: '5' },
    threads: { type: 'string', default: String(Math.max(2, availableParallelism())) },
    json: { type: 'boolean', default: false },
  },
});
const log = (...xs: unknown[]): void => console.error(...xs);
await selectBackend({ only: ['wasm'] });
const cfg = resolveGPTConfig({ preset: 'tiny', vocabSize: 2048 });
const train = resolveTrainConfig({ lr: 1e-6, warmupSteps: 0, seqLen: cfg.blockSize });
const rng = createRng(7);
const samples: PgSample[] = Array.from({ length: Number(values.windows) }, (_, i) => {
  const prompt = 40 + rng.int(121);
  const turn = 8 + rng.int(41);
  const ids = Array.from({ length: prompt + turn }, () => 1 + rng.int(cfg.vocabSize - 1));
  return { ids, mask: ids.map((_, t) => (t >= prompt ? 1 : 0)), advantage: i % 3 === 0 ? -0.8 : 0.6 };
});
const model = createModel(cfg, { seed: 1 });
const opt = createOptimizer(model, train);
const threads = Number(values.threads);
const replicas = await startUpdateReplicas(model, threads - 1);
const clip = { epsLow: 0.2, epsHigh: 0.28 };
const load0 = loadavg();
const time = async (useReplicas: boolean): Promise<{ wall: number; cpu: number }> => {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await rlUpdate(model, opt, samples, train, clip, 0, useReplicas ? replicas : undefined);
  const c = process.cpuUsage(c0);
  return { wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 };
};
await time(false); // warm-up: every thread's heap and code
await time(true);
const runs: Record<'one' | 'all', { wall: number; cpu: number }[]> = { one: [], all: [] };
for (let r = 0; r < Number(values.reps); r++) {
  runs.one.push(await time(false));
  runs.all.push(await time(true));
  log(`rep ${r + 1}: one thread ${runs.one.at(-1)!.wall.toFixed(2)} s, ${threads} threads ${runs.all.at(-1)!.wall.toFixed(2)} s`);
}
await replicas.close();
opt.dispose();
disposeModel(model);
const stats = (xs: number[]): { median: number; min: number; max: number } => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });
const ratios = runs.one.map((o, i) => o.wall / runs.all[i]!.wall);
const result = {
  windows: samples.length, tokens: samples.reduce((a, s) => a + s.ids.length, 0), threads, loadBefore: load0, loadAfter: loadavg(),
  oneThread: { wallS: stats(runs.one.map((x) => x.wall)), cpuS: stats(runs.one.map((x) => x.cpu)) },
  allThreads: { wallS: stats(runs.all.map((x) => x.wall)), cpuS: stats(runs.all.map((x) => x.cpu)) },
  speedup: stats(ratios),
};
if (values.json) console.log(JSON.stringify(result, null, 2));
else {
  const f = (s: { median: number; min: number; max: number }): string => `${s.median.toFixed(2)} (${s.min.toFixed(2)}-${s.max.toFixed(2)})`;
  console.log(`RL update, ${result.windows} windows (${result.tokens} tokens), median (min-max) of ${ratios.length} alternated pairs; load ${load0.map((x) => x.toFixed(1)).join(' ')}`);
  console.log(`  one thread        wall ${f(result.oneThread.wallS)} s, CPU ${f(result.oneThread.cpuS)} s`);
  console.log(`  ${threads} threads         wall ${f(result.allThreads.wallS)} s, CPU ${f(result.allThreads.cpuS)} s`);
  console.log(`  speed-up (pairs)  ${f(result.speedup)}x`);
}
