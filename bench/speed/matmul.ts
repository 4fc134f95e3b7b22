// Matmul GFLOP/s of every TensorFlow.js backend that loads here: the ceiling training is measured against.
// Run: npx tsx bench/speed/matmul.ts [--size N] [--seconds S]
import { parseArgs } from 'node:util';
import { availableBackends, loadTf, measureMatmulGflops } from '../../main/lab/model/backend';

const { values } = parseArgs({ options: { size: { type: 'string', default: '512' }, seconds: { type: 'string', default: '2' } } });
const n = Number(values.size);
const seconds = Number(values.seconds);
const tf = await loadTf();
const backends = await availableBackends();
console.log(`matmul ${n}x${n}, ~${seconds}s per backend, ${new Date().toISOString()}`);
for (const b of backends) {
  if (!b.ok) {
    console.log(`${b.name.padEnd(15)} unavailable: ${b.detail}`);
    continue;
  }
  await tf.setBackend(b.name === 'tensorflow-gpu' ? 'tensorflow' : b.name);
  await tf.ready();
  const { gflops, runs } = await measureMatmulGflops(tf, n, seconds);
  console.log(`${b.name.padEnd(15)} ${gflops.toFixed(2).padStart(8)} GFLOP/s  (${runs} runs)`);
}
