// A made-up world as N-Triples in a vocabulary of its own (http://example.org/): countries, cities, people,
// rivers and companies with labels, aliases, types (classes with labels), numbers, dates and relations.
// The tests load it into the embedded store and into a real SPARQL server; bench/speed/kb-dump.ts writes millions
// of triples of it. Deterministic: entity i's facts depend on i and the size only.
import { pick, someInSlot, syllableName } from './made-up-entities';

export const EX = 'http://example.org/';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const LABEL = 'http://www.w3.org/2000/01/rdf-schema#label';
const ALT = 'http://www.w3.org/2004/02/skos/core#altLabel';
const XSD = 'http://www.w3.org/2001/XMLSchema#';

const KINDS = ['Country', 'City', 'Person', 'River', 'Company'] as const;
type Kind = (typeof KINDS)[number];

const iri = (local: string): string => `<${EX}${local}>`;
const lit = (text: string, lang = 'en'): string => `${JSON.stringify(text)}@${lang}`;
const typed = (value: string | number, type: string): string => `"${value}"^^<${XSD}${type}>`;

const kindOf = (i: number): Kind => KINDS[i % KINDS.length]!;
const some = (kind: Kind, i: number, salt: number, size: number): number => someInSlot(KINDS.indexOf(kind), KINDS.length, i, salt, size);

const SYLLABLES = ['ka', 'lo', 'mi', 'ra', 'ten', 'sor', 'vel', 'an', 'dor', 'is', 'ul', 'bre'];
const nameOf = (i: number): string => syllableName(i, SYLLABLES, 7);

/** The class declarations: each kind a class with a label. */
export function classTriples(): string[] {
  return KINDS.map((k) => `${iri(k)} <${LABEL}> ${lit(k.toLowerCase())} .`);
}

/** The N-Triples lines of entity `i` in a world of `size` entities. */
export function entityTriples(i: number, size: number): string[] {
  const kind = kindOf(i);
  const me = iri(`e${i}`);
  const name = `${nameOf(i)} ${kind === 'Person' ? nameOf(i * 3 + 1) : kind.toLowerCase()}`;
  const t = [`${me} <${RDF_TYPE}> ${iri(kind)} .`, `${me} <${LABEL}> ${lit(name)} .`, `${me} <${LABEL}> ${lit(`${name} (fr)`, 'fr')} .`];
  if (i % 3 === 0) t.push(`${me} <${ALT}> ${lit(`${nameOf(i)} ${i}`)} .`);
  const rel = (p: string, target: number): void => {
    if (target !== i && target < size) t.push(`${me} ${iri(p)} ${iri(`e${target}`)} .`);
  };
  const year = 1800 + pick(i, 1, 200);
  const day = `${year}-${String(1 + pick(i, 2, 12)).padStart(2, '0')}-${String(1 + pick(i, 3, 28)).padStart(2, '0')}`;
  switch (kind) {
    case 'Country':
      t.push(`${me} ${iri('population')} ${typed(100_000 + pick(i, 4, 90_000_000), 'integer')} .`, `${me} ${iri('founded')} ${typed(day, 'date')} .`);
      rel('borders', some('Country', i, 5, size));
      rel('capital', some('City', i, 6, size));
      break;
    case 'City':
      t.push(`${me} ${iri('population')} ${typed(1000 + pick(i, 4, 9_000_000), 'integer')} .`, `${me} ${iri('area')} ${typed(`${10 + pick(i, 7, 900)}.5`, 'decimal')} .`);
      rel('locatedIn', some('Country', i, 8, size));
      break;
    case 'Person':
      t.push(`${me} ${iri('birthDate')} ${typed(day, 'date')} .`);
      rel('bornIn', some('City', i, 9, size));
      rel('citizenOf', some('Country', i, 10, size));
      if (i % 2 === 0) rel('worksFor', some('Company', i, 11, size));
      break;
    case 'River':
      t.push(`${me} ${iri('length')} ${typed(50 + pick(i, 12, 4000), 'integer')} .`);
      rel('flowsThrough', some('Country', i, 13, size));
      rel('flowsThrough', some('Country', i, 14, size));
      break;
    case 'Company':
      t.push(`${me} ${iri('founded')} ${typed(year, 'gYear')} .`, `${me} ${iri('motto')} ${JSON.stringify(`Always ${nameOf(i * 5)}`)} .`);
      rel('headquarters', some('City', i, 15, size));
      break;
  }
  return t;
}

/** The whole world as one N-Triples text. */
export function worldNTriples(size: number): string {
  const lines = classTriples();
  for (let i = 0; i < size; i++) lines.push(...entityTriples(i, size));
  return lines.join('\n') + '\n';
}

/** The same world in Turtle, with prefixes (the parser is exercised, not only the line reader). */
export function worldTurtle(size: number): string {
  const head = `@prefix ex: <${EX}> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n`;
  return head + worldNTriples(size).replaceAll(`<${EX}`, 'ex:').replace(/ex:([A-Za-z0-9]+)>/g, 'ex:$1').replaceAll(`<${LABEL}>`, 'rdfs:label');
}
