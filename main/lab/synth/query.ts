// Exact evaluation of a `sailor.qa/1` query (see docs/formats.md, 'sailor.qa/1') over a whole graph.
//
// Semantics:
// - terms starting with `?` are variables, anything else is a node id; distinct variables bind to distinct nodes;
// - a pattern {s, rel, o} needs a directed edge s -> o whose relation is exactly `rel`;
// - a filter tests one variable (query-filters.ts: its attributes, ops and how values compare).
// A choice the format leaves open: parallel edges of one relation are one fact.
// Result: the distinct nodes the answer variable takes over all solutions, and the number of solutions
// (complete bindings of every variable).
//
// Method (fast on ~50k-node graphs): domains are materialised most selective first — a type's node list,
// a constant's neighbours, or a numeric/year range from a sorted attribute index — and a variable next to
// a small domain is derived from it by a semi-join instead of scanning. Arc consistency (AC-3, each
// revision from the cheaper side) prunes the rest; then a backtracking search binds the answer first and
// each next variable by connectivity and domain size, generating values from the smallest neighbour list
// of a bound variable. Candidates are exact; solutions are counted up to `maxSolutions`.
import type { Graph, GraphNode, Query, QueryFilter } from '../formats';
import { matchesFilter, yearOf } from './query-filters';

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

export interface QueryResult {
  /** Distinct bindings of the answer variable, sorted. */
  candidates: string[];
  /** Number of solutions (complete bindings), counted up to `maxSolutions`. */
  solutions: number;
  /** True when counting stopped at `maxSolutions`; `candidates` is exact either way. */
  solutionsCapped: boolean;
  /** Domain size of every variable after filtering and arc consistency (an upper bound on its bindings). */
  domains: Record<string, number>;
}

export interface EvaluateOptions {
  /** Stop counting solutions here (candidates stay exact; the rest is an existence search). Default 1e6. */
  maxSolutions?: number;
}

const EMPTY: readonly string[] = [];

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

export const isVar = (term: string): boolean => term.startsWith('?');

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
function rangeCandidates(index: QueryIndex, f: QueryFilter): { from: number; to: number; ids: string[] } | null {
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

interface Pat {
  s: number; // variable index, or -1 when constant
  o: number;
  sc: string; // constant node id when s === -1
  oc: string;
  rel: string;
}

function emptyResult(vars: string[]): QueryResult {
  return { candidates: [], solutions: 0, solutionsCapped: false, domains: Object.fromEntries(vars.map((v) => [v, 0])) };
}

export function evaluateQuery(index: QueryIndex, query: Query, options: EvaluateOptions = {}): QueryResult {
  const maxSolutions = options.maxSolutions ?? 1_000_000;
  // ---- variables and constants
  const varIds = new Map<string, number>();
  const vars: string[] = [];
  const varOf = (t: string): number => {
    let i = varIds.get(t);
    if (i === undefined) {
      i = vars.length;
      varIds.set(t, i);
      vars.push(t);
    }
    return i;
  };
  const answer = varOf(query.answer);
  const pats: Pat[] = [];
  let impossible = false;
  for (const p of query.patterns) {
    const s = isVar(p.s) ? varOf(p.s) : -1;
    const o = isVar(p.o) ? varOf(p.o) : -1;
    if ((s < 0 && !index.nodes.has(p.s)) || (o < 0 && !index.nodes.has(p.o))) impossible = true;
    if (s < 0 && o < 0) {
      if (!index.pairs.get(p.rel)?.has(`${p.s}\n${p.o}`)) impossible = true;
      continue;
    }
    pats.push({ s, o, sc: s < 0 ? p.s : '', oc: o < 0 ? p.o : '', rel: p.rel });
  }
  const filtersOf: QueryFilter[][] = [];
  for (const f of query.filters) {
    const v = varOf(f.var);
    (filtersOf[v] ??= []).push(f);
  }
  // (Only variables must be distinct from each other: a variable may bind to a node also named as a constant.)
  if (impossible) return emptyResult(vars);

  const outOf = (rel: string, node: string): readonly string[] => index.out.get(rel)?.get(node) ?? EMPTY;
  const inOf = (rel: string, node: string): readonly string[] => index.inc.get(rel)?.get(node) ?? EMPTY;
  const hasPair = (rel: string, s: string, o: string): boolean => index.pairs.get(rel)?.has(`${s}\n${o}`) ?? false;

  // ---- unary tests: the variable's filters and its patterns to constants (and self-loops)
  const unaryPats: Pat[][] = vars.map((_, v) => pats.filter((p) => (p.s === v && p.o < 0) || (p.o === v && p.s < 0) || (p.s === v && p.o === v)));
  const unaryOk = (v: number, id: string): boolean => {
    const node = index.nodes.get(id);
    if (!node) return false;
    const nm = index.names.get(id);
    for (const f of filtersOf[v] ?? []) if (!matchesFilter(node, f, nm)) return false;
    for (const p of unaryPats[v]!) {
      const ok = p.s === v && p.o === v ? hasPair(p.rel, id, id) : p.s === v ? hasPair(p.rel, id, p.oc) : hasPair(p.rel, p.sc, id);
      if (!ok) return false;
    }
    return true;
  };
  // The cheapest list a variable's own constraints offer: a type's nodes, a constant's neighbours, or the
  // nodes whose number (or year) falls in a filter's range.
  const sourceCache = new Map<number, readonly string[] | null>();
  const ownSource = (v: number): readonly string[] | null => {
    if (sourceCache.has(v)) return sourceCache.get(v)!;
    let best: readonly string[] | null = null;
    let range: { from: number; to: number; ids: string[] } | null = null;
    const consider = (l: readonly string[]): void => {
      if (!best || l.length < best.length) best = l;
    };
    for (const f of filtersOf[v] ?? []) {
      if (f.attr === 'type' && f.op === 'eq') consider(index.byType.get(String(f.value)) ?? EMPTY);
      const r = rangeCandidates(index, f);
      if (r && (!range || r.to - r.from < range.to - range.from)) range = r;
    }
    for (const p of unaryPats[v]!) {
      if (p.s === v && p.o < 0) consider(inOf(p.rel, p.oc));
      else if (p.o === v && p.s < 0) consider(outOf(p.rel, p.sc));
    }
    const r = range as { from: number; to: number; ids: string[] } | null;
    if (r && (!best || r.to - r.from < (best as readonly string[]).length)) best = r.ids.slice(r.from, r.to);
    sourceCache.set(v, best);
    return best;
  };

  const binary = pats.filter((p) => p.s >= 0 && p.o >= 0 && p.s !== p.o);
  // average fan-out of a relation seen from one end (for choosing the cheaper side of a semi-join)
  const fan = (rel: string, fromSubject: boolean): number => {
    const size = index.pairs.get(rel)?.size ?? 0;
    const keys = (fromSubject ? index.out : index.inc).get(rel)?.size ?? 0;
    return keys ? size / keys : 0;
  };
  // nodes reachable from `from` through p, towards the other end
  const across = (p: Pat, fromSubject: boolean, from: Iterable<string>, v: number): Set<string> => {
    const out = new Set<string>();
    for (const y of from) for (const x of fromSubject ? outOf(p.rel, y) : inOf(p.rel, y)) if (x !== y && !out.has(x) && unaryOk(v, x)) out.add(x);
    return out;
  };

  // ---- materialise domains, most selective first; a variable next to a small domain is derived from
  // it (a semi-join) instead of scanning its own type or the whole graph
  const domains: (Set<string> | null)[] = vars.map(() => null);
  for (let done = 0; done < vars.length; done++) {
    let pick = -1;
    let pickCost = Infinity;
    let pickFrom: { p: Pat; fromSubject: boolean } | null = null;
    for (let v = 0; v < vars.length; v++) {
      if (domains[v]) continue;
      const own = ownSource(v);
      if (own && own.length < pickCost) {
        pick = v;
        pickCost = own.length;
        pickFrom = null;
      }
      for (const p of binary) {
        const u = p.s === v ? p.o : p.o === v ? p.s : -1;
        const du = u >= 0 ? domains[u] : null;
        if (!du) continue;
        const cost = du.size * fan(p.rel, p.o === v);
        if (cost < pickCost) {
          pick = v;
          pickCost = cost;
          pickFrom = { p, fromSubject: p.o === v };
        }
      }
    }
    let dom: Set<string>;
    if (pick >= 0 && pickFrom) {
      dom = across(pickFrom.p, pickFrom.fromSubject, domains[pickFrom.fromSubject ? pickFrom.p.s : pickFrom.p.o]!, pick);
    } else {
      if (pick < 0) {
        // nothing selective left: the smallest set of relation endpoints, else every node
        for (let v = 0; v < vars.length && pick < 0; v++) if (!domains[v]) pick = v;
      }
      let source: Iterable<string> = ownSource(pick) ?? index.ids;
      let size = ownSource(pick)?.length ?? index.ids.length;
      for (const p of binary) {
        const m = p.s === pick ? index.out.get(p.rel) : p.o === pick ? index.inc.get(p.rel) : undefined;
        if (p.s === pick || p.o === pick) {
          const keys = m?.size ?? 0;
          if (keys < size) {
            size = keys;
            source = m ? m.keys() : EMPTY;
          }
        }
      }
      dom = new Set();
      for (const id of source) if (unaryOk(pick, id)) dom.add(id);
    }
    if (dom.size === 0) return emptyResult(vars);
    domains[pick] = dom;
  }
  const D = domains as Set<string>[];

  // ---- arc consistency (AC-3 with a work list), each revision from the cheaper side
  const incident: number[][] = vars.map(() => []);
  binary.forEach((p, i) => {
    incident[p.s]!.push(i);
    incident[p.o]!.push(i);
  });
  const queue: [number, boolean][] = []; // [pattern, revise the subject?]
  const queued = new Set<string>();
  const enqueue = (i: number, subj: boolean): void => {
    const key = `${i}:${subj}`;
    if (!queued.has(key)) {
      queued.add(key);
      queue.push([i, subj]);
    }
  };
  binary.forEach((_, i) => {
    enqueue(i, true);
    enqueue(i, false);
  });
  while (queue.length) {
    const [i, subj] = queue.shift()!;
    queued.delete(`${i}:${subj}`);
    const p = binary[i]!;
    const v = subj ? p.s : p.o;
    const u = subj ? p.o : p.s;
    const dv = D[v]!;
    const du = D[u]!;
    const before = dv.size;
    if (du.size * fan(p.rel, !subj) < dv.size * fan(p.rel, subj)) {
      // supporters from the other side
      const keep = new Set<string>();
      for (const y of du) for (const x of subj ? inOf(p.rel, y) : outOf(p.rel, y)) if (x !== y && dv.has(x)) keep.add(x);
      D[v] = keep;
    } else {
      for (const x of dv) if (!(subj ? outOf(p.rel, x) : inOf(p.rel, x)).some((y) => y !== x && du.has(y))) dv.delete(x);
    }
    if (D[v]!.size === 0) return emptyResult(vars);
    if (D[v]!.size < before) for (const j of incident[v]!) enqueue(j, binary[j]!.s !== v);
  }
  const domainSizes = Object.fromEntries(vars.map((v, i) => [v, D[i]!.size]));

  // ---- variable order: answer first, then connected & smallest domain
  const order: number[] = [answer];
  const placed = new Set<number>([answer]);
  while (order.length < vars.length) {
    let best = -1;
    let bestKey = Infinity;
    for (let v = 0; v < vars.length; v++) {
      if (placed.has(v)) continue;
      const connected = binary.some((p) => (p.s === v && placed.has(p.o)) || (p.o === v && placed.has(p.s)));
      const key = (connected ? 0 : 1e12) + D[v]!.size;
      if (key < bestKey) {
        bestKey = key;
        best = v;
      }
    }
    order.push(best);
    placed.add(best);
  }
  // patterns checked when each variable gets bound: those whose other end is bound earlier
  const position = new Map(order.map((v, i) => [v, i]));
  const links: { rel: string; other: number; forward: boolean }[][] = order.map((v) =>
    binary
      .filter((p) => (p.s === v && position.get(p.o)! < position.get(v)!) || (p.o === v && position.get(p.s)! < position.get(v)!))
      .map((p) => (p.s === v ? { rel: p.rel, other: p.o, forward: true } : { rel: p.rel, other: p.s, forward: false })),
  );

  const value: string[] = new Array<string>(vars.length).fill('');
  const used = new Set<string>();
  let solutions = 0;
  let capped = false;

  // Returns the number of solutions found below this depth (stops at the first one when `existence`).
  const search = (depth: number, existence: boolean): number => {
    if (depth === order.length) return 1;
    const v = order[depth]!;
    const dom = D[v]!;
    const ls = links[depth]!;
    let gen: Iterable<string> = dom;
    if (ls.length > 0) {
      let bestLen = Infinity;
      for (const l of ls) {
        const bound = value[l.other]!;
        const list = l.forward ? inOf(l.rel, bound) : outOf(l.rel, bound);
        if (list.length < bestLen) {
          bestLen = list.length;
          gen = list;
        }
      }
    }
    let found = 0;
    for (const x of gen) {
      if (used.has(x) || !dom.has(x)) continue;
      let ok = true;
      for (const l of ls) {
        const bound = value[l.other]!;
        if (!(l.forward ? hasPair(l.rel, x, bound) : hasPair(l.rel, bound, x))) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      value[v] = x;
      used.add(x);
      const n = search(depth + 1, existence || solutions + found >= maxSolutions);
      used.delete(x);
      found += n;
      if (n > 0 && (existence || solutions + found >= maxSolutions)) {
        if (!existence) capped = true;
        return found;
      }
    }
    return found;
  };

  const candidates: string[] = [];
  for (const a of D[answer]!) {
    value[answer] = a;
    used.add(a);
    const n = search(1, capped || solutions >= maxSolutions);
    used.delete(a);
    if (n > 0) {
      candidates.push(a);
      solutions += n;
      if (solutions >= maxSolutions) capped = true;
    }
  }
  candidates.sort();
  return { candidates, solutions: Math.min(solutions, maxSolutions), solutionsCapped: capped, domains: domainSizes };
}
