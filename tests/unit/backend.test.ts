import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { availableBackends, measureMatmulGflops, selectBackend } from '../../main/lab/model/backend';

const require = createRequire(import.meta.url);
const installed = (m: string): boolean => {
  try {
    require.resolve(m);
    return true;
  } catch {
    return false;
  }
};

describe('compute backend selection', () => {
  it('tries CUDA, then libtensorflow, then wasm, then cpu, and explains each miss', async () => {
    const { tf, report } = await selectBackend();
    expect(report.attempts.map((a) => a.name)).toEqual(['tensorflow-gpu', 'tensorflow', 'wasm', 'cpu']);
    const first = report.attempts.find((a) => a.ok)!;
    expect(report.chosen).toBe(first.name);
    expect(tf.getBackend()).toBe(first.name === 'tensorflow-gpu' ? 'tensorflow' : first.name);
    for (const a of report.attempts.slice(0, report.attempts.indexOf(first))) expect(a.detail.length).toBeGreaterThan(10);
    if (!installed('@tensorflow/tfjs-node-gpu')) {
      expect(report.attempts[0]!.detail).toMatch(/tfjs-node-gpu is not installed/);
    }
  });

  it('honours an explicit choice and falls back past it when it fails', async () => {
    const cpu = await selectBackend({ only: ['cpu'] });
    expect(cpu.report.chosen).toBe('cpu');
    expect(cpu.tf.getBackend()).toBe('cpu');
    const preferred = await selectBackend({ prefer: 'cpu' });
    expect(preferred.report.chosen).toBe('cpu');
    expect(preferred.report.attempts[0]!.name).toBe('cpu');
  });

  it('measures a positive matmul throughput on every backend that loads', async () => {
    const { tf } = await selectBackend({ only: ['cpu'] });
    const { gflops, runs } = await measureMatmulGflops(tf, 64, 0.05);
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(gflops).toBeGreaterThan(0);
    const all = await availableBackends();
    expect(all.find((b) => b.name === 'cpu')?.ok).toBe(true);
    expect(tf.memory().numTensors).toBe(0);
  });
});
