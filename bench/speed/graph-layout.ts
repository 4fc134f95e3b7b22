// The force layout's time on large graphs, in Node, repulsion by the grid and by the quadtree
// (util/forceLayout.ts, util/quadRepulsion.ts), one after the other per graph; the grid is stopped after
// --cap seconds and its full time extrapolated from the iterations done. Graph files as bench/speed/graph-view.ts
// caches them (`sailor kg build --rng 7 --max-edges N`, or the synthesised 50000-edge graph).
// Also prints how alike the two pictures are: the mean edge length and the mean distance to the nearest node,
// in units of k (the ideal edge length).
// Run: npx tsx bench/speed/graph-layout.ts FILE... [--cap 120]
import { parseArgs } from 'node:util';
import { readGraphFile } from '../../main/lab/kg/io';
import { createForceLayout, type LayoutInput } from '../../renderer/src/util/forceLayout';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { cap: { type: 'string', default: '120' } } });
const K = 60;

/** Runs the layout to the end or for `capMs`; the fraction of its iterations done and the positions. */
function run(input: LayoutInput, capMs: number): { ms: number; fraction: number; x: Float64Array; y: Float64Array } {
  const layout = createForceLayout(input);
  const t0 = performance.now();
  while (layout.step() && performance.now() - t0 < capMs);
  const ms = performance.now() - t0;
  const pos = layout.positions();
  const x = new Float64Array(input.ids.map((id) => pos.get(id)!.x));
  const y = new Float64Array(input.ids.map((id) => pos.get(id)!.y));
  return { ms, fraction: layout.progress, x, y };
}

/** Mean edge length and mean nearest-neighbour distance, in k. */
function shape(input: LayoutInput, x: Float64Array, y: Float64Array): { edge: number; nearest: number } {
  const index = new Map(input.ids.map((id, i) => [id, i]));
  let sum = 0;
  for (const [s, t] of input.edges) sum += Math.hypot(x[index.get(s)!]! - x[index.get(t)!]!, y[index.get(s)!]! - y[index.get(t)!]!);
  // A sample of 500 nodes, brute force.
  let near = 0;
  const m = Math.min(500, x.length);
  for (let a = 0; a < m; a++) {
    const i = Math.floor((a * x.length) / m);
    let best = Infinity;
    for (let j = 0; j < x.length; j++) if (j !== i) best = Math.min(best, Math.hypot(x[i]! - x[j]!, y[i]! - y[j]!));
    near += best;
  }
  return { edge: sum / input.edges.length / K, nearest: near / m / K };
}

const capMs = Number(values.cap) * 1000;
console.log('file\tnodes\tedges\trepulsion\tseconds\titerations done\tfull layout s (extrapolated)\tmean edge / k\tmean nearest / k');
for (const file of positionals) {
  const g = readGraphFile(file);
  const input: LayoutInput = { ids: g.nodes.map((n) => n.id), edges: g.edges.map((e): [string, string] => [e.source, e.target]), seed: 'bench', k: K };
  for (const repulsion of ['quadtree', 'grid'] as const) {
    const r = run({ ...input, repulsion }, capMs);
    const s = shape(input, r.x, r.y);
    console.log([file.split('/').at(-1), g.nodes.length, g.edges.length, repulsion, (r.ms / 1000).toFixed(1), `${(r.fraction * 100).toFixed(0)} %`, (r.ms / 1000 / r.fraction).toFixed(1), s.edge.toFixed(2), s.nearest.toFixed(2)].join('\t'));
  }
}
