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

/** 53-bit hash of a string (UTF-16 code units). */
export function hashString(text: string, seed = 0): number {
  let h1 = LANE_A ^ seed;
  let h2 = LANE_B ^ seed;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  return finish(h1, h2);
}

/** 53-bit hash of a sequence of non-negative integers < 2^53 (e.g. other hashes), order-sensitive. */
export function hashNumbers(values: ArrayLike<number>, seed = 0, length = values.length): number {
  let h1 = LANE_A ^ seed;
  let h2 = LANE_B ^ seed;
  for (let i = 0; i < length; i++) {
    const v = values[i]!;
    // Feed both 32-bit halves: `>>> 0` keeps the low word, the division the high one.
    const lo = v >>> 0;
    const hi = Math.floor(v / 4294967296) >>> 0;
    h1 = Math.imul(h1 ^ lo, 2654435761);
    h2 = Math.imul(h2 ^ lo, 1597334677);
    h1 = Math.imul(h1 ^ hi, 2654435761);
    h2 = Math.imul(h2 ^ hi, 1597334677);
  }
  // The length goes in too, so [] and [0] differ.
  h1 = Math.imul(h1 ^ length, 2654435761);
  return finish(h1, h2);
}

/** hashNumbers([a, b]) without allocating: for the inner loops of colour refinement. */
export function hashPair(a: number, b: number): number {
  let h1 = LANE_A;
  let h2 = LANE_B;
  const w0 = a >>> 0;
  const w1 = Math.floor(a / 4294967296) >>> 0;
  const w2 = b >>> 0;
  const w3 = Math.floor(b / 4294967296) >>> 0;
  h1 = Math.imul(h1 ^ w0, 2654435761);
  h2 = Math.imul(h2 ^ w0, 1597334677);
  h1 = Math.imul(h1 ^ w1, 2654435761);
  h2 = Math.imul(h2 ^ w1, 1597334677);
  h1 = Math.imul(h1 ^ w2, 2654435761);
  h2 = Math.imul(h2 ^ w2, 1597334677);
  h1 = Math.imul(h1 ^ w3, 2654435761);
  h2 = Math.imul(h2 ^ w3, 1597334677);
  h1 = Math.imul(h1 ^ 2, 2654435761);
  return finish(h1, h2);
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
