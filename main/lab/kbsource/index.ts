// A knowledge-base source named as `kg build --kb` takes it: `rdf:FILE` (N-Triples, Turtle or N-Quads, by
// extension), `wikidata:FILE` (a Wikidata JSON dump, plain or gzipped) or `sparql:URL`; with a mapping
// (`wikidata`, `dbpedia`, `rdf` or a mapping file). The bundled knowledge base is `bundled` (the default).
import { LabError } from '../base/errors';
import type { ToolPolicy } from '../agent/tools';
import { loadMapping } from './mapping';
import { RdfFileStore } from './rdf';
import { SourcedKb, type FactStore, type KbProvenance } from './source';
import { SparqlStore } from './sparql';
import { WikidataDumpStore } from './wikidata';

export { SourcedKb } from './source';
export { BUILTIN_MAPPINGS, loadMapping, parseMapping, MAPPING_FORMAT, type Mapping } from './mapping';

export interface KbSpec {
  kind: 'bundled' | 'rdf' | 'wikidata' | 'sparql';
  location: string;
}

/** Parses `--kb`: 'bundled', or a kind and a location. */
export function parseKbSpec(text: string | undefined): KbSpec {
  if (text === undefined || text === '' || text === 'bundled') return { kind: 'bundled', location: '' };
  const m = /^(rdf|wikidata|sparql):(.+)$/.exec(text.trim());
  if (!m) throw new LabError('bad_request', `--kb '${text}': expected bundled, rdf:FILE (.nt, .ttl, .nq, optionally .gz), wikidata:FILE (a JSON dump, .json or .json.gz) or sparql:URL`);
  return { kind: m[1] as KbSpec['kind'], location: m[2]! };
}

export interface OpenOptions {
  /** 'wikidata', 'dbpedia', 'rdf' or a mapping file; by default wikidata for a Wikidata dump, rdf otherwise. */
  mapping?: string;
  onProgress?: (message: string) => void;
  /** The SPARQL source's QPS, timeout, retries and cache. */
  sparqlPolicy?: Partial<ToolPolicy>;
  /** The knowledge base's source and licence as the user states them (over the dump's own and the mapping's). */
  provenance?: KbProvenance;
}

/** Opens a source: loads a dump (streamed) or checks an endpoint's URL. */
export async function openKbSource(spec: KbSpec, opts: OpenOptions = {}): Promise<SourcedKb> {
  if (spec.kind === 'bundled') throw new LabError('internal', 'the bundled knowledge base is no source: load it with loadKbIndex');
  const mapping = loadMapping(opts.mapping ?? (spec.kind === 'wikidata' ? 'wikidata' : 'rdf'));
  const say = opts.onProgress ?? (() => {});
  let store: FactStore;
  if (spec.kind === 'rdf') {
    say(`loading ${spec.location}`);
    store = await RdfFileStore.load(spec.location, { onProgress: (n) => say(`${n.toLocaleString('en-US')} triples read`) });
  } else if (spec.kind === 'wikidata') {
    say(`reading ${spec.location}`);
    store = await WikidataDumpStore.load(spec.location, mapping.language, (n) => say(`${n.toLocaleString('en-US')} entities read`));
  } else {
    store = new SparqlStore(spec.location, opts.sparqlPolicy);
  }
  const figures = store.figures?.() ?? {};
  say(`${spec.kind}:${spec.location} ready${Object.keys(figures).length ? ` (${Object.entries(figures).map(([k, v]) => `${v} ${k}`).join(', ')})` : ''}`);
  return new SourcedKb(store, mapping, opts.provenance);
}
