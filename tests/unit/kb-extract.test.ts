import { describe, expect, it } from 'vitest';
import { KbBuilder } from '../../main/lab/kb/builder';
import { NameIndex, surnameKey } from '../../main/lab/kb/context';
import { classifyDiscoverer, cleanAgentName } from '../../main/lab/kb/elements';
import { isoYear, nameKey, parseEventYear, parseFeet, parseLifeYears, parseYearRange, slug } from '../../main/lab/kb/text';
import { glossText, nativeType, parseWordNetData, partOfRelation } from '../../main/lab/kb/wordnet';

describe('text helpers', () => {
  it('nameKey matches spellings across sources', () => {
    expect(nameKey('Saint John’s')).toBe(nameKey("St. John's"));
    expect(nameKey('Zürich')).toBe(nameKey('zurich'));
    expect(nameKey('Port-Vila')).toBe(nameKey('Port Vila'));
    expect(nameKey('Henry_Cavendish')).toBe(nameKey('Henry Cavendish'));
  });

  it('slug and isoYear', () => {
    expect(slug('Jöns Jakob Berzelius')).toBe('jons-jakob-berzelius');
    expect(slug('...')).toBe('x');
    expect(isoYear(980)).toBe('0980');
    expect(isoYear(-384)).toBeUndefined();
  });

  it('reads life years in the forms WordNet uses', () => {
    expect(parseLifeYears('United States inventor (1847-1931)')).toMatchObject({ birth: 1847, death: 1931, bc: false });
    expect(parseLifeYears('English poet (1864-65)')).toMatchObject({ birth: 1864, death: 1865 });
    expect(parseLifeYears('Greek philosopher (384-322 BC)')).toMatchObject({ birth: 384, death: 322, bc: true });
    expect(parseLifeYears('a singer (born 1930)')).toMatchObject({ birth: 1930 });
    expect(parseLifeYears('a king (died 1010)')).toMatchObject({ death: 1010 });
    expect(parseLifeYears('no years here')).toBeUndefined();
  });

  it('reads event years, ranges and heights', () => {
    expect(parseEventYear('a battle in the Napoleonic campaigns (1809); Napoleon won')?.year).toBe(1809);
    expect(parseEventYear('a naval battle in 1805 off Spain')?.year).toBe(1805);
    expect(parseEventYear('the battle of Actium in 31 BC')).toBeUndefined();
    expect(parseYearRange('a series of wars; 1799-1815')).toMatchObject({ start: 1799, end: 1815 });
    expect(parseFeet('a mountain in the Alps (14,804 feet high)')?.feet).toBe(14804);
  });
});

// Three synsets in data.noun layout: a person (instance of chemist), the chemist class, a river that
// is part of Switzerland, plus the river class.
const SAMPLE = [
  '  1 This software and database is being provided to you, the LICENSEE, by Princeton University',
  '10908153 18 n 02 Cavendish 0 Henry_Cavendish 0 001 @i 09933282 n 0000 | British chemist and physicist who established that water is a compound (1731-1810)  ',
  '09933282 18 n 01 chemist 0 001 @ 10581890 n 0000 | a scientist who specializes in chemistry; "a chemist at work"  ',
  '09208961 17 n 03 Aare 0 Aar 0 Aare_River 0 002 @i 09434308 n 0000 #p 09054023 n 0000 | a river in north central Switzerland that runs northeast into the Rhine  ',
  '09434308 17 n 01 river 0 001 @ 09448361 n 0000 | a large natural stream of water (larger than a creek)  ',
].join('\n');

describe('WordNet extraction', () => {
  const wn = parseWordNetData(SAMPLE);

  it('parses words, pointers and gloss; skips the licence header', () => {
    expect(wn.size).toBe(4);
    const aare = wn.get('09208961')!;
    expect(aare.words).toEqual(['Aare', 'Aar', 'Aare_River']);
    expect(aare.pointers).toEqual([
      { symbol: '@i', offset: '09434308', pos: 'n' },
      { symbol: '#p', offset: '09054023', pos: 'n' },
    ]);
    expect(aare.gloss).toBe('a river in north central Switzerland that runs northeast into the Rhine');
    expect(glossText(wn.get('09933282')!.gloss)).toBe('a scientist who specializes in chemistry');
  });

  it('classifies instance synsets', () => {
    expect(nativeType(wn, wn.get('10908153')!)).toBe('person');
    expect(nativeType(wn, wn.get('09208961')!)).toBe('river');
    expect(nativeType(wn, wn.get('09933282')!)).toBeUndefined(); // a class, not a named entity
  });

  it('maps part-of pointers to relations by the types involved', () => {
    expect(partOfRelation('river', 'country')).toBe('flows_through');
    expect(partOfRelation('river', 'river')).toBe('tributary_of');
    expect(partOfRelation('river', 'water_body')).toBe('flows_into');
    expect(partOfRelation('mountain', 'mountain_range')).toBe('part_of');
    expect(partOfRelation('battle', 'war')).toBe('part_of');
    expect(partOfRelation('lake', 'country')).toBe('located_in');
    expect(partOfRelation('person', 'country')).toBeUndefined();
  });
});

describe('element discoverers', () => {
  it('tells people from organisations and eras', () => {
    expect(classifyDiscoverer('Henry Cavendish')).toBe('person');
    expect(classifyDiscoverer('Lawrence Berkeley National Laboratory')).toBe('organization');
    expect(classifyDiscoverer('RIKEN')).toBe('organization');
    expect(classifyDiscoverer('5000 BC')).toBe('none');
    expect(classifyDiscoverer('Ancient Egypt')).toBe('none');
    expect(classifyDiscoverer('unknown, before 2000 BCE')).toBe('none');
    expect(cleanAgentName('Thomas Thomson (chemist)')).toBe('Thomas Thomson');
  });

  it('surname keys meet across spellings', () => {
    expect(surnameKey('Jöns Jacob Berzelius')).toBe(surnameKey('Jons Jakob Berzelius'));
    expect(surnameKey('Carl Wilhelm Scheele')).toBe(surnameKey('Karl Wilhelm Scheele'));
    expect(surnameKey('Sir William Ramsay')).toBe(surnameKey('William Ramsay'));
    expect(surnameKey('Plato')).toBeUndefined();
  });
});

describe('KbBuilder and NameIndex', () => {
  const prov = (source: string) => ({ source, url: `kb://${source}/x` });

  it('merges repeated facts, keeps the first source and lists the others', () => {
    const b = new KbBuilder();
    b.addNode({ id: 'country:FRA', type: 'country', name: 'France', attrs: { population: { type: 'number', value: 1 } } }, prov('a'));
    b.addNode({ id: 'country:FRA', type: 'country', name: 'French Republic', attrs: { population: { type: 'number', value: 2 }, area_km2: { type: 'number', value: 3 } } }, prov('b'));
    b.addNode({ id: 'country:DEU', type: 'country', name: 'Germany' }, prov('a'));
    expect(b.addEdge('country:FRA', 'borders', 'country:DEU', { ...prov('a'), evidence: 'x' })).toBe(true);
    expect(b.addEdge('country:DEU', 'borders', 'country:FRA', { ...prov('b'), evidence: 'y' })).toBe(true); // symmetric: same fact
    expect(b.addEdge('country:FRA', 'borders', 'country:XXX', { ...prov('a'), evidence: 'z' })).toBe(false);
    const g = b.toGraph({});
    expect(g.nodes.map((n) => n.id)).toEqual(['country:DEU', 'country:FRA']);
    const fra = g.nodes[1]!;
    expect(fra.aliases).toEqual(['French Republic']);
    expect(fra.attrs).toEqual({ population: { type: 'number', value: 1 }, area_km2: { type: 'number', value: 3 } });
    expect(fra.meta).toEqual({ source: 'a', url: 'kb://a/x', also: [{ source: 'b', url: 'kb://b/x' }] });
    expect(g.edges).toHaveLength(1);
    expect(g.edges[0]).toMatchObject({ id: 'country:DEU>borders>country:FRA', meta: { source: 'a', evidence: 'x' } });
  });

  it('NameIndex ranks candidates and knows when a name is ambiguous', () => {
    const idx = new NameIndex();
    idx.add('Paris', 'city:small', 10);
    idx.add('Paris', 'city:big', 1000);
    idx.add('Lyon', 'city:lyon');
    expect(idx.best('paris')).toBe('city:big');
    expect(idx.unique('Paris')).toBeUndefined();
    expect(idx.unique('LYON')).toBe('city:lyon');
  });
});
