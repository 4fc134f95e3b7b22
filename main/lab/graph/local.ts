// A subgraph (or the whole graph) copied into dense local indices 0..n-1, the shape that WL hashing,
// orbits and topology work on. Only the structure and the labels are kept: node `type`, edge `relation`
// and direction. Local order follows `sub.nodes` / `sub.edges`; every algorithm on top of it is
// order-invariant, and the tests check that.
import { LabError } from '../base/errors';
import type { GraphIndex, Subgraph } from './graph-index';

export interface LocalGraph {
  n: number;
  m: number;
  ids: string[]; // local node index -> node id
  types: string[]; // local node index -> node type
  src: Int32Array; // local edge index -> local source node
  dst: Int32Array; // local edge index -> local target node
  rels: string[]; // local edge index -> relation
}

export function localGraph(index: GraphIndex, sub?: Subgraph): LocalGraph {
  if (!sub) {
    const { nodes, edges } = index.graph;
    return {
      n: nodes.length,
      m: edges.length,
      ids: nodes.map((x) => x.id),
      types: nodes.map((x) => x.type),
      src: index.edgeSrc,
      dst: index.edgeDst,
      rels: edges.map((e) => e.relation),
    };
  }
  const local = new Map<string, number>();
  const types: string[] = [];
  for (const id of sub.nodes) {
    const node = index.node(id);
    if (!node) throw new LabError('bad_request', `subgraph: unknown node '${id}'`);
    if (local.has(id)) throw new LabError('bad_request', `subgraph: node '${id}' listed twice`);
    local.set(id, local.size);
    types.push(node.type);
  }
  const src = new Int32Array(sub.edges.length);
  const dst = new Int32Array(sub.edges.length);
  const rels: string[] = [];
  const seen = new Set<string>();
  sub.edges.forEach((id, j) => {
    const edge = index.edge(id);
    if (!edge) throw new LabError('bad_request', `subgraph: unknown edge '${id}'`);
    if (seen.has(id)) throw new LabError('bad_request', `subgraph: edge '${id}' listed twice`);
    seen.add(id);
    const s = local.get(edge.source);
    const t = local.get(edge.target);
    if (s === undefined || t === undefined) {
      throw new LabError('bad_request', `subgraph: edge '${id}' joins a node that is not in the subgraph`);
    }
    src[j] = s;
    dst[j] = t;
    rels.push(edge.relation);
  });
  return { n: sub.nodes.length, m: sub.edges.length, ids: [...sub.nodes], types, src, dst, rels };
}

/** Dense ranks of the distinct labels in code-unit order: an id-independent numbering of labels. */
export function labelRanks(labels: readonly string[]): { rank: Int32Array; count: number } {
  const distinct = [...new Set(labels)].sort();
  const of = new Map(distinct.map((l, i) => [l, i]));
  return { rank: Int32Array.from(labels, (l) => of.get(l)!), count: distinct.length };
}
