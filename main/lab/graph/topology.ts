// The shape of a subgraph, for balancing samples and for picking question templates.
// Computed on the underlying undirected SIMPLE graph: directions dropped, parallel edges merged,
// self-loops ignored (so a 2-cycle a->b->a is a path, and a self-loop adds nothing). With n nodes,
// m simple edges and c connected components, the cycle rank is m - n + c:
//  - 'dense': cycle rank >= 2 (two or more independent cycles);
//  - 'cycle': cycle rank 1 (exactly one cycle, possibly with trees hanging off it);
//  - 'path':  acyclic, connected, every degree <= 2 (includes a lone node and a single edge);
//  - 'star':  acyclic, connected, one hub adjacent to all other nodes and >= 3 leaves;
//  - 'tree':  any other acyclic graph (also a disconnected forest, which the sampler never returns).
import type { GraphIndex, Subgraph } from './graph-index';
import { localGraph, type LocalGraph } from './local';
import { unionFind } from '../util/union-find';

export type Topology = 'path' | 'star' | 'tree' | 'cycle' | 'dense';
export const TOPOLOGIES: readonly Topology[] = ['path', 'star', 'tree', 'cycle', 'dense'];

export function topologyLocal(g: LocalGraph): Topology {
  const { n } = g;
  const sets = unionFind(n);
  const degree = new Int32Array(n);
  const seen = new Set<number>();
  let m = 0;
  let components = n;
  for (let e = 0; e < g.m; e++) {
    const a = Math.min(g.src[e]!, g.dst[e]!);
    const b = Math.max(g.src[e]!, g.dst[e]!);
    if (a === b || seen.has(a * n + b)) continue;
    seen.add(a * n + b);
    m++;
    degree[a]!++;
    degree[b]!++;
    if (sets.union(a, b)) components--;
  }
  const rank = m - n + components;
  if (rank >= 2) return 'dense';
  if (rank === 1) return 'cycle';
  if (components <= 1) {
    if (degree.every((d) => d <= 2)) return 'path';
    if (n - 1 >= 3 && degree.some((d) => d === n - 1)) return 'star';
  }
  return 'tree';
}

/** Shape of `sub` on its underlying undirected simple graph; see the header for the exact rules. */
export function topologyOf(index: GraphIndex, sub: Subgraph): Topology {
  return topologyLocal(localGraph(index, sub));
}
