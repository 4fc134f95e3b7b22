// A Wikidata JSON dump (one entity per line inside a JSON array, as Wikidata publishes it; plain or gzipped)
// read line by line. wikibase-sdk simplifies each entity's claims to truthy values (preferred rank over
// normal, deprecated dropped); they become facts in Wikidata's RDF vocabulary (wd:, wdt:, rdfs:label,
// skos:altLabel, schema:description), so the wikidata mapping reads them as it reads the query service's.
// Quantities keep their unit and dates their precision. Each fact records the dump line it came from.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { simplify } from 'wikibase-sdk';
import { LabError, inputError } from '../base/errors';
import type { FactStore } from './source';
import { compareCodePoints, XSD, type Fact, type IncomingFact, type Literal } from './terms';

export const WD = 'http://www.wikidata.org/entity/';
export const WDT = 'http://www.wikidata.org/prop/direct/';
const RDFS_LABEL = 'http://www.w3.org/2000/01/rdf-schema#label';
const SKOS_ALT = 'http://www.w3.org/2004/02/skos/core#altLabel';
const SCHEMA_DESCRIPTION = 'http://schema.org/description';

interface TermMap {
  [lang: string]: { value: string } | undefined;
}
interface WikidataEntity {
  id: string;
  labels?: TermMap;
  descriptions?: TermMap;
  aliases?: Record<string, { value: string }[] | undefined>;
  claims?: Record<string, unknown[]>;
}

type Simplified = { datatype: string; value: unknown };

/** A simple-day date ('1867-11-07', '1867-11', '800') as ISO with a four-digit year; BCE dates stay as written. */
function isoDay(text: string): string {
  return text.startsWith('-') ? text : text.replace(/^(\d{1,3})(?=-|$)/, (y) => y.padStart(4, '0'));
}

/** The facts of one claim value, as the truthy wdt: statement says it. */
function claimFact(p: string, c: Simplified): Fact | undefined {
  const pred = WDT + p;
  const v = c.value;
  if (v === null || v === undefined) return undefined; // novalue / somevalue
  switch (c.datatype) {
    case 'wikibase-item':
    case 'wikibase-property':
      return { p: pred, o: { iri: WD + String(v) } };
    case 'quantity': {
      const q = v as { amount: number; unit: string };
      const lit: Literal = { value: String(q.amount), datatype: `${XSD}decimal` };
      if (q.unit && q.unit !== '1') lit.unit = WD + q.unit;
      return { p: pred, o: lit };
    }
    case 'time': {
      const t = v as { time: string; precision: number };
      return { p: pred, o: { value: isoDay(String(t.time)), datatype: t.precision >= 11 ? `${XSD}date` : t.precision === 10 ? `${XSD}gYearMonth` : `${XSD}gYear` } };
    }
    case 'monolingualtext': {
      const m = v as { text: string; language: string };
      return { p: pred, o: { value: m.text, lang: m.language } };
    }
    case 'globe-coordinate':
      return undefined;
    default:
      return typeof v === 'string' || typeof v === 'number' ? { p: pred, o: { value: String(v) } } : undefined;
  }
}

/** Wikidata's 'mul' (one label for all languages) counts as untagged: the fallback in any language. */
const langOf = (lang: string): string | undefined => (lang === 'mul' ? undefined : lang);

/** An entity's facts: labels, aliases and descriptions in `language` (and 'mul'), and its truthy claims. */
export function entityFacts(e: WikidataEntity, language: string): Fact[] {
  const want = (lang: string): boolean => lang === 'mul' || lang === language || lang.startsWith(`${language}-`);
  const facts: Fact[] = [];
  for (const [lang, t] of Object.entries(e.labels ?? {})) if (t && want(lang)) facts.push({ p: RDFS_LABEL, o: { value: t.value, lang: langOf(lang) } });
  for (const [lang, list] of Object.entries(e.aliases ?? {})) if (list && want(lang)) for (const a of list) facts.push({ p: SKOS_ALT, o: { value: a.value, lang: langOf(lang) } });
  for (const [lang, t] of Object.entries(e.descriptions ?? {})) if (t && want(lang)) facts.push({ p: SCHEMA_DESCRIPTION, o: { value: t.value, lang: langOf(lang) } });
  const claims = simplify.claims((e.claims ?? {}) as Parameters<typeof simplify.claims>[0], { keepRichValues: true, keepTypes: true, timeConverter: 'simple-day' }) as unknown as Record<string, Simplified[]>;
  for (const p of Object.keys(claims).sort(compareCodePoints)) {
    for (const c of claims[p]!) {
      const f = claimFact(p, c);
      if (f) facts.push(f);
    }
  }
  return facts.map((f) => (!('iri' in f.o) && f.o.lang === undefined ? { p: f.p, o: Object.fromEntries(Object.entries(f.o).filter(([, v]) => v !== undefined)) as unknown as Literal } : f));
}

export class WikidataDumpStore implements FactStore {
  readonly kind = 'wikidata' as const;
  private readonly entities = new Map<string, { facts: Fact[]; line: number }>();
  private readonly inLinks = new Map<string, IncomingFact[]>();
  private lines = 0;

  private constructor(
    readonly location: string,
    private readonly language: string,
  ) {}

  /** Reads the dump; a line that is no whole JSON entity (a truncated dump's last line) names the file and line. */
  static async load(file: string, language: string, onProgress?: (entities: number) => void): Promise<WikidataDumpStore> {
    if (!existsSync(file) || !statSync(file).isFile()) throw new LabError('bad_request', `wikidata:${file}: no such file`);
    const me = new WikidataDumpStore(file, language);
    const raw = createReadStream(file);
    const input = /\.gz$/i.test(file) ? raw.pipe(createGunzip()) : raw;
    let streamError: Error | undefined;
    input.on('error', (err: Error) => (streamError = err));
    const rl = createInterface({ input, crlfDelay: Infinity });
    let lineNo = 0;
    try {
      for await (const rawLine of rl) {
        lineNo++;
        const text = rawLine.trim().replace(/,$/, '');
        if (text === '' || text === '[' || text === ']') continue;
        let entity: WikidataEntity;
        try {
          entity = JSON.parse(text) as WikidataEntity;
        } catch (err) {
          throw inputError(file, `not a whole JSON entity (${(err as Error).message}); a dump cut short ends like this`, { line: lineNo });
        }
        if (!entity || typeof entity.id !== 'string' || !/^[QPL]\d+$/.test(entity.id)) throw inputError(file, 'expected a Wikidata entity with an id such as "Q42"', { line: lineNo });
        me.add(entity, lineNo);
        if (me.entities.size % 10_000 === 0) onProgress?.(me.entities.size);
      }
    } catch (err) {
      if (err instanceof LabError) throw err;
      streamError = err as Error;
    }
    if (streamError) throw inputError(file, /unexpected end of file/i.test(streamError.message) ? 'the gzip stream ends early: the dump is truncated' : streamError.message, { line: lineNo });
    me.lines = lineNo;
    return me;
  }

  private add(entity: WikidataEntity, line: number): void {
    const iri = WD + entity.id;
    let facts: Fact[];
    try {
      facts = entityFacts(entity, this.language);
    } catch (err) {
      throw inputError(this.location, `entity ${entity.id}: ${(err as Error).message}`, { line });
    }
    this.entities.set(iri, { facts, line });
    for (const f of facts) {
      if (!('iri' in f.o)) continue;
      const list = this.inLinks.get(f.o.iri);
      if (list) list.push({ s: iri, p: f.p });
      else this.inLinks.set(f.o.iri, [{ s: iri, p: f.p }]);
    }
  }

  figures(): Record<string, number> {
    return { entities: this.entities.size, lines: this.lines };
  }

  async outgoing(iri: string): Promise<{ facts: Fact[]; answer: string }> {
    const e = this.entities.get(iri);
    return { facts: e?.facts ?? [], answer: e ? `${this.location}:${e.line}` : `${this.location}: no entity ${iri}` };
  }

  async incoming(iri: string, exclude: readonly string[], limit: number): Promise<{ facts: IncomingFact[]; answer: string }> {
    const skip = new Set(exclude);
    const facts = (this.inLinks.get(iri) ?? []).filter((f) => !skip.has(f.p));
    facts.sort((a, b) => compareCodePoints(a.p, b.p) || compareCodePoints(a.s, b.s));
    const kept = facts.slice(0, limit);
    const lines = [...new Set(kept.map((f) => this.entities.get(f.s)!.line))].sort((a, b) => a - b);
    return { facts: kept, answer: lines.length ? `${this.location}:${lines.join(',')}` : `${this.location}: no claim names ${iri}` };
  }

  async select(iris: readonly string[], predicates: readonly string[]): Promise<Map<string, Fact[]>> {
    const want = new Set(predicates);
    const out = new Map<string, Fact[]>();
    for (const iri of iris) {
      const facts = this.entities.get(iri)?.facts.filter((f) => want.has(f.p));
      if (facts?.length) out.set(iri, facts);
    }
    return out;
  }
}
