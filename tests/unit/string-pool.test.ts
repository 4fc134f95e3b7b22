import { describe, expect, it } from 'vitest';
import { StringPool } from '../../main/lab/kbsource/string-pool';

describe('StringPool', () => {
  it('gives each distinct string one id, in the order first added, and the string back', () => {
    const pool = new StringPool();
    expect(pool.intern('http://example.org/a')).toBe(0);
    expect(pool.intern('b')).toBe(1);
    expect(pool.intern('http://example.org/a')).toBe(0);
    expect(pool.intern('')).toBe(2);
    expect(pool.size).toBe(3);
    expect([pool.get(0), pool.get(1), pool.get(2)]).toEqual(['http://example.org/a', 'b', '']);
    expect(pool.find('b')).toBe(1);
    expect(pool.find('http://example.org/')).toBeUndefined();
    expect(() => pool.get(3)).toThrow(RangeError);
  });

  it('keeps non-ASCII text whole (UTF-8 of 2, 3 and 4 bytes) and tells apart strings with equal UTF-16 lengths', () => {
    const pool = new StringPool();
    const words = ['Zürich', 'Zurich', '東京', '°C', 'km²', '𝔸 emoji 😀', 'Zürich\u0001@de'];
    const ids = words.map((w) => pool.intern(w));
    expect(ids).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(ids.map((id) => pool.get(id))).toEqual(words);
    expect(words.map((w) => pool.find(w))).toEqual(ids);
  });

  it('grows its bytes, offsets and table past their first sizes without losing a string', () => {
    const pool = new StringPool();
    const long = 'x'.repeat(5000) + 'é';
    const n = 5000;
    for (let i = 0; i < n; i++) expect(pool.intern(`http://www.wikidata.org/entity/Q${i}`)).toBe(i);
    expect(pool.intern(long)).toBe(n);
    for (let i = 0; i < n; i += 997) {
      expect(pool.find(`http://www.wikidata.org/entity/Q${i}`)).toBe(i);
      expect(pool.get(i)).toBe(`http://www.wikidata.org/entity/Q${i}`);
    }
    expect(pool.get(n)).toBe(long);
    expect(pool.intern(`http://www.wikidata.org/entity/Q${n - 1}`)).toBe(n - 1);
    expect(pool.size).toBe(n + 1);
    // Trimmed once loading is done, it still finds, gives back and adds strings.
    pool.trim();
    expect(pool.find('http://www.wikidata.org/entity/Q42')).toBe(42);
    expect(pool.get(n)).toBe(long);
    expect(pool.intern('après')).toBe(n + 1);
    expect(pool.get(n + 1)).toBe('après');
    const empty = new StringPool();
    empty.trim();
    expect(empty.intern('a')).toBe(0);
    expect(empty.get(0)).toBe('a');
  });
});
