import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../main/lab/model/backend';
import { loadCheckpoint } from '../../main/lab/model/checkpoint';
import { BatchDecoder } from '../../main/lab/model/batch-decoder';
import { createRng } from '../../main/lab/util/rng';
await selectBackend({ only: ['wasm'] });
const { model } = await loadCheckpoint('resources/base-model');
const rng = createRng(5);
for (const B of [1, 8, 64]) {
  const prompts = Array.from({ length: B }, () => Array.from({ length: 128 }, () => rng.int(1000)));
  for (let rep = 0; rep < 2; rep++) {
    const dec = new BatchDecoder(model);
    const t0 = performance.now();
    await Promise.all(prompts.map((p) => dec.sample(p, { maxNewTokens: 64, temperature: 0 })));
    const s = dec.stats;
    console.log(B, ((performance.now() - t0) / 1000).toFixed(2), 's', 'prefill', s.prefillS.toFixed(2), 'decode', s.decodeS.toFixed(2), 'per step ms', (s.decodeS * 1000 / s.steps).toFixed(1));
  }
}
const prof = await tf.profile(async () => {
  const dec = new BatchDecoder(model);
  const prompts = Array.from({ length: 64 }, () => Array.from({ length: 128 }, () => rng.int(1000)));
  await Promise.all(prompts.map((p) => dec.sample(p, { maxNewTokens: 16, temperature: 0 })));
});
const by = new Map<string, { n: number; ms: number }>();
for (const k of prof.kernels) { const e = by.get(k.name) ?? { n: 0, ms: 0 }; e.n++; e.ms += k.kernelTimeMs as number; by.set(k.name, e); }
console.log([...by.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25).map(([k, v]) => `${k} ${v.n} ${v.ms.toFixed(1)}`).join('\n'));
