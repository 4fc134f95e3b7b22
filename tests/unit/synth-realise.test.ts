// The realiser and the numbers it writes (issue 20): hand-checked wordings of numbers (UTC offsets, populations,
// years and decades, areas, coordinates), clause reduction into noun phrases, the tautology, the "that" limit,
// and the style figures of bench/research/question-style.ts.
import { describe, expect, it } from 'vitest';
import { numberClause } from '../../main/lab/synth/lexicon';
import { amount, degreesText, plainNumber, utcText, type NumberStyle } from '../../main/lab/synth/numbers';
import { period } from '../../main/lab/synth/obfuscate';
import { demonym, nounPhrase, participle, reduceClause } from '../../main/lab/synth/realise';
import { renderQuestion, type REntity } from '../../main/lab/synth/render';
import { maxThatChain, overPreciseNumbers, scientificNumbers, significantDigits, styleReport, tautologies } from '../../main/lab/synth/style';
import { createRng, type Rng } from '../../main/lab/util/rng';

/** An rng whose every draw is 0.5: the ranges below are worked out by hand from it. */
const half: Rng = { next: () => 0.5, int: (n) => Math.floor(n / 2), pick: (xs) => xs[Math.floor(xs.length / 2)]!, shuffle: (xs) => xs, weighted: () => 0, state: () => 0 };
const amt = (value: number, unit: string | undefined, style: NumberStyle, attr?: string) => amount(value, unit, style, half, Infinity, attr)!;

describe('numbers in their usual form (hand-checked with every draw = 0.5)', () => {
  it('UTC offsets read in hours, on whole hours, in the knowledge base\'s own form', () => {
    expect(utcText(-300)).toBe('UTC-05:00');
    expect(utcText(330)).toBe('UTC+05:30');
    expect(utcText(0)).toBe('UTC+00:00');
    // -300 min: width 1.0 x 300 -> [-450, -150], out to whole hours -> [-480, -120]
    const a = amt(-300, 'min', 'between', 'utc_offset_minutes');
    expect(a.text).toBe('between UTC-08:00 and UTC-02:00');
    expect(a.filter).toEqual({ op: 'between', value: [-480, -120] });
    // 0 min: no magnitude of its own, so one hour is the grid: [-30, 30] -> [-60, 60]; no "7e-11 minutes"
    const zero = amt(0, 'min', 'between', 'utc_offset_minutes');
    expect(zero.text).toBe('between UTC-01:00 and UTC+01:00');
    expect(zero.filter).toEqual({ op: 'between', value: [-60, 60] });
    // +60 min, "lt": 60 + 0.5 x 60 = 90 -> next whole hour 120
    const lt = amt(60, 'min', 'lt', 'utc_offset_minutes');
    expect(lt.text).toBe('behind UTC+02:00');
    expect(numberClause('utc_offset_minutes', lt)).toBe('that is behind UTC+02:00');
  });

  it('populations are rounded to two significant digits with grouping or a scale word', () => {
    // 1,234,567: [617,283.5, 1,851,850.5] on a 100,000 grid -> [600,000, 1,900,000]
    const a = amt(1_234_567, 'people', 'between', 'population');
    expect(a.text).toBe('between 0.6 and 1.9 million people');
    expect(a.filter).toEqual({ op: 'between', value: [600_000, 1_900_000] });
    expect(numberClause('population', a)).toBe('with between 0.6 and 1.9 million inhabitants');
    // 110,500, "gt": 110,500 - 55,250 = 55,250 -> down to the 10,000 grid: 50,000
    const gt = amt(110_500, 'people', 'gt', 'population');
    expect(gt.text).toBe('more than 50,000 people');
    expect(numberClause('population', gt)).toBe('with more than 50,000 inhabitants');
    expect(plainNumber(290_000)).toBe('290,000');
    expect(plainNumber(2_300_000)).toBe('2.3');
  });

  it('areas and other measures: "with an area of between 10,000 and 32,000 square kilometres"', () => {
    // 21,040: [10,520, 31,560] on a 1,000 grid -> [10,000, 32,000]
    const a = amt(21_040, 'km2', 'between', 'area_km2');
    expect(a.text).toBe('between 10,000 and 32,000 square kilometres');
    expect(numberClause('area_km2', a)).toBe('with an area of between 10,000 and 32,000 square kilometres');
    // 56 billion, "lt": 56 x 1.5 = 84 billion, already on the 1-billion grid
    expect(numberClause('gdp_usd', amt(5.6e10, 'USD', 'lt', 'gdp_usd'))).toBe('with a GDP of less than 84 billion US dollars');
  });

  it('coordinates carry a hemisphere and stay on the globe', () => {
    expect(degreesText(-35, 'latitude')).toBe('35°S');
    expect(degreesText(-110, 'longitude')).toBe('110°W');
    // 12.3, "lt": 12.3 + 6.15 = 18.45 -> up to the grid of 1: 19
    expect(amt(12.3, 'deg', 'lt', 'latitude').text).toBe('south of 19°N');
    expect(numberClause('latitude', amt(12.3, 'deg', 'lt', 'latitude'))).toBe('that lies south of 19°N');
    const rng = createRng(3);
    for (let i = 0; i < 200; i++) {
      const a = amount(170 + rng.next() * 9, 'deg', 'between', rng, Infinity, 'longitude');
      if (a?.filter.op === 'between') expect(a.filter.value[1]).toBeLessThanOrEqual(180);
    }
  });

  it('years and decades: "in the early 1790s", "in the mid-1790s", "in the late 1790s"', () => {
    expect(period(1792, 'decade_part', half)).toMatchObject({ text: 'in the early 1790s', filter: { value: [1790, 1793] } });
    expect(period(1795, 'decade_part', half)).toMatchObject({ text: 'in the mid-1790s', filter: { value: [1794, 1796] } });
    expect(period(1798, 'decade_part', half)).toMatchObject({ text: 'in the late 1790s' });
    expect(period(1795, 'decade', half)).toMatchObject({ text: 'in the 1790s' });
    expect(period(1795, 'range', half)!.text).toMatch(/^between \d{4} and \d{4}$/);
  });

  it('never scientific notation, never more than 3 significant digits, on any value', () => {
    const rng = createRng(11);
    const cases: [number, string | undefined, string | undefined][] = [
      [0, 'min', 'utc_offset_minutes'], [0, undefined, undefined], [1e-9, undefined, undefined], [123_456_789, 'people', 'population'],
      [0.000123, 'g', 'mass'], [98.7654, '%', 'literacy_percent'], [-35.2, 'deg', 'latitude'], [7.3e12, 'USD', 'gdp_usd'],
    ];
    for (const [value, unit, attr] of cases) {
      for (const style of ['between', 'lt', 'gt'] as const) {
        for (let i = 0; i < 20; i++) {
          const a = amount(value, unit, style, rng, Infinity, attr);
          if (!a) continue;
          expect(scientificNumbers(a.text), a.text).toEqual([]);
          expect(overPreciseNumbers(a.text), a.text).toEqual([]);
        }
      }
    }
  });
});

describe('the realiser', () => {
  it('reduces clauses the way English does', () => {
    expect(participle('borders')).toBe('bordering');
    expect(participle('uses')).toBe('using');
    expect(participle('lies')).toBe('lying');
    expect(participle('crosses')).toBe('crossing');
    expect(participle('serves')).toBe('serving');
    expect(demonym('South America')).toBe('South American');
    expect(demonym('Northern Africa')).toBe('North African');
    expect(demonym('Australia and New Zealand')).toBeNull();
    expect(reduceClause('that is located in Peru', 'city')).toMatchObject({ kind: 'post', text: 'in Peru', pred: 'is located in Peru' });
    expect(reduceClause('that was founded in the 1990s', 'city')).toMatchObject({ kind: 'post', text: 'founded in the 1990s' });
    expect(reduceClause('that has no scheduled service', 'airport')).toMatchObject({ kind: 'post', text: 'without scheduled service' });
    expect(reduceClause('that is known by a name beginning with "Li"', 'city')).toMatchObject({ kind: 'rel', text: 'whose name begins with "Li"' });
    // the pronoun is the object here: no predicate can be made of it
    expect(reduceClause('that Peru borders', 'country')).toEqual({ kind: 'rel', text: 'that Peru borders' });
  });

  it('builds noun phrases with adjectives first: "a coastal South American country bordering Peru"', () => {
    expect(nounPhrase('a', 'country', ['that is not landlocked', 'that lies in South America', 'that borders Peru']).text).toBe('a coastal South American country bordering Peru');
    expect(nounPhrase('a', 'country', ['that is landlocked']).text).toBe('a landlocked country');
    expect(nounPhrase('a', 'airport', ['whose airport size is "medium"']).text).toBe('a medium-sized airport');
    expect(nounPhrase('a', 'person', ['that died before 1961', 'that is a national of Peru']).text).toBe('a person who died before 1961 and who is a national of Peru');
  });

  it('never writes "an X that is an X of": the noun is said once', () => {
    expect(nounPhrase('an', 'occupation', ['that is an occupation of Benjamin Jowett']).text).toBe('an occupation of Benjamin Jowett');
    expect(nounPhrase('a', 'language', ['that is an official language of Peru', 'that is an official language of Chile']).text).toBe('an official language of both Peru and Chile');
    // through the whole renderer: a star of two people sharing an occupation, the occupation asked for
    const entities: REntity[] = [
      { id: 'o', type: 'occupation', clauses: [], remarks: [] },
      { id: 'p1', type: 'person', name: 'Benjamin Jowett', clauses: [], remarks: [] },
      { id: 'p2', type: 'person', clauses: ['that died before 1900'], remarks: [] },
    ];
    const edges = [{ s: 'p1', o: 'o', rel: 'has_occupation' }, { s: 'p2', o: 'o', rel: 'has_occupation' }];
    for (let seed = 1; seed <= 20; seed++) {
      const q = renderQuestion('star', entities, edges, 'o', createRng(seed));
      expect(tautologies(q), q).toEqual([]);
      expect(q).toContain('Benjamin Jowett');
    }
  });

  it('keeps at most two "that" clauses on a noun; the rest are said in a sentence of their own', () => {
    const clauses = ['that is the capital of Peru', 'that is a member of Mercosur', 'that is a tributary of the Amazon', 'that became independent after 1800'];
    const np = nounPhrase('a', 'thing', clauses);
    expect((np.text.match(/\bthat\b/g) ?? []).length).toBe(2);
    expect(np.overflow).toEqual(['that is a tributary of the Amazon', 'that became independent after 1800']);
    const q = renderQuestion('path', [{ id: 'x', type: 'thing', clauses, remarks: [] }], [], 'x', createRng(1));
    expect(maxThatChain(q)).toBeLessThanOrEqual(2);
    expect(q).toContain('is a tributary of the Amazon');
  });
});

describe('style figures (bench/research/question-style.ts)', () => {
  it('counts what the issue names', () => {
    expect(significantDigits('290,000')).toBe(2);
    expect(significantDigits('0.0042')).toBe(2);
    expect(significantDigits('12.50')).toBe(4);
    expect(scientificNumbers('a time zone whose UTC offset is between -7e-11 and 1.5e-10 minutes')).toEqual(['-7e-11', '1.5e-10']);
    expect(overPreciseNumbers('founded in 1993, in the 1990s, at UTC+05:30, with 1,234,567 people or 12.34 km named "A1234"')).toEqual(['1,234,567', '12.34']);
    expect(tautologies('There is an occupation that is an occupation of Benjamin Jowett.')).toHaveLength(1);
    expect(tautologies('Which currency is a currency of the country?')).toHaveLength(1);
    expect(tautologies('There is an occupation of Benjamin Jowett.')).toEqual([]);
    const r = styleReport([
      { id: 'q1', question: 'Which city in Peru was founded in the 1990s?', answer: 'Lima', aliases: [] },
      { id: 'q2', question: 'Which city that is in Lima, that is big and that is old is it?', answer: 'Lima', aliases: [] },
    ]);
    expect(r).toMatchObject({ questions: 2, maxWords: 15, thatChainsOver2: 1, leaks: 1, tautologies: 0 });
    expect(r.meanWords).toBeCloseTo((9 + 15) / 2);
  });
});

describe('years read as years (issue 45, part 2, point 9)', () => {
  it('"between 1928 and 1930", "before" and "after", never "1,928"; other counts keep their separators', () => {
    for (let seed = 0; seed < 40; seed++) {
      const rng = createRng(seed);
      const a = amount(1929, undefined, 'between', rng, 0.01, 'born');
      if (a) expect(a.text).toMatch(/^between \d{4} and \d{4}$/);
    }
    expect(amt(1929, undefined, 'between', 'born').text).not.toContain(',');
    expect(amt(1929, undefined, 'lt', 'year_founded').text).toMatch(/^before \d{4}$/);
    expect(amt(1929, undefined, 'gt', 'inception').text).toMatch(/^after \d{3,4}$/);
    expect(amt(1929, undefined, 'between', 'population').text).toContain(',');
  });
});
