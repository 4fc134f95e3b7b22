// What the step-timing benches share: a training batch of random tokens, every position trained (a step's cost
// measured on full-length rows whatever the data), and the median wall and CPU time of a step.
import { makeBatch } from '../../main/lab/model/mask';
import type { Rng } from '../../main/lab/util/rng';

export type Batch = ReturnType<typeof makeBatch>;

/** `rows` rows of `blockSize` + 1 random token ids below `vocabSize`, none masked. */
export function randomBatch(rng: Rng, rows: number, blockSize: number, vocabSize: number): Batch {
  const row = (): { ids: number[]; mask: number[] } => {
    const ids = Array.from({ length: blockSize + 1 }, () => rng.int(vocabSize));
    return { ids, mask: ids.map(() => 1) };
  };
  return makeBatch(Array.from({ length: rows }, row), blockSize, 0);
}

/** The middle value (the upper one of an even count). */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Median wall and CPU milliseconds of `timed` steps, after `warmup` untimed ones (every thread's heap grows to
 * its peak and its code is compiled in the first steps). Each step's input is made by `prepare`, outside the
 * timing. CPU time (this process's, every thread) is what a step costs when other processes share the cores:
 * wall time then counts the waits for one.
 */
export async function timeSteps<T>(prepare: () => T, step: (input: T) => Promise<unknown>, warmup: number, timed: number): Promise<{ wallMs: number; cpuMs: number }> {
  for (let i = 0; i < warmup; i++) await step(prepare());
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < timed; i++) {
    const input = prepare();
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await step(input);
    const c = process.cpuUsage(c0);
    wall.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { wallMs: median(wall), cpuMs: median(cpu) };
}
