// Chooses the fastest TensorFlow.js backend that loads here, in the order a user with a GPU expects:
// CUDA through tfjs-node-gpu, then libtensorflow on CPU through tfjs-node, then WebAssembly, then plain JS.
// Every attempt is reported with why it failed, so `sailor doctor` and the status bar can say what to fix.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as TF from '@tensorflow/tfjs';
import type { BackendAttempt, BackendName, BackendReport } from '../contract';
import { installFastKernels, matmulKernel } from './kernels/kernels';
import type { GemmKind } from './kernels/gemm';

/** How `sailor doctor` names the kernel of the wasm backend's matrix products (kernels/gemm.ts). */
const MATMUL_KERNELS: Record<GemmKind, string> = {
  'relaxed-simd-fma': 'gemm.wat with relaxed SIMD fused multiply-add',
  simd: 'gemm.wat with SIMD multiply and add (this runtime has no relaxed SIMD)',
  xnnpack: "tfjs's XNNPACK (gemm.wat did not load)",
};

export type Tf = typeof TF;

const require = createRequire(import.meta.url);

interface Candidate {
  name: BackendName;
  module: string;
  /** Loads the backend into tf; resolves to a detail line, or throws with the reason. */
  load(tf: Tf): Promise<string>;
}

function missingReason(err: unknown, module: string, hint: string): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
    if (String((err as Error).message).includes(module)) return `${module} is not installed (${hint})`;
  }
  return `${module} failed to load: ${(err as Error).message.split('\n')[0]}`;
}

async function loadNative(tf: Tf, module: string, backend: string, hint: string): Promise<string> {
  try {
    await import(/* @vite-ignore */ module);
  } catch (err) {
    throw new Error(missingReason(err, module, hint));
  }
  if (!(await tf.setBackend(backend))) throw new Error(`${module} loaded but backend '${backend}' did not initialise`);
  return `${module} loaded (libtensorflow)`;
}

export const CANDIDATES: Candidate[] = [
  {
    name: 'tensorflow-gpu',
    module: '@tensorflow/tfjs-node-gpu',
    load: (tf) =>
      loadNative(tf, '@tensorflow/tfjs-node-gpu', 'tensorflow', 'optional; installs with CUDA and network access: npm install @tensorflow/tfjs-node-gpu'),
  },
  {
    name: 'tensorflow',
    module: '@tensorflow/tfjs-node',
    load: (tf) => loadNative(tf, '@tensorflow/tfjs-node', 'tensorflow', 'optional; npm install @tensorflow/tfjs-node on a machine with network access'),
  },
  {
    name: 'wasm',
    module: '@tensorflow/tfjs-backend-wasm',
    load: async (tf) => {
      const wasm = await import('@tensorflow/tfjs-backend-wasm');
      const dist = join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist') + '/';
      wasm.setWasmPaths(dist);
      if (!(await tf.setBackend('wasm'))) throw new Error('WebAssembly backend did not initialise');
      installFastKernels();
      return `WebAssembly backend from ${dist}; matrix products: ${MATMUL_KERNELS[matmulKernel()]}`;
    },
  },
  {
    name: 'cpu',
    module: '@tensorflow/tfjs',
    load: async (tf) => {
      if (!(await tf.setBackend('cpu'))) throw new Error('cpu backend did not initialise');
      installFastKernels();
      return 'plain JavaScript kernels (slowest; always available)';
    },
  },
];

let tfModule: Tf | null = null;

/** Runs fn without tfjs's "install tfjs-node" console banner: we report the same facts ourselves. */
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const { warn, log } = console;
  console.warn = console.log = () => {};
  try {
    return await fn();
  } finally {
    console.warn = warn;
    console.log = log;
  }
}

/** Imports @tensorflow/tfjs once. */
export async function loadTf(): Promise<Tf> {
  tfModule ??= await quietly(async () => (await import('@tensorflow/tfjs')) as Tf);
  return tfModule;
}

/**
 * Tries the candidates in order (or only `only`), leaves the first that works active in tf, and
 * returns the report. `prefer` puts one candidate first (e.g. a user's explicit choice).
 */
export async function selectBackend(opts: { prefer?: BackendName; only?: BackendName[] } = {}): Promise<{ tf: Tf; report: BackendReport }> {
  const tf = await loadTf();
  let order = CANDIDATES.filter((c) => !opts.only || opts.only.includes(c.name));
  if (opts.prefer) order = [...order.filter((c) => c.name === opts.prefer), ...order.filter((c) => c.name !== opts.prefer)];
  const attempts: BackendAttempt[] = [];
  let chosen: BackendName | null = null;
  for (const candidate of order) {
    if (chosen) {
      attempts.push({ name: candidate.name, module: candidate.module, ok: false, detail: `not tried: ${chosen} was chosen first` });
      continue;
    }
    try {
      const detail = await quietly(async () => {
        const d = await candidate.load(tf);
        await tf.ready();
        return d;
      });
      attempts.push({ name: candidate.name, module: candidate.module, ok: true, detail });
      chosen = candidate.name;
    } catch (err) {
      attempts.push({ name: candidate.name, module: candidate.module, ok: false, detail: (err as Error).message });
    }
  }
  if (!chosen) throw new Error(`no TensorFlow.js backend loaded: ${attempts.map((a) => `${a.name}: ${a.detail}`).join('; ')}`);
  return { tf, report: { chosen, attempts } };
}

/** Every backend that loads here, each probed on its own (for bench/speed/matmul and doctor). */
export async function availableBackends(): Promise<BackendAttempt[]> {
  const tf = await loadTf();
  const results: BackendAttempt[] = [];
  for (const candidate of CANDIDATES) {
    try {
      results.push({ name: candidate.name, module: candidate.module, ok: true, detail: await quietly(() => candidate.load(tf)) });
    } catch (err) {
      results.push({ name: candidate.name, module: candidate.module, ok: false, detail: (err as Error).message });
    }
  }
  return results;
}

/** Measured matmul throughput of the active backend: n x n by n x n, repeated for about `seconds`. */
export async function measureMatmulGflops(tf: Tf, n = 512, seconds = 1): Promise<{ gflops: number; runs: number }> {
  const a = tf.randomNormal([n, n]);
  const b = tf.randomNormal([n, n]);
  try {
    tf.tidy(() => tf.matMul(a, b)).dispose(); // warm-up: compiles kernels, allocates
    let runs = 0;
    const start = performance.now();
    while (performance.now() - start < seconds * 1000 || runs < 3) {
      const c = tf.matMul(a, b);
      await c.data(); // wait for the result, so async backends are measured too
      c.dispose();
      runs++;
    }
    const elapsed = (performance.now() - start) / 1000;
    return { gflops: (2 * n ** 3 * runs) / elapsed / 1e9, runs };
  } finally {
    a.dispose();
    b.dispose();
  }
}
