// An RDF dump (N-Triples, Turtle or N-Quads, by extension; gzipped when it ends in .gz) streamed through N3.js's
// parser into a compact triple index (triples.ts): the parser never holds the file, and the index answers the
// same basic graph patterns the SPARQL source sends (queries.ts). Graph names are dropped: a fact stated in two
// graphs is one fact.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { StreamParser, type Quad, type Term as N3Term } from 'n3';
import { LabError, inputError } from '../base/errors';
import { incomingQuery, outgoingQuery } from './queries';
import type { DumpMetadata, FactStore } from './source';
import { TripleIndex } from './triples';
import { compareCodePoints, isIri, RDF_LANG_STRING, XSD, type Fact, type IncomingFact, type Term } from './terms';

/** Where a dump states its licence (Wikidata's RDF dumps: `wikibase:Dump cc:license <…/zero/1.0/>`), and its title. */
const LICENCE_PREDICATES = ['http://purl.org/dc/terms/license', 'http://creativecommons.org/ns#license', 'http://schema.org/license', 'https://schema.org/license', 'http://purl.org/dc/terms/rights'];
const TITLE_PREDICATES = ['http://purl.org/dc/terms/title', 'http://purl.org/dc/elements/1.1/title', 'http://schema.org/name', 'http://www.w3.org/2000/01/rdf-schema#label'];

const FORMATS: Record<string, string> = { nt: 'N-Triples', ttl: 'Turtle', nq: 'N-Quads', turtle: 'Turtle', ntriples: 'N-Triples', nquads: 'N-Quads' };

/** The N3.js format of a dump by its extension (before any .gz). */
export function rdfFormatOf(file: string): string {
  const ext = /\.([a-z]+)(?:\.gz)?$/i.exec(file)?.[1]?.toLowerCase();
  const format = ext ? FORMATS[ext] : undefined;
  if (!format) throw new LabError('bad_request', `rdf:${file}: name the format by the extension: .nt (N-Triples), .ttl (Turtle) or .nq (N-Quads), optionally .gz`);
  return format;
}

/** An N3.js term as a fact's object; undefined for a blank node. */
export function termOf(t: N3Term): Term | undefined {
  if (t.termType === 'NamedNode') return { iri: t.value };
  if (t.termType !== 'Literal') return undefined;
  const lit = t as N3Term & { language: string; datatype: { value: string } };
  if (lit.language) return { value: lit.value, lang: lit.language };
  const dt = lit.datatype?.value;
  return dt && dt !== `${XSD}string` && dt !== RDF_LANG_STRING ? { value: lit.value, datatype: dt } : { value: lit.value };
}

export interface RdfLoadOptions {
  onProgress?: (triples: number) => void;
}

export class RdfFileStore implements FactStore {
  readonly kind = 'rdf' as const;
  private readonly index = new TripleIndex();
  private triples = 0;

  private constructor(readonly location: string) {}

  /** Streams the dump into a store. Errors name the file and line (malformed syntax) or the truncation. */
  static async load(file: string, opts: RdfLoadOptions = {}): Promise<RdfFileStore> {
    if (!existsSync(file) || !statSync(file).isFile()) throw new LabError('bad_request', `rdf:${file}: no such file`);
    const format = rdfFormatOf(file);
    const me = new RdfFileStore(file);
    const parser = new StreamParser({ format });
    const sink = new Writable({
      objectMode: true,
      write(quad: Quad, _enc, done) {
        // Blank nodes are no entities; graph names are dropped (the index keeps a fact stated twice once).
        const o = termOf(quad.object);
        if (quad.subject.termType === 'NamedNode' && quad.predicate.termType === 'NamedNode' && o) me.index.add(quad.subject.value, quad.predicate.value, o);
        if (++me.triples % 100_000 === 0) opts.onProgress?.(me.triples);
        done();
      },
    });
    const stages: NodeJS.ReadableStream[] = [createReadStream(file)];
    if (/\.gz$/i.test(file)) stages.push(createGunzip());
    try {
      await pipeline([...stages, parser, sink] as unknown as [NodeJS.ReadableStream, NodeJS.WritableStream]);
    } catch (err) {
      const e = err as Error & { context?: { line?: number }; code?: string };
      if (e.code === 'Z_BUF_ERROR' || /unexpected end of file/i.test(e.message)) throw inputError(file, 'the gzip stream ends early: the dump is truncated');
      const line = e.context?.line ?? Number(/on line (\d+)/.exec(e.message)?.[1] ?? NaN);
      throw inputError(file, `malformed ${format}: ${e.message.replace(/\s*on line \d+\.?$/, '')}`, Number.isFinite(line) ? { line } : {});
    }
    opts.onProgress?.(me.triples);
    me.index.seal();
    return me;
  }

  figures(): Record<string, number> {
    return { triples: this.index.size };
  }

  /** The dataset's licence (dcterms:license, cc:license, schema:license) and the title of the dataset that states it. */
  metadata(): DumpMetadata {
    const stated = LICENCE_PREDICATES.flatMap((p) => this.index.withPredicate(p)).map((f) => ({ s: f.s, text: isIri(f.o) ? f.o.iri : f.o.value.trim() }));
    const first = stated.filter((f) => f.text !== '').sort((a, b) => compareCodePoints(a.s, b.s) || compareCodePoints(a.text, b.text))[0];
    if (!first) return {};
    const titles = this.index.outgoing(first.s, new Set(TITLE_PREDICATES)).flatMap((f) => (isIri(f.o) || f.o.value.trim() === '' ? [] : [f.o.value.trim()]));
    const title = titles.sort(compareCodePoints)[0];
    return { licence: first.text, ...(title ? { source: title } : {}) };
  }

  async outgoing(iri: string, language: string): Promise<{ facts: Fact[]; answer: string }> {
    return { facts: this.index.outgoing(iri), answer: outgoingQuery(iri, language) };
  }

  async incoming(iri: string, exclude: readonly string[], limit: number): Promise<{ facts: IncomingFact[]; answer: string }> {
    return { facts: this.index.incoming(iri, new Set(exclude)).slice(0, limit), answer: incomingQuery(iri, exclude, limit) };
  }

  async select(iris: readonly string[], predicates: readonly string[]): Promise<Map<string, Fact[]>> {
    const want = new Set(predicates);
    const out = new Map<string, Fact[]>();
    for (const iri of iris) {
      const facts = this.index.outgoing(iri, want);
      if (facts.length) out.set(iri, facts);
    }
    return out;
  }
}
