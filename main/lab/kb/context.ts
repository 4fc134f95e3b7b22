// Lookups shared by the extractors while the KB is assembled: how a name, code or demonym found in one
// package resolves to a node another package created. Filled in build order (countries first).
import { nameKey } from './text';

/** A name that can mean several entities: keep the candidates ranked, best first. */
export class NameIndex {
  private readonly map = new Map<string, { id: string; rank: number }[]>();

  add(name: string, id: string, rank = 0): void {
    const key = nameKey(name);
    if (key === '') return;
    const list = this.map.get(key) ?? [];
    if (list.some((c) => c.id === id)) return;
    list.push({ id, rank });
    // Higher rank first; ties by id so the order never depends on insertion.
    list.sort((a, b) => b.rank - a.rank || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.map.set(key, list);
  }

  all(name: string): string[] {
    return (this.map.get(nameKey(name)) ?? []).map((c) => c.id);
  }

  best(name: string): string | undefined {
    return this.map.get(nameKey(name))?.[0]?.id;
  }

  /** The id only when the name is unambiguous. */
  unique(name: string): string | undefined {
    const list = this.map.get(nameKey(name));
    return list && list.length === 1 ? list[0]!.id : undefined;
  }
}

export interface KbContext {
  /** ISO 3166 alpha-2 / alpha-3 to the country or territory node id. */
  countryByAlpha2: Map<string, string>;
  countryByAlpha3: Map<string, string>;
  alpha2ByCountry: Map<string, string>;
  countryNames: NameIndex;
  /** "French", "United States", "English" … to a country id. */
  demonyms: NameIndex;
  /** City names, scoped by country (`${alpha2}|name` keys) and global; ranked by population. */
  citiesInCountry: NameIndex;
  cities: NameIndex;
  /** First-level administrative regions (ISO 3166-2), by name, globally and within a country. */
  adminRegions: NameIndex;
  adminRegionsInCountry: NameIndex;
  /** Language node id by ISO 639-1 or 639-3 code. */
  languageByCode: Map<string, string>;
  /** Person node ids by any full (multi-word) name, from WordNet. */
  persons: NameIndex;
  /** Person ids by `surname|first-initial`, for names spelled differently ("Jacob"/"Jakob"). */
  personsBySurname: NameIndex;
}

export function createContext(): KbContext {
  return {
    countryByAlpha2: new Map(),
    countryByAlpha3: new Map(),
    alpha2ByCountry: new Map(),
    countryNames: new NameIndex(),
    demonyms: new NameIndex(),
    citiesInCountry: new NameIndex(),
    cities: new NameIndex(),
    adminRegions: new NameIndex(),
    adminRegionsInCountry: new NameIndex(),
    languageByCode: new Map(),
    persons: new NameIndex(),
    personsBySurname: new NameIndex(),
  };
}

export function scoped(alpha2: string, name: string): string {
  return `${alpha2}|${name}`;
}

/**
 * `surname|initial` of a personal name, e.g. "Jöns Jacob Berzelius" -> "berzelius|j". Titles are
 * dropped and a C initial reads as K, so "Carl Wilhelm Scheele" meets WordNet's "Karl Wilhelm Scheele".
 */
export function surnameKey(fullName: string): string | undefined {
  const words = fullName
    .replace(/\(.*?\)/g, '')
    .replace(/^(Sir|Lord|Baron|Dame|Saint|St\.)\s+/, '')
    .trim()
    .split(/\s+/);
  if (words.length < 2) return undefined;
  const initial = nameKey(words[0]!).charAt(0).replace('c', 'k');
  return `${nameKey(words[words.length - 1]!)}|${initial}`;
}
