import { describe, expect, it } from 'vitest';
import { hashNumbers, hashPair, hashString } from '../../main/lab/graph/hash';

describe('hashes for colour refinement', () => {
  it('are pinned: a colour must not change between versions (saved WL hashes compare across runs)', () => {
    expect(hashPair(123, 2 ** 40 + 5)).toBe(4485554193088870);
  });

  it('hashPair is hashNumbers of the pair, both 32-bit words of each value counted', () => {
    for (const [a, b] of [[0, 0], [1, 2], [2 ** 53 - 1, 7], [4294967295, 4294967296]] as const) {
      expect(hashPair(a, b)).toBe(hashNumbers([a, b]));
    }
    expect(hashPair(1, 2 ** 32)).not.toBe(hashPair(1, 0));
  });

  it('fit in 53 bits, depend on order and length, and on the seed', () => {
    expect(Number.isSafeInteger(hashString('Paris'))).toBe(true);
    expect(hashNumbers([1, 2])).not.toBe(hashNumbers([2, 1]));
    expect(hashNumbers([])).not.toBe(hashNumbers([0]));
    expect(hashString('a', 1)).not.toBe(hashString('a'));
  });
});
