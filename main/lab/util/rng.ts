// Seeded randomness for everything that must be reproducible (graph expansion, sampling, synthesis,
// rollouts). mulberry32: tiny, fast, and its whole state is one 32-bit integer, so it checkpoints trivially.

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  shuffle<T>(items: T[]): T[];
  /** Index chosen with probability proportional to weights[i] (all >= 0, at least one > 0). */
  weighted(weights: readonly number[]): number;
  /** The current state, to save; `createRng(state)` continues the same sequence. */
  state(): number;
}

export function createRng(seed: number): Rng {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => {
    if (!(n > 0)) throw new RangeError(`rng.int needs n > 0, got ${n}`);
    return Math.floor(next() * n);
  };
  return {
    next,
    int,
    pick: (items) => {
      if (items.length === 0) throw new RangeError('rng.pick on an empty list');
      return items[int(items.length)]!;
    },
    shuffle: (items) => {
      for (let i = items.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [items[i], items[j]] = [items[j]!, items[i]!];
      }
      return items;
    },
    weighted: (weights) => {
      const total = weights.reduce((a, w) => a + w, 0);
      if (!(total > 0)) throw new RangeError('rng.weighted needs a positive total weight');
      let r = next() * total;
      for (let i = 0; i < weights.length; i++) {
        r -= weights[i]!;
        if (r < 0) return i;
      }
      return weights.length - 1;
    },
    state: () => s,
  };
}

/** A stable 32-bit seed from any string (FNV-1a), for deriving sub-seeds like `${rng}/${qaId}`. */
export function seedFrom(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
