import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { AdamW, adamwUpdate, clipByGlobalNorm, lrAt } from '../../main/lab/model/optim';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('lrAt', () => {
  const s = { lr: 1e-3, minLr: 1e-4, warmupSteps: 10, decaySteps: 110 };
  it('warms up linearly, peaks, decays by cosine to the floor', () => {
    expect(lrAt(0, s)).toBeCloseTo(1e-3 / 11, 12);
    expect(lrAt(9, s)).toBeCloseTo(1e-3 * 10 / 11, 12);
    expect(lrAt(10, s)).toBeCloseTo(1e-3, 12);
    expect(lrAt(60, s)).toBeCloseTo(1e-4 + 0.5 * (1e-3 - 1e-4), 12);
    expect(lrAt(110, s)).toBe(1e-4);
    expect(lrAt(10_000, s)).toBe(1e-4);
    for (let i = 11; i < 110; i++) expect(lrAt(i, s)).toBeLessThan(lrAt(i - 1, s));
  });
  it('is pure and handles degenerate schedules', () => {
    expect(lrAt(5, s)).toBe(lrAt(5, s));
    expect(lrAt(0, { ...s, warmupSteps: 0 })).toBe(1e-3);
    expect(lrAt(20, { ...s, decaySteps: 5 })).toBe(1e-4);
  });
});

/** PyTorch AdamW in plain JS, the reference. */
function refAdamW(p: number[], grads: number[][], lr: number, wd: number, decay: boolean): number[] {
  const [b1, b2, eps] = [0.9, 0.95, 1e-8];
  const m = p.map(() => 0);
  const v = p.map(() => 0);
  const x = [...p];
  grads.forEach((g, k) => {
    const t = k + 1;
    for (let i = 0; i < x.length; i++) {
      if (decay) x[i] = x[i]! * (1 - lr * wd);
      m[i] = b1 * m[i]! + (1 - b1) * g[i]!;
      v[i] = b2 * v[i]! + (1 - b2) * g[i]! * g[i]!;
      const denom = Math.sqrt(v[i]!) / Math.sqrt(1 - b2 ** t) + eps;
      x[i] = x[i]! - (lr / (1 - b1 ** t)) * (m[i]! / denom);
    }
  });
  return x;
}

describe.each([true, false])('AdamW (state on the host: %s)', (host) => {
  it('matches the PyTorch formulas, with decay only on matmul weights', async () => {
    const params = new Map<string, tf.Variable>([
      ['h.0.mlp.c_fc.weight', tf.variable(tf.tensor2d([[1, -2], [0.5, 3]]))],
      ['h.0.ln_1.weight', tf.variable(tf.tensor1d([1, -2]))],
      ['wte', tf.variable(tf.tensor2d([[0.3, -0.1]]))],
    ]);
    const opt = new AdamW(params, { weightDecay: 0.1, host });
    expect(opt.onHost).toBe(host);
    expect([...opt.decayedNames]).toEqual(['h.0.mlp.c_fc.weight']);
    const g2 = [[0.1, -0.3, 2, 0.01], [0.2, 0.1, -1, 0.5], [0.05, 0.05, 0.05, 0.05]];
    const g1 = [[0.4, -0.2], [-0.1, 0.3], [0.2, 0.2]];
    const ge = [[1, 2], [-1, 0.5], [0, 0]];
    for (let k = 0; k < 3; k++) {
      tf.tidy(() =>
        opt.apply(
          new Map<string, tf.Tensor>([
            ['h.0.mlp.c_fc.weight', tf.tensor2d(g2[k]!, [2, 2])],
            ['h.0.ln_1.weight', tf.tensor1d(g1[k]!)],
            ['wte', tf.tensor2d([ge[k]!])],
          ]),
          0.05,
        ),
      );
    }
    expect(opt.step).toBe(3);
    const close = (a: ArrayLike<number>, b: number[]): void => b.forEach((x, i) => expect(a[i]).toBeCloseTo(x, 5));
    close(await params.get('h.0.mlp.c_fc.weight')!.data(), refAdamW([1, -2, 0.5, 3], g2, 0.05, 0.1, true));
    close(await params.get('h.0.ln_1.weight')!.data(), refAdamW([1, -2], g1, 0.05, 0.1, false));
    close(await params.get('wte')!.data(), refAdamW([0.3, -0.1], ge, 0.05, 0.1, false));

    // State out and back in is exact.
    const st = await opt.getState();
    const opt2 = new AdamW(params, { weightDecay: 0.1, host });
    opt2.setState(st);
    const st2 = await opt2.getState();
    expect(st2.step).toBe(3);
    for (const name of params.keys()) {
      expect(st2.m.get(name)).toEqual(st.m.get(name));
      expect(st2.v.get(name)).toEqual(st.v.get(name));
    }
    expect(() => opt2.setState({ step: 1, m: new Map(), v: new Map() })).toThrow(/no m for parameter/);
    opt.dispose();
    opt2.dispose();
    for (const v of params.values()) v.dispose();
  });
});

describe('adamwUpdate', () => {
  it('one step by hand: the first step moves each value by lr against the sign of its gradient', () => {
    // t = 1: m = (1 - b1) g and v = (1 - b2) g^2, so m / bc1 = g and sqrt(v / bc2) = |g|: the step is lr sign(g).
    const p = Float32Array.from([1, -2, 0.5]);
    const [m, v] = [new Float32Array(3), new Float32Array(3)];
    adamwUpdate(p, [4, -0.5, 0], m, v, { lr: 0.1, beta1: 0.9, beta2: 0.95, eps: 0, decayRate: 0.1 * 0.5, t: 1, gradScale: 0.5 });
    expect(p[0]).toBeCloseTo(1 * 0.95 - 0.1, 6);
    expect(p[1]).toBeCloseTo(-2 * 0.95 + 0.1, 6);
    expect(Number.isNaN(p[2])).toBe(true); // 0 / 0 with eps 0: eps exists for this
    expect(m[0]).toBeCloseTo(0.1 * 2, 6); // the gradient scaled by 0.5 first
    expect(v[0]).toBeCloseTo(0.05 * 4, 6);
  });
});

describe('clipByGlobalNorm', () => {
  it('returns the pre-clip norm and scales to maxNorm', async () => {
    const before = tf.memory().numTensors;
    const [norm, a, b] = tf.tidy(() => {
      const r = clipByGlobalNorm(new Map<string, tf.Tensor>([['a', tf.tensor1d([3, 0])], ['b', tf.tensor1d([0, 4])]]), 1);
      return [r.norm, r.grads.get('a')!, r.grads.get('b')!];
    });
    expect((await norm!.data())[0]).toBeCloseTo(5, 5);
    expect(Array.from(await a!.data())[0]).toBeCloseTo(0.6, 5);
    expect(Array.from(await b!.data())[1]).toBeCloseTo(0.8, 5);
    tf.dispose([norm!, a!, b!]);
    const unclipped = tf.tidy(() => clipByGlobalNorm(new Map<string, tf.Tensor>([['a', tf.tensor1d([0.3, 0.4])]]), 1).grads.get('a')!);
    expect(Array.from(await unclipped.data())[0]).toBeCloseTo(0.3, 6);
    unclipped.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });
});
