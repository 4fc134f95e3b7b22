import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../main/lab/compute/backend';
await selectBackend({ only: ['wasm'] });
const f = () => process.resourceUsage().minorPageFault;
const probe = (name: string, fn: () => void) => { for (let i = 0; i < 3; i++) fn(); const f0 = f(); for (let i = 0; i < 10; i++) fn(); console.log(name.padEnd(30), ((f() - f0) / 10).toFixed(0), 'faults/call'); };
const a = tf.randomNormal([2048, 64]); const b = tf.randomNormal([64, 2048]); const big = tf.randomNormal([2048, 2048]); const att = tf.randomNormal([8, 4, 256, 256]); const v = tf.randomNormal([8, 4, 256, 16]);
probe('matmul head', () => tf.tidy(() => { tf.matMul(a, b); }));
probe('bmm att@v', () => tf.tidy(() => { tf.matMul(att, v); }));
probe('exp 4M', () => tf.tidy(() => { tf.exp(big); }));
probe('add 4M', () => tf.tidy(() => { tf.add(big, big); }));
probe('transpose 4M', () => tf.tidy(() => { tf.transpose(big); }));
probe('js Float32Array 16MB', () => { new Float32Array(4 << 20).fill(1); });
const { createModel, resolveGPTConfig, forward } = await import('../main/lab/model/gpt');
const { makeBatch } = await import('../main/lab/model/mask');
const { batchLoss, resolveTrainConfig } = await import('../main/lab/model/train');
const { createRng } = await import('../main/lab/util/rng');
const cfg = resolveGPTConfig({ preset: 'tiny', vocabSize: 2048 });
const model = createModel(cfg, { seed: 1 }); const tc = resolveTrainConfig({ batchSize: 4 }); const rng = createRng(7); const vars = [...model.params.values()];
const bt = makeBatch(Array.from({ length: 4 }, () => { const ids = Array.from({ length: 257 }, () => rng.int(2048)); return { ids, mask: ids.map(() => 1) }; }), 256, 0);
const ids = tf.tensor2d(bt.ids, [4, 256], 'int32');
probe('forward logits', () => tf.tidy(() => { forward(model, ids); }));
probe('batchLoss', () => tf.tidy(() => { batchLoss(model, bt, 0, tc); }));
probe('variableGrads', () => tf.tidy(() => { tf.variableGrads(() => batchLoss(model, bt, 0, tc), vars); }));
{ for (let r = 0; r < 3; r++) { const f0 = f(); for (let i = 0; i < 8; i++) { const g = tf.tidy(() => tf.variableGrads(() => batchLoss(model, bt, 0, tc), vars)); await g.value.data(); tf.dispose([g.value, ...Object.values(g.grads)]); } console.log('thr2-style step', ((f() - f0) / 8).toFixed(0), 'faults/step'); } }
{ const f0 = f(); for (let i = 0; i < 8; i++) { const g = tf.tidy(() => tf.variableGrads(() => batchLoss(model, bt, 0, tc), vars)); g.value.dataSync(); tf.dispose([g.value, ...Object.values(g.grads)]); } console.log('sync step', ((f() - f0) / 8).toFixed(0), 'faults/step'); }
process.exit(0);
