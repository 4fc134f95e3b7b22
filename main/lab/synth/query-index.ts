// The index `evaluateQuery` (query.ts) solves queries over: nodes by id and type, each relation's distinct
// facts from either end, lower-cased names, and sorted attribute values for range filters. Built once per
// graph; parallel edges of one relation are one fact.
import type { Graph, GraphNode, QueryFilter } from '../formats';
import { yearOf } from './query-filters';

export interface QueryIndex {
  nodes: Map<string, GraphNode>;
  ids: string[];
  byType: Map<string, string[]>;
  /** relation -> source -> distinct targets */
  out: Map<string, Map<string, string[]>>;
  /** relation -> target -> distinct sources */
  inc: Map<string, Map<string, string[]>>;
  /** relation -> set of `${source}\n${target}` */
  pairs: Map<string, Set<string>>;
  /** lower-cased name and aliases per node */
  names: Map<string, string[]>;
  /** attribute -> nodes sorted by the attribute's number (or a date's year); built on first use */
  ranges: Map<string, { keys: Float64Array; ids: string[] }>;
}

export const EMPTY: readonly string[] = [];

export function buildQueryIndex(graph: Graph): QueryIndex {
  const nodes = new Map<string, GraphNode>();
  const byType = new Map<string, string[]>();
  const names = new Map<string, string[]>();
  for (const n of graph.nodes) {
    nodes.set(n.id, n);
    let list = byType.get(n.type);
    if (!list) byType.set(n.type, (list = []));
    list.push(n.id);
    names.set(n.id, [n.name, ...n.aliases].map((s) => s.toLowerCase()));
  }
  const out = new Map<string, Map<string, string[]>>();
  const inc = new Map<string, Map<string, string[]>>();
  const pairs = new Map<string, Set<string>>();
  for (const e of graph.edges) {
    let set = pairs.get(e.relation);
    if (!set) pairs.set(e.relation, (set = new Set()));
    const key = `${e.source}\n${e.target}`;
    if (set.has(key)) continue; // parallel edges of one relation are one fact
    set.add(key);
    push(out, e.relation, e.source, e.target);
    push(inc, e.relation, e.target, e.source);
  }
  return { nodes, ids: graph.nodes.map((n) => n.id), byType, out, inc, pairs, names, ranges: new Map() };
}

function push(m: Map<string, Map<string, string[]>>, rel: string, a: string, b: string): void {
  let byNode = m.get(rel);
  if (!byNode) m.set(rel, (byNode = new Map()));
  const list = byNode.get(a);
  if (list) list.push(b);
  else byNode.set(a, [b]);
}

/** The distinct targets of `node` through `rel`. */
export const outOf = (index: QueryIndex, rel: string, node: string): readonly string[] => index.out.get(rel)?.get(node) ?? EMPTY;
/** The distinct sources pointing at `node` through `rel`. */
export const inOf = (index: QueryIndex, rel: string, node: string): readonly string[] => index.inc.get(rel)?.get(node) ?? EMPTY;
export const hasPair = (index: QueryIndex, rel: string, s: string, o: string): boolean => index.pairs.get(rel)?.has(`${s}\n${o}`) ?? false;

function rangeIndex(index: QueryIndex, attr: string): { keys: Float64Array; ids: string[] } {
  let r = index.ranges.get(attr);
  if (!r) {
    const rows: [number, string][] = [];
    for (const [id, n] of index.nodes) {
      const a = n.attrs[attr];
      const key = !a ? NaN : a.type === 'number' ? a.value : a.type === 'date' ? yearOf(a.value) : NaN;
      if (Number.isFinite(key)) rows.push([key, id]);
    }
    rows.sort((x, y) => x[0] - y[0]);
    r = { keys: Float64Array.from(rows, (x) => x[0]), ids: rows.map((x) => x[1]) };
    index.ranges.set(attr, r);
  }
  return r;
}

/** First position whose key is >= x (strict: > x). */
function bound(keys: Float64Array, x: number, strict: boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid]! < x || (strict && keys[mid]! === x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The nodes that can pass a numeric comparison on an attribute (numbers by value, dates by year), from
 * the sorted range index: a superset the filter itself then confirms. null when the filter is not numeric.
 */
export function rangeCandidates(index: QueryIndex, f: QueryFilter): { from: number; to: number; ids: string[] } | null {
  if (f.attr === 'name' || f.attr === 'type') return null;
  let lo = -Infinity;
  let hi = Infinity;
  let loStrict = false;
  let hiStrict = false;
  if (f.op === 'between' && Array.isArray(f.value)) [lo, hi] = f.value;
  else if (typeof f.value !== 'number') return null;
  // (no `eq`: a number also equals a string attribute that spells it, which this index does not hold)
  else if (f.op === 'lt') [hi, hiStrict] = [f.value, true];
  else if (f.op === 'gt') [lo, loStrict] = [f.value, true];
  else return null;
  const r = rangeIndex(index, f.attr);
  const from = lo === -Infinity ? 0 : bound(r.keys, lo, loStrict);
  const to = hi === Infinity ? r.keys.length : bound(r.keys, hi, !hiStrict);
  return { from, to: Math.max(from, to), ids: r.ids };
}
