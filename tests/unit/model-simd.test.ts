// simd.wat: the committed bytes are what the text builds to, and its softmax rows equal the JavaScript ones.
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../main/lab/model/backend';
import { SIMD_MODULE_BASE64 } from '../../main/lab/model/kernels/simd-bytes';
import { buildAll, bytesSource } from '../../main/lab/model/kernels/simd-build';
import { installFastKernels, matmulKernel, simdKernelsActive, restoreStockKernels, setMatmulKernel } from '../../main/lab/model/kernels/kernels';
import { softmaxXentGradRows, softmaxXentRows, XENT, XENT_GRAD, XENT_GRAD_BOTH } from '../../main/lab/model/kernels/xent';
import { readFileSync } from 'node:fs';
import { ATTENTION, ATTENTION_GRAD, attentionBackward, attentionForward, paddedWidth } from '../../main/lab/model/kernels/attention';
import { createRng } from '../../main/lab/util/rng';
import { LAYER_NORM, LAYER_NORM_GRAD, layerNormGradRows, layerNormRows } from '../../main/lab/model/kernels/layernorm';

describe('SIMD row kernels', () => {
  it('simd-bytes.ts is simd.wat and gemm.wat built (rebuild with npx tsx main/lab/model/kernels/simd-build.ts)', async () => {
    const built = await buildAll();
    expect(Buffer.from(built[0]).toString('base64')).toBe(SIMD_MODULE_BASE64);
    expect(readFileSync(new URL('../../main/lab/model/kernels/simd-bytes.ts', import.meta.url), 'utf8')).toBe(bytesSource(...built));
  });

  it.each([61, 2048])('the wasm softmax cross-entropy equals the JavaScript rows (vocab %i, tails included)', async (V) => {
    await selectBackend({ only: ['wasm'] });
    expect(simdKernelsActive()).toBe(true);
    const rows = 9;
    const logits = tf.mul(tf.randomNormal([rows, V], 0, 1, 'float32', 4), 6) as tf.Tensor2D;
    const targets = tf.tensor1d([0, 1, V - 1, 5, 7, 30, V, -1, 2], 'int32');
    const [logp, ent, probs] = tf.engine().runKernel(XENT, { logits, targets }) as tf.Tensor[];
    const want = { logp: new Float32Array(rows), ent: new Float32Array(rows), probs: new Float32Array(rows * V) };
    softmaxXentRows(logits.dataSync(), targets.dataSync(), V, want.logp, want.ent, want.probs);
    const close = (got: tf.Tensor, exp: Float32Array, tol: number): void => {
      const g = got.dataSync();
      exp.forEach((x, i) => expect(Math.abs(g[i]! - x), `index ${i}`).toBeLessThan(tol * Math.max(1, Math.abs(x))));
    };
    close(logp!, want.logp, 1e-5);
    close(ent!, want.ent, 1e-5);
    close(probs!, want.probs, 1e-6);
    const dy = tf.tensor1d(Array.from({ length: rows }, (_, i) => (i - 4) / 3));
    const grad = tf.engine().runKernel(XENT_GRAD, { probs: probs!, targets, dy }) as tf.Tensor;
    const wantGrad = new Float32Array(rows * V);
    softmaxXentGradRows(probs!.dataSync(), targets.dataSync(), dy.dataSync(), V, wantGrad);
    close(grad, wantGrad, 1e-6);
    tf.dispose([logits, targets, logp!, ent!, probs!, dy, grad]);
  });

  it.each([
    [2, 3, 13, 16, false],
    [1, 2, 24, 32, true],
  ])('the wasm attention equals the JavaScript rows (B %i, H %i, T %i, D %i, slopes %s)', async (B, H, T, D, sloped) => {
    await selectBackend({ only: ['wasm'] });
    const rng = createRng(T * D);
    const slopes = sloped ? Array.from({ length: H }, (_, h) => 0.5 / (h + 1)) : [];
    const [q, k, v, dy] = [0, 1, 2, 3].map(() => Float32Array.from({ length: B * H * T * D }, () => rng.next() * 4 - 2));
    const shape: [number, number, number, number] = [B, T, H, D];
    const [qt, kt, vt, dyt] = [q, k, v, dy].map((a) => tf.tensor4d(a!, shape));
    const [y, probs] = tf.engine().runKernel(ATTENTION, { q: qt!, k: kt!, v: vt! }, { scale: 0.3, slopes } as unknown as tf.NamedAttrMap) as tf.Tensor[];
    const grads = tf.engine().runKernel(ATTENTION_GRAD, { q: qt!, k: kt!, v: vt!, probs: probs!, dy: dyt! }, { scale: 0.3, slopes } as unknown as tf.NamedAttrMap) as tf.Tensor[];
    const dims = { B, H, T, D };
    const want = { y: new Float32Array(B * H * T * D), probs: new Float32Array(B * H * T * paddedWidth(T)) };
    attentionForward(q!, k!, v!, dims, 0.3, slopes.length ? slopes : null, want.y, want.probs);
    const wantGrads = [0, 1, 2].map(() => new Float32Array(B * H * T * D)) as [Float32Array, Float32Array, Float32Array];
    attentionBackward(q!, k!, v!, want.probs, dy!, dims, 0.3, ...wantGrads);
    const close = (got: tf.Tensor, exp: Float32Array): void => {
      const g = got.dataSync();
      exp.forEach((x, i) => expect(Math.abs(g[i]! - x), `index ${i}`).toBeLessThan(1e-5 * Math.max(1, Math.abs(x))));
    };
    close(y!, want.y);
    close(probs!, want.probs);
    grads.forEach((g, i) => close(g, wantGrads[i]!));
    tf.dispose([qt!, kt!, vt!, dyt!, y!, probs!, ...grads]);
  });

  it('the wasm layer norm equals the JavaScript rows', async () => {
    await selectBackend({ only: ['wasm'] });
    const [rows, C] = [37, 24];
    const rng = createRng(5);
    const rand = (n: number, lo: number, hi: number): Float32Array => Float32Array.from({ length: n }, () => lo + (hi - lo) * rng.next());
    const [x, g, b, dy] = [rand(rows * C, -3, 5), rand(C, 0.5, 1.5), rand(C, -1, 1), rand(rows * C, -1, 1)];
    const [xt, gt, bt, dyt] = [tf.tensor2d(x, [rows, C]), tf.tensor1d(g), tf.tensor1d(b), tf.tensor2d(dy, [rows, C])];
    const outs = tf.engine().runKernel(LAYER_NORM, { x: xt, g: gt, b: bt }) as tf.Tensor[];
    const grads = tf.engine().runKernel(LAYER_NORM_GRAD, { x: xt, g: gt, mean: outs[1]!, rstd: outs[2]!, dy: dyt }) as tf.Tensor[];
    const want = [new Float32Array(rows * C), new Float32Array(rows), new Float32Array(rows)] as const;
    layerNormRows(x, g, b, C, ...want);
    const wantGrads = [new Float32Array(rows * C), new Float32Array(C), new Float32Array(C)] as const;
    layerNormGradRows(x, g, want[1], want[2], dy, C, ...wantGrads);
    const close = (got: tf.Tensor, exp: Float32Array): void => {
      const d = got.dataSync();
      exp.forEach((v, i) => expect(Math.abs(d[i]! - v), `index ${i}`).toBeLessThan(1e-5 * Math.max(1, Math.abs(v))));
    };
    outs.forEach((o, i) => close(o, want[i]!));
    grads.forEach((o, i) => close(o, wantGrads[i]!));
    tf.dispose([xt, gt, bt, dyt, ...outs, ...grads]);
  });

  it('the logits gradient written as rows and transposed equals the JavaScript rows (targets outside the vocabulary included)', async () => {
    await selectBackend({ only: ['wasm'] });
    const [rows, V] = [40, 68]; // more than one 32 x 32 tile each way
    const logits = tf.randomNormal([rows, V], 0, 2, 'float32', 12) as tf.Tensor2D;
    const targets = tf.tensor1d(Array.from({ length: rows }, (_, r) => (r === 3 ? V : r === 7 ? -1 : (r * 7) % V)), 'int32');
    const probs = (tf.engine().runKernel(XENT, { logits, targets }) as tf.Tensor[])[2]!;
    const dy = tf.tensor1d(Array.from({ length: rows }, (_, r) => (r - 20) / 9));
    const [grad, gradT] = tf.engine().runKernel(XENT_GRAD_BOTH, { probs, targets, dy }) as tf.Tensor[];
    const want = new Float32Array(rows * V);
    softmaxXentGradRows(probs.dataSync(), targets.dataSync(), dy.dataSync(), V, want);
    expect(grad!.dataSync()).toEqual(want);
    const g = gradT!.dataSync();
    for (let r = 0; r < rows; r++) for (let j = 0; j < V; j++) expect(g[j * rows + r], `[${j}, ${r}]`).toBe(want[r * V + j]);
    tf.dispose([logits, targets, probs, dy, grad!, gradT!]);
  });
});

describe('matrix products (gemm.wat)', () => {
  /** a @ b in double precision, row-major, batched over the leading entries. */
  function reference(a: Float32Array, b: Float32Array, G: number, M: number, K: number, N: number): Float64Array {
    const out = new Float64Array(G * M * N);
    for (let g = 0; g < G; g++) for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += a[g * M * K + i * K + k]! * b[g * K * N + k * N + j]!;
      out[g * M * N + i * N + j] = s;
    }
    return out;
  }

  // Rows not a multiple of 4 (the one-row tail), odd K, a batch, the head's width, N not a multiple of 8 (XNNPACK).
  const shapes: [number, number, number, number][] = [[1, 7, 13, 24], [3, 9, 5, 16], [1, 12, 64, 256], [1, 1, 3, 8], [1, 5, 7, 10]];
  it.each([true, false])('equals the reference within float tolerance (fused multiply-add allowed: %s)', async (fma) => {
    await selectBackend({ only: ['wasm'] });
    restoreStockKernels();
    setMatmulKernel(fma ? 'relaxed-simd-fma' : 'simd');
    installFastKernels();
    try {
      // Node 20 has relaxed SIMD behind a flag that gemm.ts sets; a runtime without either gets plain SIMD.
      expect(matmulKernel()).toBe(fma ? 'relaxed-simd-fma' : 'simd');
      const rng = createRng(11);
      for (const [G, M, K, N] of shapes) {
        const a = Float32Array.from({ length: G * M * K }, () => rng.next() * 2 - 1);
        const b = Float32Array.from({ length: G * K * N }, () => rng.next() * 2 - 1);
        const [ta, tb] = G > 1 ? [tf.tensor3d(a, [G, M, K]), tf.tensor3d(b, [G, K, N])] : [tf.tensor2d(a, [M, K]), tf.tensor2d(b, [K, N])];
        const got = tf.matMul(ta, tb);
        expect(got.shape).toEqual(G > 1 ? [G, M, N] : [M, N]);
        const want = reference(a, b, G, M, K, N);
        const g = got.dataSync();
        const worst = want.reduce((w, x, i) => Math.max(w, Math.abs(g[i]! - x)), 0);
        expect(worst, `[${G}, ${M}, ${K}, ${N}]`).toBeLessThan(1e-5 * Math.sqrt(K));
        tf.dispose([ta, tb, got]);
      }
    } finally {
      setMatmulKernel('relaxed-simd-fma');
      restoreStockKernels();
      installFastKernels();
    }
  });
});
