// The batch decoder's slot cache (model/slot-cache.ts): a decoding step's attention over each row's own slot,
// simd.wat's attnQuery against its twin in plain loops, and a hand-checked case.
import { describe, expect, it } from 'vitest';
import { resolveGPTConfig } from '../../main/lab/model/gpt';
import { SlotCache } from '../../main/lab/model/slot-cache';
import { createRng } from '../../main/lab/util/rng';

const CFG = { vocabSize: 61, blockSize: 40, nLayer: 2, nHead: 2, nEmbd: 32 }; // 16-wide heads: SIMD runs

describe('slot cache', () => {
  it('the first position attends to itself only: the output is its value', () => {
    const cache = new SlotCache(resolveGPTConfig({ ...CFG, smearKeys: false }));
    const slot = cache.alloc();
    const qkv = Float32Array.from({ length: 96 }, (_, i) => (i % 7) - 3);
    const y = new Float32Array(32);
    cache.step(0, { cache, slots: Int32Array.of(slot), positions: Int32Array.of(0) }, qkv, null, y);
    expect(Array.from(y)).toEqual(Array.from(qkv.subarray(64, 96)));
  });

  it.each([
    ['plain', {}],
    ['distance penalties, no smearing', { distanceBias: true, smearKeys: false }],
  ])('SIMD equals the plain loops over rows of different lengths in slots that grow (%s)', (_, options) => {
    const cfg = resolveGPTConfig({ ...CFG, ...options });
    const rng = createRng(3);
    const caches = [new SlotCache(cfg), new SlotCache(cfg, { simd: false })];
    const rows = 11; // more than the first 8 slots: the cache grows while rows hold keys
    const lens = Array.from({ length: rows }, (_, r) => 1 + ((r * 5) % 17));
    const Tp = Math.max(...lens);
    const kT = Float32Array.from({ length: rows * 2 * 16 * Tp }, () => rng.next() - 0.5);
    const v = Float32Array.from({ length: rows * 2 * Tp * 16 }, () => rng.next() - 0.5);
    const last = Float32Array.from({ length: rows * 32 }, () => rng.next() - 0.5);
    const slots = caches.map((c) => lens.map((len, r) => {
      const s = c.alloc();
      for (let l = 0; l < 2; l++) c.fill(l, s, r, len, Tp, kT, v, last);
      return s;
    }));
    const smear = cfg.smearKeys ? Float32Array.of(0.3, 0.8) : null;
    for (let step = 0; step < 4; step++) {
      const qkv = Float32Array.from({ length: rows * 96 }, () => rng.next() - 0.5);
      const out = caches.map((c, i) => {
        const y = new Float32Array(rows * 32);
        for (let l = 0; l < 2; l++) c.step(l, { cache: c, slots: Int32Array.from(slots[i]!), positions: Int32Array.from(lens, (n) => n + step) }, qkv, smear, y);
        return y;
      });
      out[0]!.forEach((x, i) => expect(x).toBeCloseTo(out[1]![i]!, 5));
    }
  });
});
