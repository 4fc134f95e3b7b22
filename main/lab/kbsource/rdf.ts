// An RDF dump (N-Triples, Turtle or N-Quads, by extension; gzipped when it ends in .gz) streamed into an N3.js
// store: the parser never holds the file, and the store answers the same basic graph patterns the SPARQL
// source sends (queries.ts). Graph names are dropped: a fact stated in two graphs is one fact.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { DataFactory, StreamParser, Store, type Quad, type Term as N3Term } from 'n3';
import { LabError, inputError } from '../base/errors';
import { incomingQuery, outgoingQuery } from './queries';
import type { FactStore } from './source';
import { compareCodePoints, RDF_LANG_STRING, XSD, type Fact, type IncomingFact, type Term } from './terms';

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
  private readonly store = new Store();
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
        // The default graph for all: N-Quads' graph names do not make two facts of one.
        me.store.addQuad(DataFactory.quad(quad.subject, quad.predicate, quad.object));
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
    return me;
  }

  figures(): Record<string, number> {
    return { triples: this.store.size };
  }

  async outgoing(iri: string, language: string): Promise<{ facts: Fact[]; answer: string }> {
    const facts: Fact[] = [];
    for (const q of this.store.getQuads(DataFactory.namedNode(iri), null, null, null)) {
      const o = termOf(q.object);
      if (o && q.predicate.termType === 'NamedNode') facts.push({ p: q.predicate.value, o });
    }
    return { facts, answer: outgoingQuery(iri, language) };
  }

  async incoming(iri: string, exclude: readonly string[], limit: number): Promise<{ facts: IncomingFact[]; answer: string }> {
    const skip = new Set(exclude);
    const facts: IncomingFact[] = [];
    for (const q of this.store.getQuads(null, null, DataFactory.namedNode(iri), null)) {
      if (q.subject.termType === 'NamedNode' && !skip.has(q.predicate.value)) facts.push({ s: q.subject.value, p: q.predicate.value });
    }
    facts.sort((a, b) => compareCodePoints(a.p, b.p) || compareCodePoints(a.s, b.s));
    return { facts: facts.slice(0, limit), answer: incomingQuery(iri, exclude, limit) };
  }

  async select(iris: readonly string[], predicates: readonly string[]): Promise<Map<string, Fact[]>> {
    const out = new Map<string, Fact[]>();
    for (const iri of iris) {
      const facts: Fact[] = [];
      for (const p of predicates) {
        for (const q of this.store.getQuads(DataFactory.namedNode(iri), DataFactory.namedNode(p), null, null)) {
          const o = termOf(q.object);
          if (o) facts.push({ p, o });
        }
      }
      if (facts.length) out.set(iri, facts);
    }
    return out;
  }
}
