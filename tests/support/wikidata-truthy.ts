// A made-up knowledge base in the shape of Wikidata's truthy N-Triples dump (`latest-truthy.nt`): `wd:Q…`
// entities, `wdt:P…` statements, labels and descriptions in several languages, aliases, external ids, dates
// as xsd:dateTime, quantities as xsd:decimal and coordinates as WKT points, as Wikidata writes them. Humans,
// cities, countries and companies, linked as Wikidata links them (P19, P27, P17, P131, P47, P36, P108, P159).
// Deterministic: entity i's lines depend on i and the size only. Used by bench/speed/kb-dump.ts --wikidata and tests/unit/kbsource-downstream.test.ts.
import { pick, someInSlot, syllableName } from './made-up-entities';

const WD = 'http://www.wikidata.org/entity/';
const WDT = 'http://www.wikidata.org/prop/direct/';
const LABEL = '<http://www.w3.org/2000/01/rdf-schema#label>';
const ALT = '<http://www.w3.org/2004/02/skos/core#altLabel>';
const DESC = '<http://schema.org/description>';
const XSD = 'http://www.w3.org/2001/XMLSchema#';

const KINDS = [
  { kind: 'human', q: 'Q5' },
  { kind: 'city', q: 'Q515' },
  { kind: 'human', q: 'Q5' },
  { kind: 'country', q: 'Q6256' },
  { kind: 'business', q: 'Q4830453' },
  { kind: 'human', q: 'Q5' },
] as const;
const OCCUPATIONS = ['Q82955', 'Q36180', 'Q33999', 'Q1028181', 'Q901', 'Q937857'];
const LANGS = ['en', 'de', 'fr', 'es'];
/** Entities are numbered from here, so their ids look like Wikidata's (Q1000000 on). */
const FIRST = 1_000_000;

export const wdIri = (i: number): string => `${WD}Q${FIRST + i}`;
const wd = (q: string): string => `<${WD}${q}>`;
const wdt = (p: string): string => `<${WDT}${p}>`;
const lit = (text: string, lang: string): string => `${JSON.stringify(text)}@${lang}`;

const kindOf = (i: number): number => i % KINDS.length;
/** An entity of kind slot `slot` chosen by i and salt (there are `size / 6` of each slot). */
const some = (slot: number, i: number, salt: number, size: number): number => someInSlot(slot, KINDS.length, i, salt, size);

const SYLLABLES = ['ka', 'lo', 'mi', 'ra', 'ten', 'sor', 'vel', 'an', 'dor', 'is', 'ul', 'bre', 'gim', 'nu'];
const nameOf = (i: number): string => syllableName(i, SYLLABLES, 11);

/** The dump's header, and the classes and units the entities use, with their labels. */
export function wikidataClassTriples(): string[] {
  const named: [string, string][] = [
    ['Q5', 'human'], ['Q515', 'city'], ['Q6256', 'country'], ['Q4830453', 'business'], ['Q712226', 'square kilometre'],
    ['Q82955', 'politician'], ['Q36180', 'writer'], ['Q33999', 'actor'], ['Q1028181', 'painter'], ['Q901', 'scientist'], ['Q937857', 'association football player'],
  ];
  // Wikidata's RDF dumps open with the dump's own description: its licence (CC0) and version.
  const dump = '<http://wikiba.se/ontology#Dump>';
  const header = [
    `${dump} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://schema.org/Dataset> .`,
    `${dump} <http://creativecommons.org/ns#license> <http://creativecommons.org/publicdomain/zero/1.0/> .`,
    `${dump} <http://schema.org/softwareVersion> "1.0.0" .`,
  ];
  return [...header, ...named.map(([q, label]) => `${wd(q)} ${LABEL} ${lit(label, 'en')} .`)];
}

/** Entity i's lines in a world of `size` entities (about 12 a line each on average). */
export function wikidataEntityTriples(i: number, size: number): string[] {
  const { kind, q } = KINDS[kindOf(i)]!;
  const me = `<${wdIri(i)}>`;
  const base = nameOf(i);
  const name = kind === 'human' ? `${base} ${nameOf(i * 7 + 3)}` : kind === 'business' ? `${base} Group` : base;
  const t: string[] = [`${me} ${wdt('P31')} ${wd(q)} .`];
  for (const lang of LANGS) t.push(`${me} ${LABEL} ${lit(lang === 'en' ? name : `${name} (${lang})`, lang)} .`);
  t.push(`${me} ${DESC} ${lit(`${kind} number ${i}`, 'en')} .`);
  if (i % 4 === 0) t.push(`${me} ${ALT} ${lit(`${base} ${i % 97}`, 'en')} .`);
  const rel = (p: string, slot: number, salt: number): void => {
    const j = some(slot, i, salt, size);
    if (j !== i && j < size) t.push(`${me} ${wdt(p)} <${wdIri(j)}> .`);
  };
  const year = 1700 + pick(i, 1, 320);
  const date = `${year}-${String(1 + pick(i, 2, 12)).padStart(2, '0')}-${String(1 + pick(i, 3, 28)).padStart(2, '0')}T00:00:00Z`;
  const quantity = (p: string, n: number): void => void t.push(`${me} ${wdt(p)} "+${n}"^^<${XSD}decimal> .`);
  switch (kind) {
    case 'human':
      t.push(`${me} ${wdt('P569')} "${date}"^^<${XSD}dateTime> .`, `${me} ${wdt('P214')} "${100000 + pick(i, 4, 9_000_000)}" .`);
      t.push(`${me} ${wdt('P106')} ${wd(OCCUPATIONS[pick(i, 5, OCCUPATIONS.length)]!)} .`);
      rel('P19', 1, 6);
      rel('P27', 3, 7);
      if (i % 3 === 0) rel('P108', 4, 8);
      break;
    case 'city':
      quantity('P1082', 1000 + pick(i, 4, 9_000_000));
      t.push(`${me} ${wdt('P2046')} "+${10 + pick(i, 9, 900)}.5"^^<${XSD}decimal> .`);
      t.push(`${me} ${wdt('P625')} "Point(${pick(i, 10, 360) - 180}.25 ${pick(i, 11, 180) - 90}.5)"^^<http://www.opengis.net/ont/geosparql#wktLiteral> .`);
      rel('P17', 3, 12);
      rel('P131', 1, 13);
      break;
    case 'country':
      quantity('P1082', 100_000 + pick(i, 4, 90_000_000));
      t.push(`${me} ${wdt('P571')} "${date}"^^<${XSD}dateTime> .`);
      rel('P36', 1, 14);
      rel('P47', 3, 15);
      rel('P47', 3, 16);
      break;
    case 'business':
      t.push(`${me} ${wdt('P571')} "${date}"^^<${XSD}dateTime> .`);
      quantity('P1128', 10 + pick(i, 17, 50_000));
      rel('P159', 1, 18);
      rel('P17', 3, 19);
      break;
  }
  return t;
}
