// The three SPARQL queries a neighbourhood takes. The SPARQL source sends them; the RDF file's store evaluates
// the same basic graph patterns itself and records the same text, so both routes leave the same provenance.
import { LabError } from '../base/errors';

const SAFE_IRI = /^[^<>"{}|^`\\\s]+$/;

export function iriRef(iri: string): string {
  if (!SAFE_IRI.test(iri)) throw new LabError('bad_request', `'${iri}' is not an IRI a SPARQL query can name (no spaces, <, >, quotes or braces)`);
  return `<${iri}>`;
}

/** A literal in a SPARQL query. */
const quoted = (text: string): string => JSON.stringify(text);

export function outgoingQuery(iri: string, language: string): string {
  return `SELECT ?p ?o WHERE { ${iriRef(iri)} ?p ?o . FILTER(!isLiteral(?o) || lang(?o) = "" || langMatches(lang(?o), ${quoted(language)})) }`;
}

export function incomingQuery(iri: string, exclude: readonly string[], limit: number): string {
  const not = exclude.length ? ` FILTER(?p NOT IN (${exclude.map(iriRef).join(', ')}))` : '';
  return `SELECT ?s ?p WHERE { ?s ?p ${iriRef(iri)} . FILTER(isIRI(?s))${not} } ORDER BY STR(?p) STR(?s) LIMIT ${limit}`;
}

export function selectQuery(iris: readonly string[], predicates: readonly string[]): string {
  return `SELECT ?s ?p ?o WHERE { VALUES ?s { ${iris.map(iriRef).join(' ')} } VALUES ?p { ${predicates.map(iriRef).join(' ')} } ?s ?p ?o }`;
}
