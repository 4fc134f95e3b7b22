// Summary figures of a graph, as `sailor kg stats` prints them (docs/formats.md, 'Command-line contract').
import type { Graph, GraphStats } from '../formats/index';
import { unionFind } from '../util/union-find';

function countSorted(values: Iterable<string>): Record<string, number> {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const out: Record<string, number> = {};
  for (const key of [...counts.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) out[key] = counts.get(key)!;
  return out;
}

/** Number of connected components by union-find; edges to unknown nodes are ignored. */
export function countComponents(nodeIds: readonly string[], edges: readonly { source: string; target: string }[]): number {
  const index = new Map<string, number>();
  nodeIds.forEach((id, i) => index.set(id, i));
  const sets = unionFind(nodeIds.length);
  let components = index.size;
  for (const e of edges) {
    const a = index.get(e.source);
    const b = index.get(e.target);
    if (a === undefined || b === undefined) continue;
    if (sets.union(a, b)) components--;
  }
  return components;
}

export function graphStats(graph: Graph): GraphStats {
  const ids = graph.nodes.map((n) => n.id);
  const components = countComponents(ids, graph.edges);
  return {
    nodes: graph.nodes.length,
    edges: graph.edges.length,
    components,
    cycle_rank: graph.edges.length - graph.nodes.length + components,
    types: countSorted(graph.nodes.map((n) => n.type)),
    relations: countSorted(graph.edges.map((e) => e.relation)),
  };
}
