import { isMainThread, workerData, parentPort } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { spawnWorker } from '../main/lab/util/worker-spawn';
if (isMainThread && !process.env.CHILD) {
  const n = Number(process.argv[2] ?? 2);
  const ws = Array.from({ length: n }, (_, i) => spawnWorker(fileURLToPath(import.meta.url), { i }));
  await Promise.all(ws.map((w) => new Promise((r) => w.on('message', (m) => { console.log(m); r(null); }))));
  process.exit(0);
} else {
  const tf = await import('@tensorflow/tfjs');
  const { selectBackend } = await import('../main/lab/compute/backend');
  const { createModel, resolveGPTConfig } = await import('../main/lab/model/gpt');
  const { makeBatch } = await import('../main/lab/model/mask');
  const { batchLoss, resolveTrainConfig } = await import('../main/lab/model/train');
  const { createRng } = await import('../main/lab/util/rng');
  await selectBackend({ only: ['wasm'] });
  const cfg = resolveGPTConfig({ preset: 'tiny', vocabSize: 2048 });
  const model = createModel(cfg, { seed: 1 }); const tc = resolveTrainConfig({ batchSize: 4 }); const rng = createRng(7); const vars = [...model.params.values()];
  const b = makeBatch(Array.from({ length: 4 }, () => { const ids = Array.from({ length: 257 }, () => rng.int(2048)); return { ids, mask: ids.map(() => 1) }; }), 256, 0);
  const ts: number[] = []; const f0 = process.resourceUsage().minorPageFault;
  for (let i = 0; i < 30; i++) { const t0 = performance.now(); const g = tf.tidy(() => tf.variableGrads(() => batchLoss(model, b, 0, tc), vars)); await g.value.data(); ts.push(performance.now() - t0); tf.dispose([g.value, ...Object.values(g.grads)]); }
  ts.sort((a, b2) => a - b2); console.error("heap MB", ((tf.backend() as any).wasm.HEAPU8.length / 1e6).toFixed(0), "minor faults per step", (process.resourceUsage().minorPageFault - f0) / 8);
  parentPort?.postMessage(`worker ${(workerData as { i: number })?.i}: B=4 grads median ${ts[15]!.toFixed(0)} ms`);
}
