// Fast, stable, non-cryptographic 53-bit hashes for colour refinement. Pure arithmetic (no node:crypto),
// so colours are the same on every platform and in every process. Two 32-bit lanes mixed at the end
// (the cyrb53 construction) give a value that fits exactly in a JS number, so colours sort numerically.

const LANE_A = 0xdeadbeef;
const LANE_B = 0x41c6ce57;

function finish(h1: number, h2: number): number {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

// One multiply-xor round per lane (the primes of cyrb53); small enough that V8 inlines them.
const mixA = (h: number, word: number): number => Math.imul(h ^ word, 2654435761);
const mixB = (h: number, word: number): number => Math.imul(h ^ word, 1597334677);
/** The high 32-bit word of a non-negative integer below 2^53 (`>>> 0` keeps the low one). */
const highWord = (v: number): number => Math.floor(v / 4294967296) >>> 0;

/** 53-bit hash of a string (UTF-16 code units). */
export function hashString(text: string, seed = 0): number {
  let h1 = LANE_A ^ seed;
  let h2 = LANE_B ^ seed;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = mixA(h1, c);
    h2 = mixB(h2, c);
  }
  return finish(h1, h2);
}

/** 53-bit hash of a sequence of non-negative integers < 2^53 (e.g. other hashes), order-sensitive. */
export function hashNumbers(values: ArrayLike<number>, seed = 0, length = values.length): number {
  let h1 = LANE_A ^ seed;
  let h2 = LANE_B ^ seed;
  for (let i = 0; i < length; i++) {
    const v = values[i]!;
    // Feed both 32-bit halves, low word first.
    const lo = v >>> 0;
    const hi = highWord(v);
    h1 = mixA(mixA(h1, lo), hi);
    h2 = mixB(mixB(h2, lo), hi);
  }
  // The length goes in too, so [] and [0] differ.
  return finish(mixA(h1, length), h2);
}

/** hashNumbers([a, b]) without allocating: for the inner loops of colour refinement. */
export function hashPair(a: number, b: number): number {
  const a0 = a >>> 0;
  const a1 = highWord(a);
  const b0 = b >>> 0;
  const b1 = highWord(b);
  const h1 = mixA(mixA(mixA(mixA(LANE_A, a0), a1), b0), b1);
  const h2 = mixB(mixB(mixB(mixB(LANE_B, a0), a1), b0), b1);
  return finish(mixA(h1, 2), h2);
}

const labelCache = new Map<string, number>();

/** hashString for labels (types, relations), memoised: a graph has few distinct labels. */
export function hashLabel(label: string): number {
  let h = labelCache.get(label);
  if (h === undefined) {
    h = hashString(label);
    if (labelCache.size < 100_000) labelCache.set(label, h);
  }
  return h;
}
