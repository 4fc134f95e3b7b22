// Knowledge graphs: the list, the open graph with its lookup tables, and graph-building jobs.
// Graphs are bulk data: they sit in shallowRefs (never deep-reactive) and parsed views are cached by id.
import { defineStore } from 'pinia';
import { markRaw } from 'vue';
import type { JobParamsInput, GraphView } from '@contract';
import type { GraphEdge, GraphNode } from '@formats';
import { lab } from '../api/client';
import { useArtefacts } from './opened';
import { colorMap } from '../util/palette';
import { useJobLauncher } from './jobs';

/** Lookup tables over one graph, built once when it is opened. */
export interface GraphIndex {
  byId: Map<string, GraphNode>;
  edgeById: Map<string, GraphEdge>;
  /** Edges leaving / entering each node. */
  out: Map<string, GraphEdge[]>;
  inc: Map<string, GraphEdge[]>;
  /** Highest `meta.found_at_step` over nodes and edges (0 when the graph has no step metadata). */
  maxStep: number;
  /** Node types, most frequent first, with their counts and colours. */
  types: Array<{ type: string; count: number; color: string }>;
  colorOf: Map<string, string>;
  cycle: Set<string>;
  /** Lower-cased name and aliases per node, for the entity search. */
  search: Array<{ node: GraphNode; keys: string[] }>;
}

export interface LoadedGraph {
  view: GraphView;
  index: GraphIndex;
}

export function stepOf(meta: Record<string, unknown>): number {
  const s = meta.found_at_step;
  return typeof s === 'number' && Number.isFinite(s) ? s : 0;
}

export function buildIndex(view: GraphView): GraphIndex {
  const { nodes, edges } = view.graph;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const edgeById = new Map(edges.map((e) => [e.id, e]));
  const out = new Map<string, GraphEdge[]>();
  const inc = new Map<string, GraphEdge[]>();
  let maxStep = 0;
  for (const n of nodes) maxStep = Math.max(maxStep, stepOf(n.meta));
  for (const e of edges) {
    maxStep = Math.max(maxStep, stepOf(e.meta));
    (out.get(e.source) ?? out.set(e.source, []).get(e.source)!).push(e);
    (inc.get(e.target) ?? inc.set(e.target, []).get(e.target)!).push(e);
  }
  const counts = new Map<string, number>();
  for (const n of nodes) counts.set(n.type, (counts.get(n.type) ?? 0) + 1);
  const ordered = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const colorOf = colorMap(ordered.map(([t]) => t));
  return {
    byId,
    edgeById,
    out,
    inc,
    maxStep,
    types: ordered.map(([type, count]) => ({ type, count, color: colorOf.get(type)! })),
    colorOf,
    cycle: new Set(view.cycleEdges),
    search: nodes.map((node) => ({ node, keys: [node.name, ...node.aliases].map((s) => s.toLowerCase()) })),
  };
}

/** Up to `limit` nodes whose name or an alias matches: exact, then prefix, then word-start, then substring. */
export function searchNodes(index: GraphIndex, text: string, limit = 8): GraphNode[] {
  const q = text.trim().toLowerCase();
  if (!q) return [];
  const scored: Array<{ node: GraphNode; score: number }> = [];
  for (const { node, keys } of index.search) {
    let best = Infinity;
    for (const [i, k] of keys.entries()) {
      const alias = i > 0 ? 0.5 : 0;
      if (k === q) best = Math.min(best, 0 + alias);
      else if (k.startsWith(q)) best = Math.min(best, 1 + alias);
      else if (k.includes(` ${q}`) || k.includes(`-${q}`)) best = Math.min(best, 2 + alias);
      else if (k.includes(q)) best = Math.min(best, 3 + alias);
    }
    if (best < Infinity) scored.push({ node, score: best });
  }
  scored.sort((a, b) => a.score - b.score || a.node.name.length - b.node.name.length || a.node.name.localeCompare(b.node.name));
  return scored.slice(0, limit).map((s) => s.node);
}

/** Parsed graphs kept in memory (a 20k-edge graph is tens of MB once indexed). */
const CACHE_GRAPHS = 4;

export const useGraph = defineStore('graph', () => {
  const artefacts = useArtefacts('graphs.list', (id: string): Promise<LoadedGraph> => fetchGraph(id));
  const { load, currentId, open } = artefacts;

  // Parsed graphs by id (not reactive: only `current` drives the UI). Layout positions are kept per
  // graph too, so reopening a graph does not lay it out again.
  const cache = new Map<string, Promise<LoadedGraph>>();
  const positions = markRaw(new Map<string, Map<string, { x: number; y: number }>>());

  // A finished build (this window's or another's) lists the new graph; this window's opens it.
  const builder = useJobLauncher('kg.build', async (job, mine) => {
    await load();
    if (mine) await open(job.id);
  });
  const buildJob = builder.job;
  const building = builder.running;
  const buildError = builder.error;
  const buildIssues = builder.issues;

  /** A graph with its index, fetched once per id. */
  function fetchGraph(id: string): Promise<LoadedGraph> {
    let hit = cache.get(id);
    if (hit) {
      // Most recently used last, so the trim below drops the graph looked at longest ago.
      cache.delete(id);
      cache.set(id, hit);
    } else {
      hit = lab()
        .call('graphs.get', { id })
        .then((view) => ({ view, index: buildIndex(view) }));
      hit.catch(() => cache.delete(id));
      cache.set(id, hit);
      for (const old of cache.keys()) {
        if (cache.size <= CACHE_GRAPHS) break;
        if (old === currentId.value || old === id) continue;
        cache.delete(old);
        positions.delete(old);
      }
    }
    return hit;
  }

  async function build(params: JobParamsInput<'kg.build'>): Promise<void> {
    await builder.start({ ...params });
  }

  return {
    ...artefacts,
    buildJob,
    building,
    buildError,
    buildIssues,
    positions,
    fetchGraph,
    build,
  };
});

/** What the explorer's side panel shows. */
export interface Selection {
  kind: 'node' | 'edge';
  id: string;
}
