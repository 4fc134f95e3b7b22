// A SPARQL 1.1 endpoint over HTTP (the SPARQL protocol: the query as a GET parameter, or a form POST when
// long; results as application/sparql-results+json), behind the managed tool layer (agent/tools.ts): a QPS
// limit, a result cache, a timeout per attempt and retries with backoff. An endpoint that refuses, hangs or
// answers something other than SPARQL results fails with a message naming the endpoint and the query.
import { LabError } from '../base/errors';
import { ManagedTool, ToolError, type ToolPolicy } from '../agent/tools';
import { incomingQuery, outgoingQuery, selectQuery } from './queries';
import type { FactStore } from './source';
import { RDF_LANG_STRING, XSD, type Fact, type IncomingFact, type Term } from './terms';

interface Binding {
  type: 'uri' | 'literal' | 'typed-literal' | 'bnode';
  value: string;
  datatype?: string;
  'xml:lang'?: string;
}
type Row = Record<string, Binding | undefined>;

/** Requests to a public endpoint stay polite by default (Wikidata's asks for few parallel and slow queries). */
export const SPARQL_POLICY: Partial<ToolPolicy> = { qps: 5, burst: 2, timeoutMs: 30_000, retries: 3, backoffMs: 500, cacheSize: 20_000 };

/** URLs longer than this send the query as a form POST instead. */
const MAX_GET_URL = 2000;
/** IRIs per VALUES block. */
const BATCH = 50;

/** A SPARQL JSON result term as a fact's term; undefined for a blank node. */
export function termOfBinding(b: Binding): Term | undefined {
  if (b.type === 'uri') return { iri: b.value };
  if (b.type === 'bnode') return undefined;
  const lang = b['xml:lang'];
  if (lang) return { value: b.value, lang };
  return b.datatype && b.datatype !== `${XSD}string` && b.datatype !== RDF_LANG_STRING ? { value: b.value, datatype: b.datatype } : { value: b.value };
}

/** The rows of a SPARQL JSON results document; a ToolError for anything else (an HTML page, a truncated body). */
export function parseSparqlJson(text: string, contentType: string): Row[] {
  const what = contentType.split(';')[0]!.trim() || 'no content type';
  if (/html/i.test(what) || /^\s*</.test(text)) throw new ToolError('malformed', `answered ${what}, an HTML or XML page, not SPARQL JSON results: ${JSON.stringify(text.slice(0, 100))}`, false);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ToolError('malformed', `answered ${what} that is not JSON (cut short?): ${JSON.stringify(text.slice(0, 100))}`, true);
  }
  const rows = (doc as { results?: { bindings?: unknown } })?.results?.bindings;
  if (!Array.isArray(rows)) throw new ToolError('malformed', `answered JSON without results.bindings: ${JSON.stringify(text.slice(0, 100))}`, false);
  return rows as Row[];
}

export class SparqlStore implements FactStore {
  readonly kind = 'sparql' as const;
  readonly tool: ManagedTool<{ query: string }, Row[]>;
  private requests = 0;

  constructor(
    readonly location: string,
    policy: Partial<ToolPolicy> = {},
  ) {
    let url: URL;
    try {
      url = new URL(location);
    } catch {
      throw new LabError('bad_request', `sparql:${location}: not a URL (e.g. sparql:http://127.0.0.1:8890/sparql)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new LabError('bad_request', `sparql:${location}: the endpoint must be http or https`);
    this.tool = new ManagedTool('sparql', { name: location, call: (args, signal) => this.send(url, args.query, signal) }, { policy: { ...SPARQL_POLICY, ...policy } });
  }

  private async send(endpoint: URL, query: string, signal: AbortSignal): Promise<Row[]> {
    this.requests++;
    // GET with the query in the URL; a long one as a form POST, with the endpoint's own parameters (default-graph-uri) beside it.
    const get = new URL(endpoint);
    get.searchParams.set('query', query);
    const headers = { accept: 'application/sparql-results+json', 'user-agent': 'sailor-lab/0.1 (kg build)' };
    const post = new URL(endpoint);
    post.search = '';
    const request: [URL, RequestInit] =
      get.href.length <= MAX_GET_URL ? [get, { method: 'GET', headers }] : [post, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: get.searchParams.toString() }];
    let res: Response;
    try {
      res = await fetch(request[0], { ...request[1], signal });
    } catch (err) {
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new ToolError('timeout', 'aborted', true);
      throw new ToolError('network', (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message, true);
    }
    const text = await res.text();
    if (!res.ok) {
      const retryable = res.status >= 500 || res.status === 429;
      throw new ToolError(retryable ? 'http' : 'rejected', `refused the query: HTTP ${res.status} ${JSON.stringify(text.slice(0, 200))}`, retryable, res.status);
    }
    return parseSparqlJson(text, res.headers.get('content-type') ?? '');
  }

  /** One query through the managed layer; a failure names the endpoint and the query. */
  async run(query: string): Promise<Row[]> {
    try {
      return await this.tool.call({ query });
    } catch (err) {
      const c = this.tool.counters();
      const tries = `${c.attempts} attempt${c.attempts === 1 ? '' : 's'} so far`;
      const why = err instanceof ToolError && err.kind === 'timeout' ? `no answer within ${this.tool.policy.timeoutMs} ms` : (err as Error).message;
      throw new LabError('bad_input', `SPARQL endpoint ${this.location}: ${why} (${tries}); query: ${query}`, { endpoint: this.location, query });
    }
  }

  figures(): Record<string, number> {
    const c = this.tool.counters();
    return { requests: this.requests, cache_hits: c.cache_hits, retries: c.retries };
  }

  async outgoing(iri: string, language: string): Promise<{ facts: Fact[]; answer: string }> {
    const query = outgoingQuery(iri, language);
    const facts: Fact[] = [];
    for (const row of await this.run(query)) {
      const o = row.o && termOfBinding(row.o);
      if (row.p?.type === 'uri' && o) facts.push({ p: row.p.value, o });
    }
    return { facts, answer: query };
  }

  async incoming(iri: string, exclude: readonly string[], limit: number): Promise<{ facts: IncomingFact[]; answer: string }> {
    const query = incomingQuery(iri, exclude, limit);
    const facts: IncomingFact[] = [];
    for (const row of await this.run(query)) if (row.s?.type === 'uri' && row.p?.type === 'uri') facts.push({ s: row.s.value, p: row.p.value });
    return { facts, answer: query };
  }

  async select(iris: readonly string[], predicates: readonly string[]): Promise<Map<string, Fact[]>> {
    const out = new Map<string, Fact[]>();
    for (let i = 0; i < iris.length; i += BATCH) {
      for (const row of await this.run(selectQuery(iris.slice(i, i + BATCH), predicates))) {
        const o = row.o && termOfBinding(row.o);
        if (row.s?.type !== 'uri' || row.p?.type !== 'uri' || !o) continue;
        const list = out.get(row.s.value);
        if (list) list.push({ p: row.p.value, o });
        else out.set(row.s.value, [{ p: row.p.value, o }]);
      }
    }
    return out;
  }
}
