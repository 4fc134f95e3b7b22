// simd.wat: the committed bytes are what the text builds to, and its softmax rows equal the JavaScript ones.
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../main/lab/compute/backend';
import { simdKernelsActive } from '../../main/lab/model/kernels';
import { SIMD_MODULE_BASE64 } from '../../main/lab/model/simd-bytes';
import { buildSimdModule, bytesSource } from '../../main/lab/model/simd-build';
import { softmaxXentGradRows, softmaxXentRows, XENT, XENT_GRAD } from '../../main/lab/model/xent';
import { readFileSync } from 'node:fs';

describe('SIMD row kernels', () => {
  it('simd-bytes.ts is simd.wat built (rebuild with npx tsx main/lab/model/simd-build.ts)', async () => {
    const bytes = await buildSimdModule();
    expect(Buffer.from(bytes).toString('base64')).toBe(SIMD_MODULE_BASE64);
    expect(readFileSync(new URL('../../main/lab/model/simd-bytes.ts', import.meta.url), 'utf8')).toBe(bytesSource(bytes));
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
});
