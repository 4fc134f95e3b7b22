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
// Method (fast on ~50k-node graphs, over query-index.ts), in phases that each return a typed record:
// 1. compileQuery numbers the variables, the answer first;
// 2. UnaryTests holds each variable's own constraints and the cheapest list they offer (a type's nodes,
//    a constant's neighbours, or a numeric/year range from a sorted attribute index);
// 3. materialiseDomains builds the domains most selective first, deriving a variable next to a small domain
//    from it by a semi-join instead of scanning;
// 4. arcConsistency (AC-3, each revision from the cheaper side) prunes the rest;
// 5. searchPlan orders the variables: the answer first, then by connectivity and domain size;
// 6. countSolutions backtracks, generating values from the smallest neighbour list of a bound variable.
// Candidates are exact; solutions are counted up to `maxSolutions`.
import type { Query, QueryFilter } from '../formats';
import { matchesFilter } from './query-filters';
import { EMPTY, hasPair, inOf, outOf, rangeCandidates, type QueryIndex } from './query-index';

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

export const isVar = (term: string): boolean => term.startsWith('?');

/** A pattern with its variables numbered: `s`/`o` a variable's index, or -1 for a constant (then `sc`/`oc` is its node id). */
interface Pat {
  s: number;
  o: number;
  sc: string;
  oc: string;
  rel: string;
}

/** The query with its variables numbered (the answer first) and its patterns split by what they constrain. */
interface CompiledQuery {
  vars: string[];
  answer: number;
  /** Patterns with at least one variable (constant-to-constant ones are checked while compiling). */
  pats: Pat[];
  /** Patterns between two distinct variables: the joins. */
  binary: Pat[];
  filtersOf: QueryFilter[][];
  /** A constant that is not in the graph, or a constant-to-constant pattern that is not a fact. */
  impossible: boolean;
}

/** A variable's candidate nodes; after arc consistency, an upper bound on its bindings. */
type Domains = Set<string>[];

/** A pattern checked when a variable is bound, against `other`, a variable bound before it. */
interface Link {
  rel: string;
  other: number;
  /** The variable being bound is the pattern's subject. */
  forward: boolean;
}

/** The order the search binds variables in (the answer first), and the links checked at each depth. */
interface SearchPlan {
  order: number[];
  links: Link[][];
}

/** What the search found: the answer's values, and the solutions counted up to the cap. */
interface Count {
  candidates: string[];
  solutions: number;
  capped: boolean;
}

function emptyResult(vars: string[]): QueryResult {
  return { candidates: [], solutions: 0, solutionsCapped: false, domains: Object.fromEntries(vars.map((v) => [v, 0])) };
}

export function evaluateQuery(index: QueryIndex, query: Query, options: EvaluateOptions = {}): QueryResult {
  const q = compileQuery(index, query);
  if (q.impossible) return emptyResult(q.vars);
  const unary = new UnaryTests(index, q);
  const domains = materialiseDomains(index, q, unary);
  if (!domains || !arcConsistency(index, q.binary, domains)) return emptyResult(q.vars);
  const domainSizes = Object.fromEntries(q.vars.map((v, i) => [v, domains[i]!.size]));
  const plan = searchPlan(q, domains);
  const { candidates, solutions, capped } = countSolutions(index, q.answer, domains, plan, options.maxSolutions ?? 1_000_000);
  return { candidates, solutions, solutionsCapped: capped, domains: domainSizes };
}

/** Phase 1: number the variables, the answer first, and check the patterns that name two constants. */
function compileQuery(index: QueryIndex, query: Query): CompiledQuery {
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
      if (!hasPair(index, p.rel, p.s, p.o)) impossible = true;
      continue;
    }
    pats.push({ s, o, sc: s < 0 ? p.s : '', oc: o < 0 ? p.o : '', rel: p.rel });
  }
  const filtersOf: QueryFilter[][] = [];
  for (const f of query.filters) (filtersOf[varOf(f.var)] ??= []).push(f);
  // (Only variables must be distinct from each other: a variable may bind to a node also named as a constant.)
  const binary = pats.filter((p) => p.s >= 0 && p.o >= 0 && p.s !== p.o);
  return { vars, answer, pats, binary, filtersOf, impossible };
}

/**
 * Phase 2: each variable's own constraints (its filters, its patterns to constants and its self-loops) as a
 * test of one node, and the cheapest list of nodes they offer.
 */
class UnaryTests {
  private readonly unaryPats: Pat[][];
  private readonly sources = new Map<number, readonly string[] | null>();

  constructor(private readonly index: QueryIndex, private readonly q: CompiledQuery) {
    this.unaryPats = q.vars.map((_, v) => q.pats.filter((p) => (p.s === v && p.o < 0) || (p.o === v && p.s < 0) || (p.s === v && p.o === v)));
  }

  /** Whether node `id` passes variable `v`'s own constraints. */
  ok(v: number, id: string): boolean {
    const index = this.index;
    const node = index.nodes.get(id);
    if (!node) return false;
    const nm = index.names.get(id);
    for (const f of this.q.filtersOf[v] ?? []) if (!matchesFilter(node, f, nm)) return false;
    for (const p of this.unaryPats[v]!) {
      const ok = p.s === v && p.o === v ? hasPair(index, p.rel, id, id) : p.s === v ? hasPair(index, p.rel, id, p.oc) : hasPair(index, p.rel, p.sc, id);
      if (!ok) return false;
    }
    return true;
  }

  /**
   * The shortest list the variable's own constraints offer (a superset of its nodes): a type's nodes, a
   * constant's neighbours, or the nodes whose number (or year) falls in a filter's range; null when none does.
   */
  source(v: number): readonly string[] | null {
    if (this.sources.has(v)) return this.sources.get(v)!;
    const index = this.index;
    let best: readonly string[] | null = null;
    let range: { from: number; to: number; ids: string[] } | null = null;
    for (const f of this.q.filtersOf[v] ?? []) {
      if (f.attr === 'type' && f.op === 'eq') best = shorter(best, index.byType.get(String(f.value)) ?? EMPTY);
      const r = rangeCandidates(index, f);
      if (r && (!range || r.to - r.from < range.to - range.from)) range = r;
    }
    for (const p of this.unaryPats[v]!) {
      if (p.s === v && p.o < 0) best = shorter(best, inOf(index, p.rel, p.oc));
      else if (p.o === v && p.s < 0) best = shorter(best, outOf(index, p.rel, p.sc));
    }
    if (range && (!best || range.to - range.from < best.length)) best = range.ids.slice(range.from, range.to);
    this.sources.set(v, best);
    return best;
  }
}

const shorter = (best: readonly string[] | null, list: readonly string[]): readonly string[] => (!best || list.length < best.length ? list : best);

/** Average fan-out of a relation seen from one end (to choose the cheaper side of a semi-join). */
function fan(index: QueryIndex, rel: string, fromSubject: boolean): number {
  const size = index.pairs.get(rel)?.size ?? 0;
  const keys = (fromSubject ? index.out : index.inc).get(rel)?.size ?? 0;
  return keys ? size / keys : 0;
}

/**
 * Phase 3: every variable's domain, most selective first. A variable next to a small domain is derived from it
 * (a semi-join) instead of scanning its own type or the whole graph. null when a domain is empty.
 */
function materialiseDomains(index: QueryIndex, q: CompiledQuery, unary: UnaryTests): Domains | null {
  const domains: (Set<string> | null)[] = q.vars.map(() => null);
  for (let done = 0; done < q.vars.length; done++) {
    let pick = -1;
    let pickCost = Infinity;
    let pickFrom: { p: Pat; fromSubject: boolean } | null = null;
    for (let v = 0; v < q.vars.length; v++) {
      if (domains[v]) continue;
      const own = unary.source(v);
      if (own && own.length < pickCost) {
        pick = v;
        pickCost = own.length;
        pickFrom = null;
      }
      for (const p of q.binary) {
        const u = p.s === v ? p.o : p.o === v ? p.s : -1;
        const du = u >= 0 ? domains[u] : null;
        if (!du) continue;
        const cost = du.size * fan(index, p.rel, p.o === v);
        if (cost < pickCost) {
          pick = v;
          pickCost = cost;
          pickFrom = { p, fromSubject: p.o === v };
        }
      }
    }
    let dom: Set<string>;
    if (pick >= 0 && pickFrom) {
      const { p, fromSubject } = pickFrom;
      dom = across(index, unary, p, fromSubject, domains[fromSubject ? p.s : p.o]!, pick);
    } else {
      // nothing selective left: the first variable still open, from the smallest set of relation endpoints
      if (pick < 0) pick = domains.findIndex((d) => !d);
      dom = scan(index, q, unary, pick);
    }
    if (dom.size === 0) return null;
    domains[pick] = dom;
  }
  return domains as Domains;
}

/** The nodes reachable through `p` from the nodes `from` (at its subject when `fromSubject`) that pass `v`'s tests. */
function across(index: QueryIndex, unary: UnaryTests, p: Pat, fromSubject: boolean, from: Iterable<string>, v: number): Set<string> {
  const out = new Set<string>();
  for (const y of from) for (const x of fromSubject ? outOf(index, p.rel, y) : inOf(index, p.rel, y)) if (x !== y && !out.has(x) && unary.ok(v, x)) out.add(x);
  return out;
}

/** The nodes of `v`'s shortest list (its own source, a relation's endpoints, else every node) that pass its tests. */
function scan(index: QueryIndex, q: CompiledQuery, unary: UnaryTests, v: number): Set<string> {
  let source: Iterable<string> = unary.source(v) ?? index.ids;
  let size = unary.source(v)?.length ?? index.ids.length;
  for (const p of q.binary) {
    if (p.s !== v && p.o !== v) continue;
    const m = p.s === v ? index.out.get(p.rel) : index.inc.get(p.rel);
    const keys = m?.size ?? 0;
    if (keys < size) {
      size = keys;
      source = m ? m.keys() : EMPTY;
    }
  }
  const dom = new Set<string>();
  for (const id of source) if (unary.ok(v, id)) dom.add(id);
  return dom;
}

/**
 * Phase 4: arc consistency (AC-3 with a work list) over the joins, each revision from the cheaper side.
 * Narrows `domains` in place; false when one empties.
 */
function arcConsistency(index: QueryIndex, binary: Pat[], domains: Domains): boolean {
  const incident: number[][] = domains.map(() => []);
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
    const dv = domains[v]!;
    const du = domains[subj ? p.o : p.s]!;
    const before = dv.size;
    if (du.size * fan(index, p.rel, !subj) < dv.size * fan(index, p.rel, subj)) {
      // supporters from the other side
      const keep = new Set<string>();
      for (const y of du) for (const x of subj ? inOf(index, p.rel, y) : outOf(index, p.rel, y)) if (x !== y && dv.has(x)) keep.add(x);
      domains[v] = keep;
    } else {
      for (const x of dv) if (!(subj ? outOf(index, p.rel, x) : inOf(index, p.rel, x)).some((y) => y !== x && du.has(y))) dv.delete(x);
    }
    if (domains[v]!.size === 0) return false;
    if (domains[v]!.size < before) for (const j of incident[v]!) enqueue(j, binary[j]!.s !== v);
  }
  return true;
}

/** Phase 5: the answer first, then the connected variable with the smallest domain; the links each one checks. */
function searchPlan(q: CompiledQuery, domains: Domains): SearchPlan {
  const order: number[] = [q.answer];
  const placed = new Set<number>([q.answer]);
  while (order.length < q.vars.length) {
    let best = -1;
    let bestKey = Infinity;
    for (let v = 0; v < q.vars.length; v++) {
      if (placed.has(v)) continue;
      const connected = q.binary.some((p) => (p.s === v && placed.has(p.o)) || (p.o === v && placed.has(p.s)));
      const key = (connected ? 0 : 1e12) + domains[v]!.size;
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
  const links = order.map((v) =>
    q.binary
      .filter((p) => (p.s === v && position.get(p.o)! < position.get(v)!) || (p.o === v && position.get(p.s)! < position.get(v)!))
      .map((p): Link => (p.s === v ? { rel: p.rel, other: p.o, forward: true } : { rel: p.rel, other: p.s, forward: false })),
  );
  return { order, links };
}

/**
 * Phase 6: a backtracking search per value of the answer, generating each next value from the shortest
 * neighbour list of a bound variable. Counts solutions up to `maxSolutions`, then only asks whether one exists.
 */
function countSolutions(index: QueryIndex, answer: number, domains: Domains, plan: SearchPlan, maxSolutions: number): Count {
  const { order, links } = plan;
  const value: string[] = new Array<string>(order.length).fill('');
  const used = new Set<string>();
  let solutions = 0;
  let capped = false;

  // Returns the number of solutions found below this depth (stops at the first one when `existence`).
  const search = (depth: number, existence: boolean): number => {
    if (depth === order.length) return 1;
    const v = order[depth]!;
    const dom = domains[v]!;
    const ls = links[depth]!;
    let gen: Iterable<string> = dom;
    if (ls.length > 0) {
      let bestLen = Infinity;
      for (const l of ls) {
        const bound = value[l.other]!;
        const list = l.forward ? inOf(index, l.rel, bound) : outOf(index, l.rel, bound);
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
        if (!(l.forward ? hasPair(index, l.rel, x, bound) : hasPair(index, l.rel, bound, x))) {
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
  for (const a of domains[answer]!) {
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
  return { candidates, solutions: Math.min(solutions, maxSolutions), capped };
}
