// The fused kernels alone on the `tiny` step's shapes: `npx tsx bench/speed/kernels.ts [--backend wasm] [--ms 1500]`.
// Times the loss (xent.ts: forward, and the gradient written as rows and transposed) over [2048, 2048] logits
// and attention (attention.ts) over [8, 256, 4, 16] forward and backward, and the step's 27 matrix products
// (XNNPACK: the floor under a step's time on this backend, whatever the fused kernels do), each run repeatedly for `--ms`
// and reported as its best and median milliseconds of this process's CPU time (the machine may be shared:
// CPU time does not count the waits for a core). A step runs the loss once and attention twice (two
// layers); bench/speed/train.ts times whole steps, bench/speed/profile-step.ts splits one by kernel.
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../main/lab/model/backend';
import { ATTENTION, ATTENTION_GRAD } from '../../main/lab/model/kernels/attention';
import { XENT, XENT_GRAD_BOTH } from '../../main/lab/model/kernels/xent';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { backend: { type: 'string', default: 'wasm' }, ms: { type: 'string', default: '1500' } } });
const backend = values.backend as 'wasm' | 'cpu';
const minMs = Number(values.ms);

function time(name: string, run: () => tf.Tensor[]): number {
  const once = (): number => {
    const t0 = process.cpuUsage();
    tf.dispose(run());
    const t = process.cpuUsage(t0);
    return (t.user + t.system) / 1000;
  };
  for (let i = 0; i < 5; i++) once(); // warm-up (and the wasm tier-up)
  const times: number[] = [];
  const t0 = performance.now();
  while (performance.now() - t0 < minMs || times.length < 5) times.push(once());
  times.sort((a, b) => a - b);
  console.log(`${name} | ${times[0]!.toFixed(2)} | ${times[Math.floor(times.length / 2)]!.toFixed(2)} | ${times.length}`);
  return times[0]!;
}

await selectBackend({ only: [backend] });
console.log('kernel | best ms | median ms | runs');

const [rows, V] = [2048, 2048];
const logits = tf.mul(tf.randomNormal([rows, V], 0, 1, 'float32', 1), 3) as tf.Tensor2D;
const targets = tf.tensor1d(Array.from({ length: rows }, (_, i) => (i * 7) % V), 'int32');
const dy = tf.fill([rows], -1 / rows);
const saved = tf.engine().runKernel(XENT, { logits, targets }) as tf.Tensor[];
time('xent forward [2048, 2048]', () => tf.engine().runKernel(XENT, { logits, targets }) as tf.Tensor[]);
time('xent gradient, rows and transposed', () => tf.engine().runKernel(XENT_GRAD_BOTH, { probs: saved[2]!, targets, dy }) as tf.Tensor[]);
tf.dispose([logits, targets, dy, ...saved]);

const [B, T, H, D] = [8, 256, 4, 16];
const [q, k, v, dyA] = [1, 2, 3, 4].map((seed) => tf.randomNormal([B, T, H, D], 0, 1, 'float32', seed)) as tf.Tensor4D[];
const attrs = { scale: 1 / Math.sqrt(D), slopes: [] } as unknown as tf.NamedAttrMap;
const [, probs] = tf.engine().runKernel(ATTENTION, { q: q!, k: k!, v: v! }, attrs) as tf.Tensor[];
time('attention forward [8, 256, 4, 16]', () => tf.engine().runKernel(ATTENTION, { q: q!, k: k!, v: v! }, attrs) as tf.Tensor[]);
time('attention backward', () => tf.engine().runKernel(ATTENTION_GRAD, { q: q!, k: k!, v: v!, probs: probs!, dy: dyA! }, attrs) as tf.Tensor[]);

tf.dispose([q!, k!, v!, dyA!, probs!]);

// The products of a `tiny` step, [M, K] @ [K, N] and how many a step runs: per layer the four linear layers
// forward (qkv, attention out, MLP in, MLP out), each one's input gradient (dY W^T) and weight gradient
// (the narrower operand packed: [in, rows] @ [rows, out] or its transpose); then the tied head's logits, dh
// and dwte.
const N = B * T;
const linear = [[64, 192], [64, 64], [64, 256], [256, 64]] as const;
const products: [number, number, number, number][] = [
  ...linear.flatMap(([i, o]): [number, number, number, number][] => [[N, i, o, 2], [N, o, i, 2], i <= o ? [i, N, o, 2] : [o, N, i, 2]]),
  [N, 64, V, 1],
  [N, V, 64, 2],
];
let floor = 0;
for (const [M, K, Ncols, count] of products) {
  const a = tf.randomNormal([M, K]);
  const b = tf.randomNormal([K, Ncols]);
  floor += count * time(`matMul [${M}, ${K}] @ [${K}, ${Ncols}] x${count}`, () => [tf.matMul(a, b)]);
  tf.dispose([a, b]);
}
const flops = products.reduce((t, [M, K, Ncols, count]) => t + 2 * M * K * Ncols * count, 0);
console.log(`a step's products: ${floor.toFixed(1)} ms at best (${(flops / 1e9).toFixed(2)} GFLOP, ${(flops / floor / 1e6).toFixed(1)} GFLOP/s)`);
