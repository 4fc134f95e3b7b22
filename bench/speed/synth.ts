// Synthesis throughput: connected subgraphs sampled + WL-hashed per second (main/lab/graph), against
// networkx.weisfeiler_lehman_graph_hash on the very same subgraphs when python3 has networkx.
// Run: npx tsx bench/speed/synth.ts [G.json] [--nodes N] [--seconds S] [--min-edges A] [--max-edges B] [--rng R]
// Without G.json it builds a random labelled multigraph of N nodes (default 3000) with cycle-closing edges.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Graph } from '../../main/lab/formats/index';
import { buildIndex, type GraphIndex, type Subgraph } from '../../main/lab/graph/graph-index';
import { wlHash } from '../../main/lab/graph/wl';
import { sampleSubgraph } from '../../main/lab/graph/sample';
import { synthesize } from '../../main/lab/synth/build';
import { measureVerifyRate } from '../../main/lab/synth/dataset';
import { readGraphFile } from '../../main/lab/kg/io';
import { createRng, type Rng } from '../../main/lab/util/rng';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    nodes: { type: 'string', default: '3000' },
    seconds: { type: 'string', default: '2' },
    'min-edges': { type: 'string', default: '3' },
    'max-edges': { type: 'string', default: '10' },
    rng: { type: 'string', default: '1' },
  },
});
const seconds = Number(values.seconds);
const minEdges = Number(values['min-edges']);
const maxEdges = Number(values['max-edges']);

/** A random labelled multigraph shaped like a KG: preferential attachment (hubs) plus cycle-closing edges. */
function randomGraph(rng: Rng, n: number): Graph {
  const types = ['person', 'company', 'city', 'country', 'award', 'university', 'film', 'event'];
  const rels = ['founded', 'born_in', 'located_in', 'capital_of', 'won', 'studied_at', 'works_at', 'directed', 'acted_in', 'held_in', 'part_of', 'married_to'];
  const g: Graph = { format: 'sailor.graph/1', nodes: [], edges: [] };
  for (let i = 0; i < n; i++) g.nodes.push({ id: `n${i}`, type: rng.pick(types), name: `N${i}`, aliases: [], attrs: {}, meta: {} });
  const ends: number[] = [0];
  const edge = (s: number, t: number): void => {
    g.edges.push({ id: `e${g.edges.length}`, source: `n${s}`, target: `n${t}`, relation: rng.pick(rels), meta: {} });
    ends.push(s, t);
  };
  for (let i = 1; i < n; i++) (rng.next() < 0.5 ? edge : (a: number, b: number) => edge(b, a))(i, rng.pick(ends));
  // Close short cycles (V2 looks for them): join a node to a neighbour of a neighbour.
  const index = buildIndex(g);
  for (let k = 0; k < Math.floor(0.6 * n); k++) {
    const a = rng.int(n);
    const nb = index.neighbourIdx(a);
    if (nb.length === 0) continue;
    const b = nb[rng.int(nb.length)]!;
    const nb2 = index.neighbourIdx(b);
    const c = nb2[rng.int(nb2.length)]!;
    if (c !== a) edge(a, c);
  }
  return g;
}

function timeLoop(budgetS: number, step: () => void): { count: number; seconds: number } {
  const t0 = performance.now();
  let count = 0;
  while (performance.now() - t0 < budgetS * 1000) {
    for (let i = 0; i < 50; i++) step();
    count += 50;
  }
  return { count, seconds: (performance.now() - t0) / 1000 };
}

// ------------------------------------------------------------------------------------------------------
// QAs verified per second: synthesise a dataset on the graph (timed as "QAs synthesised"), then re-verify
// every query over the whole graph for the budget (candidates == 1 and equal to answer_id).
// ------------------------------------------------------------------------------------------------------
export type RateReport = (what: string, count: number, seconds: number) => void;
export async function benchQaVerify(graph: Graph, _index: GraphIndex, rng: Rng, budgetS: number, report: RateReport): Promise<void> {
  const t0 = performance.now();
  const { qas } = synthesize(graph, { count: 100, rng: rng.int(2 ** 31), graphName: 'bench' });
  if (qas.length === 0) {
    console.log(`${'QAs verified'.padEnd(34)}   (no QA could be synthesised on this graph: give a kg build graph file)`);
    return;
  }
  report('QAs synthesised (sample..verify)', qas.length, (performance.now() - t0) / 1000);
  const { verified, seconds, allUnique } = measureVerifyRate(graph, qas, { minSeconds: budgetS });
  report(`QAs verified${allUnique ? '' : ' (SOME NOT UNIQUE!)'}`, verified, seconds);
}

const rng = createRng(Number(values.rng));
const graph = positionals[0] ? readGraphFile(positionals[0]) : randomGraph(rng, Number(values.nodes));
const tIndex = performance.now();
const index = buildIndex(graph);
console.log(`graph: ${graph.nodes.length} nodes, ${graph.edges.length} edges${positionals[0] ? ` (${positionals[0]})` : ' (random)'}; index ${(performance.now() - tIndex).toFixed(0)} ms`);
console.log(`subgraphs: ${minEdges}-${maxEdges} edges, random restartProb/cycleProb per walk, WL 3 rounds, ~${seconds}s per phase, ${new Date().toISOString()}`);

const rate = (what: string, count: number, s: number): number => {
  const r = count / s;
  console.log(`${what.padEnd(34)} ${r.toFixed(0).padStart(9)} /s  (${count} in ${s.toFixed(2)} s)`);
  return r;
};

// 1. Sampled + hashed, the pipeline's inner loop. Keep the subgraphs for the hash-only comparison.
const kept: Subgraph[] = [];
const hashes: string[] = [];
const sampled = timeLoop(seconds, () => {
  const sub = sampleSubgraph(index, rng, { minEdges, maxEdges, restartProb: rng.next() * 0.5, cycleProb: rng.next() * 0.6 });
  if (!sub) return;
  hashes.push(wlHash(index, sub));
  if (kept.length < 20000) kept.push(sub);
});
const rSampled = rate('sampled + WL-hashed (TS)', sampled.count, sampled.seconds);
console.log(`  ${new Set(hashes).size} distinct hashes among ${hashes.length}`);

// 2. Hash only, on the kept subgraphs (what networkx is timed on).
let i = 0;
const hashOnly = timeLoop(seconds, () => {
  wlHash(index, kept[i++ % kept.length]);
});
const rHash = rate('WL-hashed only (TS)', hashOnly.count, hashOnly.seconds);

// 3. QAs verified per second (hook above).
let qaReported = false;
await benchQaVerify(graph, index, rng, seconds, (what, count, s) => {
  qaReported = true;
  rate(what, count, s);
});
if (!qaReported) console.log(`${'QAs verified'.padEnd(34)}   (not measured yet: fill benchQaVerify)`);

// 4. networkx on the same subgraphs.
const probe = spawnSync('python3', ['-c', 'import networkx; print(networkx.__version__)'], { encoding: 'utf8' });
if (probe.status !== 0) {
  console.log('networkx: not available (python3 -c "import networkx" failed); skipped');
} else {
  const dir = mkdtempSync(join(tmpdir(), 'sailor-bench-'));
  try {
    const n = Math.min(kept.length, 5000);
    // One subgraph per line: [[source, target, relation], ...] plus node types. Parallel edges become one
    // DiGraph edge whose label is the sorted relations joined, so nx sees the same labels we do.
    const lines = kept.slice(0, n).map((sub) => {
      const types = Object.fromEntries(sub.nodes.map((id) => [id, index.node(id)!.type]));
      const edges = sub.edges.map((id) => {
        const e = index.edge(id)!;
        return [e.source, e.target, e.relation];
      });
      return JSON.stringify({ types, edges });
    });
    writeFileSync(join(dir, 'subgraphs.jsonl'), lines.join('\n') + '\n');
    writeFileSync(
      join(dir, 'nx_wl.py'),
      `import json, sys, time, warnings, networkx as nx
warnings.filterwarnings("ignore")  # nx >= 3.5 warns that directed hashes changed (in/out now separate)
subs = [json.loads(l) for l in open(sys.argv[1])]
graphs = []
for s in subs:
    g = nx.DiGraph()
    for node, t in s["types"].items():
        g.add_node(node, type=t)
    rels = {}
    for a, b, r in s["edges"]:
        rels.setdefault((a, b), []).append(r)
    for (a, b), rs in rels.items():
        g.add_edge(a, b, rel="|".join(sorted(rs)))
    graphs.append(g)
budget = float(sys.argv[2])
t0 = time.perf_counter(); count = 0; hashes = []
while time.perf_counter() - t0 < budget:
    for g in graphs:
        h = nx.weisfeiler_lehman_graph_hash(g, node_attr="type", edge_attr="rel", iterations=3)
        if count < len(graphs): hashes.append(h)
        count += 1
print(json.dumps({"count": count, "seconds": time.perf_counter() - t0, "hashes": hashes, "version": nx.__version__}))
`,
    );
    const out = execFileSync('python3', [join(dir, 'nx_wl.py'), join(dir, 'subgraphs.jsonl'), String(seconds)], { encoding: 'utf8' });
    const res = JSON.parse(out) as { count: number; seconds: number; hashes: string[]; version: string };
    const rNx = rate(`WL-hashed only (networkx ${res.version})`, res.count, res.seconds);
    // Do both split the same subgraphs into the same classes? (Same idea, different label encodings.)
    const ours = hashes.slice(0, res.hashes.length);
    const pairs = new Map<string, string>();
    let agree = 0;
    ours.forEach((h, k) => pairs.set(h, `${pairs.get(h) ?? ''}|${res.hashes[k]}`));
    for (const [, v] of pairs) if (new Set(v.split('|').slice(1)).size === 1) agree++;
    console.log(`  distinct: ${new Set(ours).size} ours, ${new Set(res.hashes).size} networkx over ${ours.length}; ${agree}/${pairs.size} of our classes map to one nx hash`);
    console.log(`ratio: TS hash-only / networkx = ${(rHash / rNx).toFixed(1)}x; TS sample+hash / networkx hash-only = ${(rSampled / rNx).toFixed(1)}x`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
