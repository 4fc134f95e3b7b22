// An in-memory index over a knowledge-base graph (the bundled one or a small hand-built one): node by
// id, incident edges of a node in both directions, connected components, and a name lookup. This is
// what graph expansion walks on; it never copies the graph.
import type { Graph, GraphEdge, GraphNode } from '../formats/index';
import { nameKey } from './text';

export interface KbIndex {
  readonly graph: Graph;
  /** `info.kb_version` of the graph, or 'custom' for a hand-built one. */
  readonly version: string;
  node(id: string): GraphNode | undefined;
  /** Edges that touch the node, in either direction, in the graph's edge order. */
  incident(id: string): readonly GraphEdge[];
  degree(id: string): number;
  /** Component number of the node over the undirected graph (0 is the largest component). */
  component(id: string): number;
  /** Node ids whose name or an alias matches (accents, case and punctuation ignored). */
  lookupName(name: string): readonly string[];
}

/** The endpoint of `edge` that is not `id` (for a self loop: `id`). */
export function otherEnd(edge: GraphEdge, id: string): string {
  return edge.source === id ? edge.target : edge.source;
}

function components(graph: Graph): Map<string, number> {
  const parent = new Map<string, string>();
  for (const n of graph.nodes) parent.set(n.id, n.id);
  const find = (x: string): string => {
    let root = x;
    while (parent.get(root) !== root) root = parent.get(root)!;
    while (parent.get(x) !== root) {
      const next = parent.get(x)!;
      parent.set(x, root);
      x = next;
    }
    return root;
  };
  for (const e of graph.edges) {
    if (!parent.has(e.source) || !parent.has(e.target)) continue;
    const a = find(e.source);
    const b = find(e.target);
    if (a !== b) parent.set(a, b);
  }
  const sizes = new Map<string, number>();
  for (const n of graph.nodes) sizes.set(find(n.id), (sizes.get(find(n.id)) ?? 0) + 1);
  // Number components by size, largest first; ties by first node order so numbering is stable.
  const firstSeen = new Map<string, number>();
  graph.nodes.forEach((n, i) => {
    const r = find(n.id);
    if (!firstSeen.has(r)) firstSeen.set(r, i);
  });
  const roots = [...sizes.keys()].sort((a, b) => sizes.get(b)! - sizes.get(a)! || firstSeen.get(a)! - firstSeen.get(b)!);
  const label = new Map(roots.map((r, i) => [r, i]));
  const out = new Map<string, number>();
  for (const n of graph.nodes) out.set(n.id, label.get(find(n.id))!);
  return out;
}

export function createKbIndex(graph: Graph): KbIndex {
  const nodes = new Map<string, GraphNode>();
  for (const n of graph.nodes) nodes.set(n.id, n);
  const incident = new Map<string, GraphEdge[]>();
  for (const e of graph.edges) {
    for (const end of e.source === e.target ? [e.source] : [e.source, e.target]) {
      const list = incident.get(end);
      if (list) list.push(e);
      else incident.set(end, [e]);
    }
  }
  const comp = components(graph);
  let names: Map<string, string[]> | undefined; // built on first lookup: most callers never need it
  const nameIndex = (): Map<string, string[]> => {
    if (names) return names;
    names = new Map();
    for (const n of graph.nodes) {
      for (const text of new Set([n.name, ...n.aliases])) {
        const key = nameKey(text);
        if (key === '') continue;
        const list = names.get(key);
        if (!list) names.set(key, [n.id]);
        else if (!list.includes(n.id)) list.push(n.id);
      }
    }
    return names;
  };
  const empty: readonly GraphEdge[] = [];
  const version = typeof graph.info?.kb_version === 'string' ? graph.info.kb_version : 'custom';
  return {
    graph,
    version,
    node: (id) => nodes.get(id),
    incident: (id) => incident.get(id) ?? empty,
    degree: (id) => incident.get(id)?.length ?? 0,
    component: (id) => comp.get(id) ?? -1,
    lookupName: (name) => nameIndex().get(nameKey(name)) ?? [],
  };
}
