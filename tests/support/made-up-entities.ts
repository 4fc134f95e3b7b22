// What the made-up knowledge bases (rdf-world.ts, wikidata-truthy.ts) share: entity i's facts and name come
// from a stateless hash of i, so any entity's lines can be written alone and in any order.

/** A number in [0, n) from i and a salt (a multiplicative hash: no state). */
export function pick(i: number, salt: number, n: number): number {
  return Number((BigInt(i + 1) * 2654435761n + BigInt(salt) * 40503n) % BigInt(n));
}

/**
 * An entity of slot `slot` chosen by i and salt among `size` entities, where entity j is in slot j % `slots`
 * (a world's kinds take turns).
 */
export function someInSlot(slot: number, slots: number, i: number, salt: number, size: number): number {
  const count = Math.floor((size - 1 - slot) / slots) + 1;
  return pick(i, salt, count) * slots + slot;
}

/** A pronounceable name for i: the digits of i + `offset` in base `syllables.length`, one syllable each, capitalised. */
export function syllableName(i: number, syllables: readonly string[], offset: number): string {
  let n = i + offset;
  let out = '';
  do {
    out += syllables[n % syllables.length];
    n = Math.floor(n / syllables.length);
  } while (n > 0);
  return out[0]!.toUpperCase() + out.slice(1);
}
