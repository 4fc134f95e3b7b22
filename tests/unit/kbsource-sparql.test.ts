// `kg build --kb sparql:URL` against a real SPARQL server on loopback (Virtuoso, tests/support/virtuoso.ts),
// loaded with an RDF file the test makes: the same graph as the same data through the embedded store, byte
// for byte but for the line naming the source. Then endpoints that answer HTML, hang, or fail mid-walk: each
// a clear error naming the endpoint and the query, and no graph file written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../main/lab/cli/index';
import { SparqlStore } from '../../main/lab/kbsource/sparql';
import { SourcedKb, loadMapping } from '../../main/lab/kbsource/index';
import { expandFromSource } from '../../main/lab/kg/expand';
import type { Graph } from '../../main/lab/formats/index';
import { startVirtuoso, virtuosoMissing, type Virtuoso } from '../support/virtuoso';
import { worldNTriples, worldTurtle } from '../support/rdf-world';

const dir = mkdtempSync(join(tmpdir(), 'sailor-kbsource-sparql-'));
const GRAPH = 'http://example.org/world';
const mappingFile = join(dir, 'example-mapping.json');
let virtuoso: Virtuoso;
let endpoint: string;
const servers: Server[] = [];

function capture(): { out(t: string): void; err(t: string): void; stdout: string; stderr: string } {
  const io = { stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) };
  return io;
}

/** A loopback HTTP server answering each request with `handle`; its URL. */
async function serve(handle: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/sparql`;
}

beforeAll(async () => {
  if (process.platform !== 'linux') return;
  const missing = virtuosoMissing();
  if (missing) throw new Error(missing);
  writeFileSync(join(dir, 'world.nt'), worldNTriples(400));
  writeFileSync(join(dir, 'world.ttl'), worldTurtle(400));
  writeFileSync(
    mappingFile,
    JSON.stringify({
      format: 'sailor.mapping/1',
      name: 'example',
      prefixes: { ex: 'http://example.org/', rdfs: 'http://www.w3.org/2000/01/rdf-schema#', rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#', skos: 'http://www.w3.org/2004/02/skos/core#' },
      label: ['rdfs:label'],
      alias: ['skos:altLabel'],
      type: ['rdf:type'],
      relations: { 'ex:bornIn': 'place_of_birth' },
      attributes: { 'ex:area': { datatype: 'number', unit: 'km2' }, 'ex:length': { datatype: 'number', unit: 'km' } },
      source: 'Example world',
      licence: 'CC0-1.0',
    }),
  );
  virtuoso = await startVirtuoso();
  virtuoso.load(join(dir, 'world.nt'), GRAPH);
  endpoint = `${virtuoso.endpoint}?default-graph-uri=${encodeURIComponent(GRAPH)}`;
}, 180_000);

afterAll(async () => {
  for (const s of servers) s.close();
  await virtuoso?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const build = (kb: string, out: string, extra: string[] = []): Promise<{ code: number; stderr: string }> => {
  const io = capture();
  return runCli(['kg', 'build', '--kb', kb, '--mapping', mappingFile, '--seed', 'ex:e7', '--max-edges', '300', '--rng', '3', '--out', out, ...extra], io).then((code) => ({ code, stderr: io.stderr }));
};

// Debian's package is the server; on macOS and Windows (CI's other runners) there is none to install.
describe.skipIf(process.platform !== 'linux')('kg build over a SPARQL endpoint (Virtuoso on loopback)', () => {
  it('gives the same graph as the same data through the embedded store', { timeout: 300_000 }, async () => {
    const viaStore = join(dir, 'store.json');
    const viaSparql = join(dir, 'sparql.json');
    expect((await build(`rdf:${join(dir, 'world.ttl')}`, viaStore)).code).toBe(0);
    const r = await build(`sparql:${endpoint}`, viaSparql);
    expect(r.code, r.stderr).toBe(0);
    const a = JSON.parse(readFileSync(viaStore, 'utf8')) as Graph;
    const b = JSON.parse(readFileSync(viaSparql, 'utf8')) as Graph;
    expect(a.edges.length).toBe(300);
    expect(new Set(a.nodes.map((n) => n.type))).toEqual(new Set(['country', 'city', 'person', 'river', 'company']));
    // Typed attributes came through both routes alike: dates, numbers with the mapping's units.
    const attrs = a.nodes.flatMap((n) => Object.values(n.attrs));
    expect(attrs.some((v) => v.type === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(v.value))).toBe(true);
    expect(attrs.some((v) => v.type === 'number' && v.unit === 'km2')).toBe(true);
    expect(a.edges.some((e) => e.relation === 'place_of_birth')).toBe(true);
    // Byte for byte: the files differ only in info.kb, which names the route (kind, location, its figures).
    expect(a.info!.kb).toMatchObject({ kind: 'rdf', source: 'Example world', licence: 'CC0-1.0' });
    expect(b.info!.kb).toMatchObject({ kind: 'sparql', location: endpoint, source: 'Example world', licence: 'CC0-1.0' });
    const withoutKb = (g: Graph): string => JSON.stringify({ ...g, info: { ...g.info, kb: undefined } }, null, 2);
    expect(withoutKb(b)).toBe(withoutKb(a));
    expect(b.nodes[0]!.meta.kb_query).toEqual(a.nodes[0]!.meta.kb_query);
  });

  it('says which endpoint and query failed when the endpoint answers an HTML page, and writes nothing', { timeout: 120_000 }, async () => {
    const html = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><html><body>Welcome to nginx!</body></html>');
    });
    const out = join(dir, 'html.json');
    const r = await build(`sparql:${html}`, out);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`SPARQL endpoint ${html}: answered text/html`);
    expect(r.stderr).toContain('query: SELECT ?p ?o WHERE { <http://example.org/e7>');
    expect(existsSync(out)).toBe(false);
  });

  it('gives up on an endpoint that hangs, after its timeout and retries, naming the query', { timeout: 60_000 }, async () => {
    const hang = await serve(() => {}); // never answers
    const kb = new SourcedKb(new SparqlStore(hang, { timeoutMs: 300, retries: 1, backoffMs: 50 }), loadMapping(mappingFile));
    const err = await expandFromSource(kb, { seed: 'ex:e7', maxEdges: 50, rng: 1 }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(new RegExp(`^SPARQL endpoint ${hang.replace(/[.?]/g, '\\$&')}: no answer within 300 ms \\(2 attempts so far\\); query: SELECT \\?p \\?o WHERE \\{ <http://example.org/e7>`));
  });

  it('never writes a half-built graph: an endpoint that fails mid-walk leaves the old file as it was', { timeout: 300_000 }, async () => {
    let answered = 0;
    const flaky = await serve((req, res) => {
      if (++answered > 12) {
        res.writeHead(503, { 'content-type': 'text/plain' });
        res.end('overloaded');
        return;
      }
      void fetch(virtuoso.endpoint + req.url!.slice(req.url!.indexOf('?')), { headers: { accept: 'application/sparql-results+json' } }).then(async (r) => {
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? '' });
        res.end(await r.text());
      });
    });
    const out = join(dir, 'kept.json');
    writeFileSync(out, 'an older graph\n');
    const r = await build(`sparql:${flaky}?default-graph-uri=${encodeURIComponent(GRAPH)}`, out);
    expect(answered).toBeGreaterThan(12); // the walk was under way when the endpoint gave out
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/SPARQL endpoint http:\/\/127\.0\.0\.1:\d+\/sparql\?default-graph-uri=\S+: refused the query: HTTP 503 "overloaded" \(\d+ attempts so far\); query: SELECT/);
    expect(readFileSync(out, 'utf8')).toBe('an older graph\n');
  });
});
