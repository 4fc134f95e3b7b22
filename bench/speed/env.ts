// Benchmarks the simulated web and the expert. Run: npx tsx bench/speed/env.ts [G.json] [D.jsonl]
// Without G.json the whole bundled knowledge base is the corpus (one page per entity).
// - search latency p50/p99 (ranking alone, and the full tool with snippets), index build time;
// - the same pages in an SQLite FTS5 table ranked by bm25() when /usr/bin/sqlite3 has FTS5: latency ratio
//   and top-10 overlap (same k1/b; FTS5's idf differs for very common terms, so overlap is not 100%);
// - expert rollouts per second on D.jsonl, or on simple one-hop QAs drawn from the graph.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import type { Graph, QA } from '../../main/lab/formats/index';
import { readGraphFile } from '../../main/lab/kg/io';
import { loadKnowledgeBase } from '../../main/lab/kb/index';
import { createRng } from '../../main/lab/util/rng';
import { readQaDataset } from '../../main/lab/agent/data';
import { simToolset } from '../../main/lab/agent/env';
import { evaluate, sampleFromTrajectory } from '../../main/lab/agent/eval';
import { resolvePolicy } from '../../main/lab/agent/policies';
import { rolloutDataset } from '../../main/lab/agent/rollout';
import { tokenize } from '../../main/lab/agent/text';
import { SimWeb, URL_SCHEME, relationPhrase } from '../../main/lab/agent/web';

const SQLITE = '/usr/bin/sqlite3';
const QUERIES = 500;

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
}

const fmt = (ms: number): string => `${ms < 1 ? ms.toFixed(3) : ms.toFixed(2)} ms`;

/** A mix of what agents type: entity names, "<relation> <name>" phrases, and bags of words from pages. */
function makeQueries(web: SimWeb, graph: Graph, n: number): string[] {
  const rng = createRng(7);
  const names = new Map(graph.nodes.map((x) => [x.id, x.name]));
  const out: string[] = [];
  while (out.length < n) {
    const kind = out.length % 3;
    if (kind === 0) out.push(rng.pick(web.pages).title);
    else if (kind === 1 && graph.edges.length) {
      const e = rng.pick(graph.edges);
      out.push(`${relationPhrase(e.relation)} ${names.get(e.target) ?? ''}`);
    } else {
      const words = tokenize(rng.pick(rng.pick(web.pages).sentences));
      if (words.length) out.push(Array.from({ length: Math.min(3, words.length) }, () => rng.pick(words)).join(' '));
    }
  }
  return out.filter((q) => tokenize(q).length > 0);
}

function sqliteHasFts5(): boolean {
  if (!existsSync(SQLITE)) return false;
  try {
    execFileSync(SQLITE, [':memory:', 'CREATE VIRTUAL TABLE t USING fts5(x);'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;

interface FtsRun {
  buildMs: number;
  latencies: number[]; // per query, CPU ms (user + sys) as reported by .timer
  results: number[][]; // page indices
}

/** The same pages in FTS5 (unicode61, diacritics removed), the same query terms OR-ed, ranked by bm25(). */
function runFts5(web: SimWeb, queries: string[]): FtsRun {
  const dir = mkdtempSync(join(tmpdir(), 'sailor-fts5-'));
  try {
    const db = join(dir, 'pages.db');
    const load = join(dir, 'load.sql');
    const rows = web.pages.map((p) => `INSERT INTO pages(rowid, body) VALUES (${p.index + 1}, ${sqlString(`${p.title}\n${p.sentences.join(' ')}`)});`);
    writeFileSync(load, ["CREATE VIRTUAL TABLE pages USING fts5(body, tokenize = 'unicode61 remove_diacritics 2');", 'BEGIN;', ...rows, 'COMMIT;'].join('\n'));
    const t0 = performance.now();
    execFileSync(SQLITE, [db, `.read ${load}`], { stdio: 'pipe', maxBuffer: 1 << 30 });
    const buildMs = performance.now() - t0;
    const script = join(dir, 'queries.sql');
    const lines = ['.timer on'];
    for (const q of queries) {
      const match = [...new Set(tokenize(q))].map((t) => `"${t}"`).join(' OR ');
      lines.push(`SELECT rowid FROM pages WHERE pages MATCH ${sqlString(match)} ORDER BY bm25(pages) LIMIT 10;`, "SELECT '@@';");
    }
    writeFileSync(script, lines.join('\n'));
    const out = execFileSync(SQLITE, [db, `.read ${script}`], { encoding: 'utf8', maxBuffer: 1 << 30 });
    const latencies: number[] = [];
    const results: number[][] = [];
    let current: number[] = [];
    let expectQueryTime = true;
    for (const line of out.split('\n')) {
      const timer = /^Run Time: real [\d.]+ user ([\d.]+) sys ([\d.]+)/.exec(line);
      if (timer) {
        if (expectQueryTime) {
          latencies.push((Number(timer[1]) + Number(timer[2])) * 1000);
          results.push(current);
          current = [];
        }
        expectQueryTime = !expectQueryTime;
      } else if (/^\d+$/.test(line)) current.push(Number(line) - 1);
    }
    return { buildMs, latencies, results };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One-hop QAs when no dataset is given: "which <type> <relation> <target>?", kept only when unique. */
function oneHopQAs(graph: Graph, n: number): QA[] {
  const rng = createRng(11);
  const nodes = new Map(graph.nodes.map((x) => [x.id, x]));
  const key = (rel: string, target: string, type: string): string => `${rel}\n${target}\n${type}`;
  const count = new Map<string, number>();
  for (const e of graph.edges) {
    const k = key(e.relation, e.target, nodes.get(e.source)?.type ?? '');
    count.set(k, (count.get(k) ?? 0) + 1);
  }
  const unique = graph.edges.filter((e) => count.get(key(e.relation, e.target, nodes.get(e.source)?.type ?? '')) === 1);
  return Array.from({ length: Math.min(n, unique.length) }, (_, i) => {
    const e = rng.pick(unique);
    const s = nodes.get(e.source)!;
    const t = nodes.get(e.target)!;
    return {
      id: `bench-${i}`, question: `Which ${s.type.replace(/_/g, ' ')} ${relationPhrase(e.relation)} ${t.name}?`, answer: s.name, answer_id: s.id,
      aliases: s.aliases, level: 1, graph: 'bench', subgraph: { nodes: [s.id, t.id], edges: [e.id] }, wl_hash: '', orbit: 0, topology: 'path',
      query: { answer: '?a', patterns: [{ s: '?a', rel: e.relation, o: t.id }], filters: [{ var: '?a', attr: 'type', op: 'eq', value: s.type }] },
      obfuscations: [], distractors: [], support: [e.id], candidates: 1,
    };
  });
}

async function main(): Promise<void> {
  const [graphPath, datasetPath] = parseArgs({ allowPositionals: true }).positionals;
  const t0 = performance.now();
  const graph = graphPath ? readGraphFile(graphPath) : await loadKnowledgeBase({ onProgress: (_f, m) => process.stderr.write(`${m}\n`) });
  const loadMs = performance.now() - t0;
  const t1 = performance.now();
  const web = new SimWeb(graph);
  const buildMs = performance.now() - t1;
  const sentences = web.pages.reduce((a, p) => a + p.sentences.length, 0);
  console.log(`corpus: ${graphPath ?? 'bundled knowledge base'}: ${web.pages.length} pages, ${sentences} sentences (graph load ${fmt(loadMs)}, pages + BM25 index ${fmt(buildMs)})`);

  const queries = makeQueries(web, graph, QUERIES);
  for (const q of queries.slice(0, 20)) web.rank(q); // warm-up (JIT)
  const rankMs: number[] = [];
  const mine: number[][] = [];
  for (const q of queries) {
    const s = performance.now();
    mine.push(web.rank(q, 10).map((h) => h.doc));
    rankMs.push(performance.now() - s);
  }
  const fullMs: number[] = [];
  for (const q of queries) {
    const s = performance.now();
    web.search([q]);
    fullMs.push(performance.now() - s);
  }
  console.log(`search (BM25 ranking, top 10) over ${queries.length} queries: p50 ${fmt(percentile(rankMs, 0.5))}, p99 ${fmt(percentile(rankMs, 0.99))}`);
  console.log(`search tool (ranking + snippets + observation text): p50 ${fmt(percentile(fullMs, 0.5))}, p99 ${fmt(percentile(fullMs, 0.99))}`);

  if (sqliteHasFts5()) {
    const fts = runFts5(web, queries);
    const overlaps: number[] = [];
    fts.results.forEach((r, i) => {
      const a = new Set(mine[i]);
      const denom = Math.max(r.length, a.size);
      if (denom > 0) overlaps.push(r.filter((x) => a.has(x)).length / denom);
    });
    const meanOverlap = overlaps.reduce((x, y) => x + y, 0) / Math.max(1, overlaps.length);
    const p50 = percentile(fts.latencies, 0.5);
    const p99 = percentile(fts.latencies, 0.99);
    console.log(`sqlite3 FTS5 bm25(): index ${fmt(fts.buildMs)}; per query (CPU, from .timer) p50 ${fmt(p50)}, p99 ${fmt(p99)}`);
    console.log(
      `latency ratio ours/FTS5: p50 ${(percentile(rankMs, 0.5) / Math.max(p50, 1e-6)).toFixed(2)}, p99 ${(percentile(rankMs, 0.99) / Math.max(p99, 1e-6)).toFixed(2)}; ` +
        `top-10 overlap ${(100 * meanOverlap).toFixed(1)}% over ${overlaps.length} queries (answers in ${fts.results.length}/${queries.length})`,
    );
  } else console.log(`sqlite3 with FTS5 not available at ${SQLITE}: comparison skipped`);

  const qas = datasetPath ? readQaDataset(datasetPath).qas : oneHopQAs(graph, 200);
  const oracle = resolvePolicy('oracle', { anchorName: (id) => web.page(URL_SCHEME + id)?.title });
  const t2 = performance.now();
  const trajs = await rolloutDataset(qas, oracle, simToolset(web), { n: 1, seed: 1 });
  const secs = (performance.now() - t2) / 1000;
  const report = evaluate(trajs.map((t) => sampleFromTrajectory(t)), 1);
  console.log(
    `expert: ${trajs.length} rollouts on ${datasetPath ?? 'one-hop QAs from the graph'} in ${secs.toFixed(2)} s = ${(trajs.length / secs).toFixed(1)} rollouts/s; ` +
      `solved ${(100 * report['pass@1']).toFixed(1)}%, ${report.all.tool_calls_mean.toFixed(1)} tool calls on average`,
  );
}

await main();
