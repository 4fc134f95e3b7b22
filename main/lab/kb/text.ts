// Small pure text helpers shared by the knowledge-base extractors: name matching keys, id slugs,
// unit conversion and the year patterns that WordNet glosses use.

/** Compares strings by UTF-16 code units: locale-free, so sort order never depends on ICU or the OS. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Strips accents (NFD + combining marks), so "Zürich" and "Zurich" meet. */
export function stripAccents(text: string): string {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}

/**
 * A loose matching key for names from different sources: no accents, no case, no punctuation or
 * spaces, and "St." read as "Saint". "Saint John’s" and "St. John's" give the same key.
 */
export function nameKey(name: string): string {
  const plain = stripAccents(name).toLowerCase().replace(/_/g, ' ');
  return plain
    .replace(/\bst\.?\s/g, 'saint ')
    .replace(/\bmt\.?\s/g, 'mount ')
    .replace(/[^a-z0-9]+/g, '');
}

/** An id fragment from a free name: ascii, lower case, dashes. "Jöns Jakob Berzelius" -> "jons-jakob-berzelius". */
export function slug(name: string): string {
  const s = stripAccents(name)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s === '' ? 'x' : s;
}

/** WordNet lemma to display text: underscores are spaces. */
export function lemmaText(lemma: string): string {
  return lemma.replace(/_/g, ' ');
}

/** 2138551 -> "2,138,551", without Intl so the text never depends on the ICU build. */
export function groupDigits(n: number): string {
  const [int, frac] = String(n).split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac ? `${grouped}.${frac}` : grouped;
}

export function feetToMetres(feet: number): number {
  return Math.round(feet * 0.3048);
}

export function milesToKm(miles: number): number {
  return Math.round(miles * 1.609344);
}

/** A number written with thousands separators ("14,804") or plain. */
export function parseGroupedNumber(text: string): number | undefined {
  const n = Number(text.replace(/,/g, ''));
  return Number.isFinite(n) ? n : undefined;
}

/** An AD year as the ISO `YYYY` date text of docs/formats.md, 'sailor.graph/1' (zero-padded); BC years have none. */
export function isoYear(year: number): string | undefined {
  if (!Number.isInteger(year) || year < 1 || year > 9999) return undefined;
  return String(year).padStart(4, '0');
}

export interface LifeYears {
  birth?: number;
  death?: number;
  /** The text span the years came from, e.g. "(1731-1810)", kept for evidence. */
  span: string;
  bc: boolean;
}

/**
 * Life years from a WordNet person gloss: "(1731-1810)", "(1864-65)", "(born 1930)", "(died 1910)",
 * "(circa 1420-1492)", "(384-322 BC)". The last matching parenthesis wins: glosses end with the years.
 */
export function parseLifeYears(gloss: string): LifeYears | undefined {
  const range = /\((?:circa |c\. |about )?(\d{1,4})(?: ?(BC))?\s?-\s?(?:circa |c\. )?(\d{1,4})(?: ?(BC|AD))?\)/g;
  let found: LifeYears | undefined;
  for (const m of gloss.matchAll(range)) {
    const bc = m[2] === 'BC' || m[4] === 'BC';
    const a = Number(m[1]);
    let b = Number(m[3]);
    // "(1864-65)": the second year only gives its last digits.
    if (!bc && b < a && m[3]!.length < m[1]!.length) b = Number(m[1]!.slice(0, m[1]!.length - m[3]!.length) + m[3]);
    if (!bc && b < a) continue;
    found = { birth: a, death: b, span: m[0], bc };
  }
  if (found) return found;
  const single = /\((born|died|died in|d\.|b\.) (?:circa |about )?(\d{1,4})( BC)?\)/g;
  for (const m of gloss.matchAll(single)) {
    const year = Number(m[2]);
    const bc = m[3] !== undefined;
    found = m[1]!.startsWith('b') ? { birth: year, span: m[0], bc } : { death: year, span: m[0], bc };
  }
  return found;
}

/** A single year an event happened, from glosses like "(1809)", "in 1513", "in March 1943"; not BC. */
export function parseEventYear(gloss: string): { year: number; span: string } | undefined {
  const paren = /\((\d{3,4})\)/.exec(gloss);
  if (paren) return { year: Number(paren[1]), span: paren[0] };
  const inYear = /\bin (?:(?:January|February|March|April|May|June|July|August|September|October|November|December) )?(\d{3,4})\b(?! ?BC)/.exec(gloss);
  if (inYear) return { year: Number(inYear[1]), span: inYear[0] };
  return undefined;
}

/** A year range like "(1904-1905)", "1799-1815" or "(1864-65)", for wars and campaigns. */
export function parseYearRange(gloss: string): { start: number; end: number; span: string } | undefined {
  const m = /\b(\d{4})\s?-\s?(\d{2,4})\b/.exec(gloss);
  if (!m) return undefined;
  const start = Number(m[1]);
  let end = Number(m[2]);
  if (m[2]!.length === 2) end = Number(m[1]!.slice(0, 2) + m[2]);
  return end >= start ? { start, end, span: m[0] } : undefined;
}

/** Elevation in feet from glosses like "(14,804 feet high)" or "(8,340 feet)". */
export function parseFeet(gloss: string): { feet: number; span: string } | undefined {
  const m = /\(?(\d{1,2},\d{3}|\d{3,5}) feet(?: high)?\)?/.exec(gloss);
  if (!m) return undefined;
  const feet = parseGroupedNumber(m[1]!);
  return feet === undefined ? undefined : { feet, span: m[0] };
}

/** Length in miles from glosses like "(1,200 miles long)" or "length 300 miles". */
export function parseMiles(gloss: string): { miles: number; span: string } | undefined {
  const m = /(\d{1,2},\d{3}|\d{2,5}) miles(?: long)?/.exec(gloss);
  if (!m || !/long|length/.test(gloss)) return undefined;
  const miles = parseGroupedNumber(m[1]!);
  return miles === undefined ? undefined : { miles, span: m[0] };
}
