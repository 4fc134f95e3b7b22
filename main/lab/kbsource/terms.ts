// The facts a knowledge-base source answers with, whatever it is (an RDF file, a Wikidata dump, a SPARQL
// endpoint): a predicate IRI and an object, which is an IRI or a literal. Every source speaks these, so one
// mapping (mapping.ts) turns the same data into the same nodes and edges by every route.

/** An RDF literal; `unit` only from Wikidata's JSON, where a quantity carries its unit's IRI. */
export interface Literal {
  value: string;
  datatype?: string;
  lang?: string;
  unit?: string;
}

export type Term = { iri: string } | Literal;

export interface Fact {
  p: string;
  o: Term;
}

/** A fact seen from its object's side: subject `s` says `p` of the node asked about. */
export interface IncomingFact {
  s: string;
  p: string;
}

export const isIri = (t: Term): t is { iri: string } => 'iri' in t;

export const XSD = 'http://www.w3.org/2001/XMLSchema#';
export const RDF_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';

/** Code-point order, the same in every locale (and the order SPARQL's ORDER BY STR() gives on ASCII IRIs). */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One term as N-Triples writes it: the evidence of an edge, and a sort key. */
export function ntriplesTerm(t: Term): string {
  if (isIri(t)) return `<${t.iri}>`;
  const text = JSON.stringify(t.value);
  if (t.lang) return `${text}@${t.lang}`;
  return t.datatype && t.datatype !== `${XSD}string` ? `${text}^^<${t.datatype}>` : text;
}

/** The last segment of an IRI (after '#', '/' or ':'): 'P31', 'birthPlace'. */
export function localName(iri: string): string {
  const m = /[^#/:]+$/.exec(iri);
  return m ? m[0] : iri;
}

/** A snake_case label as sailor.graph/1 wants for types and relations: 'birthPlace' -> 'birth_place', 'Q5' -> 'q5'. */
export function snakeLabel(text: string): string {
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (words === '') return 'unnamed';
  return /^[a-z]/.test(words) ? words : `x_${words}`;
}

/** IRI prefixes, longest namespace first, so 'wdt:P31' and the full IRI map both ways. */
export class Prefixes {
  private readonly byNamespace: [string, string][];

  constructor(readonly map: Record<string, string>) {
    this.byNamespace = Object.entries(map)
      .map(([prefix, ns]) => [prefix, ns] as [string, string])
      .sort((a, b) => b[1].length - a[1].length || compareCodePoints(a[0], b[0]));
  }

  /** 'wd:Q142' for 'http://www.wikidata.org/entity/Q142'; the IRI itself when no prefix fits. */
  compact(iri: string): string {
    for (const [prefix, ns] of this.byNamespace) {
      if (iri.startsWith(ns) && /^[A-Za-z0-9_-]+$/.test(iri.slice(ns.length))) return `${prefix}:${iri.slice(ns.length)}`;
    }
    return iri;
  }

  /** The IRI of a prefixed name or `<IRI>`; undefined when the prefix is unknown and it is no IRI. */
  expand(name: string): string | undefined {
    const t = name.trim();
    if (t.startsWith('<') && t.endsWith('>')) return t.slice(1, -1);
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(t) || t.startsWith('urn:')) return t;
    const colon = t.indexOf(':');
    if (colon > 0) {
      const ns = this.map[t.slice(0, colon)];
      return ns === undefined ? undefined : ns + t.slice(colon + 1);
    }
    return undefined;
  }
}
