// English phrasing for node types, relations and attributes. Generic over any snake_case label
// (`relation_name` -> "relation name"), with nicer wording for relations and attributes the bundled
// knowledge base is known to use. Pure functions: the templates and obfuscations build on these.

import { ownValue } from '../util/own';
import type { Amount } from './numbers';

export function words(label: string): string {
  return label.replace(/_+/g, ' ').trim();
}

/** "a" or "an" before a word (by its first letter; good enough for type nouns and attribute names). */
export function article(word: string): string {
  return /^[aeiou]/i.test(word) && !/^(uni|eu|one|use)/i.test(word) ? 'an' : 'a';
}

export function withArticle(phrase: string): string {
  return `${article(phrase)} ${phrase}`;
}

const TYPE_NOUNS: Record<string, string> = {
  element: 'chemical element',
  chemical_element: 'chemical element',
  admin_region: 'administrative region',
  subregion: 'world subregion',
  water_body: 'body of water',
};

/** Attribute names as they read in prose: unit suffixes dropped, a few well-known names spelled out. */
const ATTR_WORDS: Record<string, string> = {
  gdp_usd: 'GDP',
  gdp: 'GDP',
  literacy_percent: 'literacy rate',
  utc_offset_minutes: 'UTC offset',
  area_km2: 'area',
  elevation_m: 'elevation',
  length_km: 'length',
  member_count: 'number of members',
};
const UNIT_SUFFIX = /_(km2|km|m|usd|percent|pct|minutes|min|kg|g|deg|ft)$/;

export function attrWords(attr: string): string {
  return ownValue(ATTR_WORDS, attr) ?? words(attr.replace(UNIT_SUFFIX, ''));
}

export function typeNoun(type: string): string {
  return ownValue(TYPE_NOUNS, type) ?? words(type);
}

export function capitalise(text: string): string {
  return text.length ? text[0]!.toUpperCase() + text.slice(1) : text;
}

/** How one relation reads in a sentence and as a relative clause on either end. */
export interface RelPhrase {
  /** "S is located in O" */
  sentence(s: string, o: string): string;
  /** relative clause about the subject: "that is located in O" */
  onSubject(o: string): string;
  /** relative clause about the object: "where S is located" / "that S is located in" */
  onObject(s: string): string;
}

const PREPOSITIONS = new Set(['of', 'in', 'by', 'at', 'to', 'from', 'with', 'on', 'for', 'into', 'near', 'through', 'as', 'under', 'after']);
const VERBS_S = new Set([
  'borders', 'contains', 'includes', 'flows', 'serves', 'uses', 'speaks', 'hosts', 'owns', 'connects', 'crosses',
  'drains', 'shares', 'spans', 'operates', 'follows', 'precedes', 'replaces', 'neighbours', 'neighbors', 'joins',
  'lies', 'rises', 'runs', 'empties', 'originates', 'discharges', 'belongs', 'trades', 'administers', 'governs',
]);
const PARTICIPLES = new Set(['born', 'made', 'known', 'built', 'written', 'found', 'held', 'spoken', 'drawn', 'given', 'run']);

/** Does a noun phrase already say the noun ("a time zone that …", "the second time zone")? */
function saysNoun(np: string, noun: string): boolean {
  return new RegExp(`^(a|an|another|the|a certain)( \\w+)? ${noun}\\b`, 'i').test(np);
}

/** Is this noun phrase a description ("a category …", "the category") rather than a name? */
const isDescribed = (np: string): boolean => /^(a|an|another|the) /.test(np);

function nounRel(noun: string): RelPhrase {
  return {
    sentence: (s, o) => (saysNoun(o, noun) ? `${s} has ${o}` : `${s} has ${o} as ${withArticle(noun)}`),
    onSubject: (o) => (saysNoun(o, noun) ? `that has ${o}` : `that has ${o} as ${withArticle(noun)}`),
    onObject: (s) => `that is ${withArticle(noun)} of ${s}`,
  };
}

function copulaRel(pred: string, passiveWhere = false): RelPhrase {
  return {
    sentence: (s, o) => `${s} is ${pred} ${o}`,
    onSubject: (o) => `that is ${pred} ${o}`,
    onObject: (s) => (passiveWhere ? `where ${s} is ${pred.replace(/ in$/, '')}` : `that ${s} is ${pred}`),
  };
}

function verbRel(verb: string): RelPhrase {
  return {
    sentence: (s, o) => `${s} ${verb} ${o}`,
    onSubject: (o) => `that ${verb} ${o}`,
    onObject: (s) => `that ${s} ${verb}`,
  };
}

/** A relation whose object-side clause is a passive ("served by S") or a "with S as …" phrase. */
function withObject(base: RelPhrase, onObject: (s: string) => string): RelPhrase {
  return { ...base, onObject };
}

const KNOWN_RELS: Record<string, RelPhrase> = {
  // "a country containing Lima", not "a country where Lima is located" (which then "is located in …")
  located_in: withObject(copulaRel('located in'), (s) => `containing ${s}`),
  in_country: withObject(copulaRel('located in'), (s) => `containing ${s}`),
  country: withObject(copulaRel('located in'), (s) => `containing ${s}`),
  in_region: withObject(copulaRel('located in'), (s) => `containing ${s}`),
  in_continent: copulaRel('located on the continent of'),
  continent: copulaRel('located on the continent of'),
  part_of: withObject(copulaRel('part of'), (s) => `that includes ${s}`),
  member_of: withObject(copulaRel('a member of'), (s) => `with ${s} as a member`),
  capital_of: {
    sentence: (s, o) => `${s} is the capital of ${o}`,
    onSubject: (o) => `that is the capital of ${o}`,
    onObject: (s) => `whose capital is ${s}`,
  },
  capital: {
    sentence: (s, o) => `the capital of ${s} is ${o}`,
    onSubject: (o) => `whose capital is ${o}`,
    onObject: (s) => `that is the capital of ${s}`,
  },
  has_capital: {
    sentence: (s, o) => `the capital of ${s} is ${o}`,
    onSubject: (o) => `whose capital is ${o}`,
    onObject: (s) => `that is the capital of ${s}`,
  },
  part_of_region: withObject(copulaRel('part of'), (s) => `that includes ${s}`),
  member_of_family: withObject(copulaRel('a member of'), (s) => `with ${s} as a member`),
  subfamily_of: withObject(copulaRel('a subfamily of'), (s) => `with ${s} as a subfamily`),
  tributary_of: withObject(copulaRel('a tributary of'), (s) => `with ${s} as a tributary`),
  written_in: withObject(copulaRel('written in'), (s) => `used to write ${s}`),
  flows_into: verbRel('flows into'),
  has_time_zone: nounRel('time zone'),
  has_occupation: nounRel('occupation'),
  used_currency: {
    sentence: (s, o) => (saysNoun(o, 'currency') ? `${s} used ${o}` : `${s} used ${o} as a currency`),
    onSubject: (o) => (saysNoun(o, 'currency') ? `that used ${o}` : `that used ${o} as a currency`),
    onObject: (s) => `used by ${s}`,
  },
  borders: withObject(verbRel('borders'), (s) => `bordering ${s}`), // a border is mutual
  shares_border_with: verbRel('shares a border with'),
  born_in: {
    sentence: (s, o) => `${s} was born in ${o}`,
    onSubject: (o) => `who was born in ${o}`,
    onObject: (s) => `where ${s} was born`,
  },
  died_in: {
    sentence: (s, o) => `${s} died in ${o}`,
    onSubject: (o) => `who died in ${o}`,
    onObject: (s) => `where ${s} died`,
  },
  citizen_of: copulaRel('a citizen of'),
  nationality: withObject(copulaRel('a national of'), (s) => `whose nationals include ${s}`),
  discovered_by: {
    sentence: (s, o) => `${s} was discovered by ${o}`,
    onSubject: (o) => `that was discovered by ${o}`,
    onObject: (s) => `who discovered ${s}`,
  },
  named_after: {
    sentence: (s, o) => `${s} is named after ${o}`,
    onSubject: (o) => `that is named after ${o}`,
    onObject: (s) => `after which ${s} is named`,
  },
  serves: withObject(verbRel('serves'), (s) => `served by ${s}`),
  serves_city: withObject(verbRel('serves'), (s) => `served by ${s}`),
  flows_through: withObject(verbRel('flows through'), (s) => `crossed by ${s}`),
  in_category: {
    // a category's name is a kind: "X is an alkali metal"; a described category: "X belongs to a category …"
    sentence: (s, o) => (isDescribed(o) ? `${s} belongs to ${o}` : `${s} is ${withArticle(o)}`),
    onSubject: (o) => (isDescribed(o) ? `that belongs to ${o}` : `that is ${withArticle(o)}`),
    onObject: (s) => `that includes ${s}`,
  },
  named_by: withObject(copulaRel('named by'), (s) => `who named ${s}`),
  mouth: {
    sentence: (s, o) => `${s} flows into ${o}`,
    onSubject: (o) => `that flows into ${o}`,
    onObject: (s) => `into which ${s} flows`,
  },
  official_language: nounRel('official language'),
  language: nounRel('language'),
  languages: nounRel('language'),
  spoken_in: copulaRel('spoken in', true),
  currency: nounRel('currency'),
  uses_currency: {
    sentence: (s, o) => `${s} uses ${o}`,
    onSubject: (o) => `that uses ${o}`,
    onObject: (s) => `used by ${s}`,
  },
  timezone: nounRel('time zone'),
  time_zone: nounRel('time zone'),
  highest_point: {
    sentence: (s, o) => `the highest point of ${s} is ${o}`,
    onSubject: (o) => `whose highest point is ${o}`,
    onObject: (s) => `that is the highest point of ${s}`,
  },
};

/** Relation phrasing: a known one, else derived from the label's words. */
export function relPhrase(rel: string): RelPhrase {
  const known = ownValue(KNOWN_RELS, rel);
  if (known) return known;
  const ws = rel.split('_').filter(Boolean);
  if (ws.length === 0) return nounRel('link');
  const first = ws[0]!;
  const last = ws[ws.length - 1]!;
  if (first === 'has' && ws.length > 1) return nounRel(ws.slice(1).join(' '));
  if (first === 'is' && ws.length > 1) return copulaRel(ws.slice(1).join(' '));
  if (VERBS_S.has(first)) return verbRel(ws.join(' '));
  // "member_of_family", "part_of_region": a relational noun, a preposition, then a hint of the object's type
  const mid = ws.findIndex((w, i) => i > 0 && i < ws.length - 1 && PREPOSITIONS.has(w));
  if (mid > 0 && !PREPOSITIONS.has(last)) {
    const head = ws.slice(0, mid + 1);
    if (head[0]!.endsWith('ed') || PARTICIPLES.has(head[0]!)) return copulaRel(head.join(' '));
    return copulaRel(head[0] === 'part' ? head.join(' ') : withArticle(head.join(' ')));
  }
  if (PREPOSITIONS.has(last) && ws.length > 1) {
    if (first.endsWith('ed') || PARTICIPLES.has(first)) return copulaRel(ws.join(' '));
    return copulaRel(withArticle(ws.join(' ')));
  }
  return nounRel(ws.join(' '));
}

// ---------- attributes ----------

/** Verb phrases for date attributes: "was founded" + " in the early 1990s". Generic: "whose X falls …". */
const DATE_VERBS: Record<string, string> = {
  inception: 'was founded',
  founded: 'was founded',
  founding_date: 'was founded',
  established: 'was established',
  birth_date: 'was born',
  date_of_birth: 'was born',
  born: 'was born',
  death_date: 'died',
  date_of_death: 'died',
  died: 'died',
  discovered: 'was discovered',
  discovery_date: 'was discovered',
  year_discovered: 'was discovered',
  discovery_year: 'was discovered',
  opened: 'opened',
  opening_date: 'opened',
  independence: 'became independent',
  independence_date: 'became independent',
  introduced: 'was introduced',
  adopted: 'was adopted',
  first_ascent: 'was first climbed',
  completed: 'was completed',
  withdrawn: 'was withdrawn',
};

/** Relative clause for a date attribute: `when` is "in the early 1990s", "between 1988 and 1995", … */
export function dateClause(attr: string, when: string): string {
  const verb = ownValue(DATE_VERBS, attr);
  return verb ? `that ${verb} ${when}` : `whose ${attrWords(attr)} falls ${when}`;
}

/** A noun phrase for an event of a date attribute of a named entity: "the founding of X". */
export function dateEvent(attr: string, name: string): string {
  const verb = ownValue(DATE_VERBS, attr);
  if (verb) {
    const map: Record<string, string> = {
      'was founded': 'the founding of',
      'was established': 'the establishment of',
      'was born': 'the birth of',
      died: 'the death of',
      'was discovered': 'the discovery of',
      opened: 'the opening of',
      'became independent': 'the independence of',
      'was introduced': 'the introduction of',
      'was adopted': 'the adoption of',
      'was first climbed': 'the first ascent of',
      'was completed': 'the completion of',
      'was withdrawn': 'the withdrawal of',
    };
    const ev = ownValue(map, verb);
    if (ev) return `${ev} ${name}`;
  }
  return `the ${attrWords(attr)} of ${name}`;
}

/** Counted attributes read as a plural noun after the number: "with fewer than 2 million inhabitants". */
const COUNT_NOUNS: Record<string, string> = {
  population: 'inhabitants',
  member_count: 'members',
  speakers: 'speakers',
};

/**
 * The clause for a numeric attribute, in the attribute's usual form: "with fewer than 2 million
 * inhabitants", "with a GDP of less than 57 billion US dollars", "that is between UTC-07:00 and UTC-05:00",
 * "that lies south of 18°N".
 */
export function numberClause(attr: string, amt: Pick<Amount, 'text' | 'bare' | 'kind'>): string {
  if (amt.kind === 'utc_offset') return `that is ${amt.bare}`;
  if (amt.kind === 'latitude' || amt.kind === 'longitude') return `that lies ${amt.bare}`;
  const w = attrWords(attr);
  const counted = ownValue(COUNT_NOUNS, attr) ?? (amt.kind === 'count' && /[^s]s$/.test(w) ? w : undefined);
  if (counted) return `with ${amt.bare} ${counted}`;
  return `with ${withArticle(w)} of ${amt.text}`;
}

/** Units as they read after a number. */
export function unitText(unit: string | undefined): string {
  if (!unit) return '';
  const map: Record<string, string> = {
    km2: 'square kilometres',
    'km²': 'square kilometres',
    sq_km: 'square kilometres',
    km: 'kilometres',
    m: 'metres',
    metres: 'metres',
    meters: 'metres',
    ft: 'feet',
    people: 'people',
    inhabitants: 'inhabitants',
    u: 'u',
    amu: 'u',
    K: 'kelvin',
    g_cm3: 'g/cm³',
    'g/cm3': 'g/cm³',
    year: 'years',
    USD: 'US dollars',
    usd: 'US dollars',
    '%': 'percent',
    min: 'minutes',
    deg: 'degrees',
    years: 'years',
  };
  return ownValue(map, unit) ?? words(unit);
}

const ORDINAL_WORDS = ['zeroth', 'first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];

export function ordinalWord(n: number): string {
  return ORDINAL_WORDS[n] ?? ordinal(n);
}

export function ordinal(n: number): string {
  const abs = Math.abs(n);
  const mod100 = abs % 100;
  const suffix = mod100 >= 11 && mod100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][abs % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** "1993" or "500 BC" (astronomical year numbering: 0 is 1 BC). */
export function yearText(y: number): string {
  return y >= 1 ? String(y) : `${1 - y} BC`;
}

/** Joins phrases: "a", "a and b", "a, b and c". */
export function joinAnd(parts: string[]): string {
  if (parts.length <= 1) return parts[0] ?? '';
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}
