// Question synthesis (PIPELINE 3): sampled subgraph -> orbit-balanced answer -> formal query + template
// prose with injected uncertainty -> exact verification over the whole graph -> tighten until unique.
//
// Per structurally distinct subgraph (one per WL hash, from the graph module's balanced sampler) the
// builder makes one QA per automorphism orbit, so every structural role (hub, leaf, node on a cycle) is
// an answer once; a group is published only when all its orbits succeed. When the remaining count is
// smaller than the next group, it adds extra QAs on already complete shapes, always for the (hash, orbit)
// pair used least so far, so coverage stays even. Orbits are numbered canonically per hash (by the
// members' WL colour), so `orbit` means the same role in every instance of one shape.
//
// Query: the answer is `?a`; every other subgraph node is a variable (or, once anchored, a named
// constant); each subgraph edge is a pattern; every variable has a `type eq` filter (the prose says
// "a country"); obfuscations add the filters and patterns they imply. Verification evaluates the query on
// the whole graph; it must give exactly one candidate, the answer. When it is ambiguous the builder
// tightens (adds a constraint on the most open variable, narrows a range, or names a non-answer entity)
// at most `maxTighten` times.
//
// Level rule (PIPELINE 0), documented here because it is ours:
//   open  = the fewest candidates any SINGLE constraint on the answer leaves (one non-type filter on ?a,
//           or one pattern from ?a to a named constant, each together with ?a's type); the number of
//           nodes of the answer's type when no constraint touches ?a directly;
//   hops  = the answer's eccentricity in the subgraph (undirected);
//   obf   = the number of injected obfuscation fragments (distractors included).
//   Level 1 when open <= 1 (one lookup settles it);
//   Level 3 when open >= 3 and (the subgraph has a cycle, or hops >= 2 and obf >= 2);
//   Level 2 otherwise.
//
// Rejection reasons counted in the stats:
//   duplicate_hash         a sampled subgraph whose WL hash was already used;
//   ambiguous              still more than one candidate after `maxTighten` steps;
//   no_usable_attrs        ambiguous, and no tightening move applies (nothing left to add, narrow or name);
//   leaked_answer          the prose names the answer or an alias (fragments that would are dropped first
//                          and counted as fragments_dropped_for_leak);
//   duplicate_question     the same prose as a QA already published;
//   inconsistent           the answer is not among the candidates (a guard; never expected);
//   orbit_group_incomplete QAs discarded because another orbit of the same shape failed;
//   group_too_large        shapes never used because they have more orbits than QAs still needed.
import type { Graph, GraphEdge, GraphNode, Obfuscation, QA, Query, QueryFilter, QueryPattern } from '../formats';
import { LabError } from '../errors';
import { buildIndex, type GraphIndex, type Subgraph } from '../graph/graph-index';
import { orbits } from '../graph/orbits';
import type { Topology } from '../graph/topology';
import { sampleDistinct } from '../graph/sample';
import { localGraph } from '../graph/local';
import { wlColours } from '../graph/wl';
import { createRng, seedFrom, type Rng } from '../util/rng';
import {
  OBFUSCATION_KINDS,
  describeByAttr,
  description,
  distractor,
  implicitOrder,
  mentionsAny,
  multiConstraint,
  numericRange,
  partialName,
  vagueTime,
  type Constraint,
  type ObfuscationKind,
} from './obfuscate';
import { buildQueryIndex, evaluateQuery, isVar, type QueryIndex, type QueryResult } from './query';
import { renderQuestion, type REdge, type REntity } from './render';

// ---------------------------------------------------------------- options

export const DEFAULT_KIND_PROBS: Record<ObfuscationKind, number> = {
  vague_time: 0.6,
  numeric_range: 0.5,
  partial_name: 0.3,
  description: 0.4,
  multi_constraint: 0.25,
  implicit_order: 0.3,
  distractor: 0.3,
};

export interface SynthOptions {
  /** QAs to publish. */
  count: number;
  /** Seed of every random choice. */
  rng: number;
  /** Recorded in each QA's `graph` field. */
  graphName: string;
  /** Obfuscation kinds allowed. */
  kinds: ObfuscationKind[];
  /** Chance of each kind being injected into a QA (the least used kind so far is always tried first). */
  probs: Record<ObfuscationKind, number>;
  /** Obfuscation fragments injected up front (tightening may add up to `maxTighten` more). */
  maxConstraints: number;
  /** Tightening steps per QA before it is rejected as ambiguous. */
  maxTighten: number;
  minEdges: number;
  maxEdges: number;
  /** Chance of naming one non-answer entity up front (otherwise only tightening names entities). */
  anchorProb: number;
  /**
   * Subgraphs kept per WL hash (default 1: every QA a new shape). More gives many QAs of one shape on
   * other entities: the volume a lookup curriculum of 1-edge questions needs, since a graph has few 1-edge shapes.
   */
  perShape: number;
  /** Edge ids no QA's subgraph may use: the facts of another split (a held-out set disjoint from its training set). */
  excludeEdges?: ReadonlySet<string>;
  onProgress?: (p: { published: number; target: number; attempts: number }) => void;
}

export type SynthInput = Partial<Omit<SynthOptions, 'probs'>> & { count: number; probs?: Partial<Record<ObfuscationKind, number>> };

export function resolveOptions(input: SynthInput): SynthOptions {
  const o: SynthOptions = {
    count: input.count,
    rng: input.rng ?? 1,
    graphName: input.graphName ?? 'graph',
    kinds: input.kinds ?? [...OBFUSCATION_KINDS],
    probs: { ...DEFAULT_KIND_PROBS, ...(input.probs ?? {}) },
    maxConstraints: input.maxConstraints ?? 3,
    maxTighten: input.maxTighten ?? 6,
    minEdges: input.minEdges ?? 2,
    maxEdges: input.maxEdges ?? 6,
    anchorProb: input.anchorProb ?? 0.35,
    perShape: input.perShape ?? 1,
    excludeEdges: input.excludeEdges,
    onProgress: input.onProgress,
  };
  const bad = (m: string): never => {
    throw new LabError('bad_request', m);
  };
  if (!Number.isInteger(o.count) || o.count < 0) bad(`count must be a whole number >= 0, got ${o.count}`);
  if (!Number.isInteger(o.maxConstraints) || o.maxConstraints < 0) bad(`maxConstraints must be a whole number >= 0`);
  if (!Number.isInteger(o.maxTighten) || o.maxTighten < 0) bad(`maxTighten must be a whole number >= 0`);
  if (!Number.isInteger(o.perShape) || o.perShape < 1) bad(`perShape must be a whole number >= 1, got ${o.perShape}`);
  if (!(o.anchorProb >= 0 && o.anchorProb <= 1)) bad(`anchorProb must be in [0, 1], got ${o.anchorProb}`);
  if (!Number.isInteger(o.minEdges) || o.minEdges < 1 || !Number.isInteger(o.maxEdges) || o.maxEdges < o.minEdges)
    bad(`edge range must satisfy 1 <= minEdges <= maxEdges, got ${o.minEdges}..${o.maxEdges}`);
  for (const k of o.kinds) if (!(OBFUSCATION_KINDS as readonly string[]).includes(k)) bad(`unknown obfuscation kind '${k}'`);
  for (const [k, p] of Object.entries(o.probs)) if (!(p >= 0 && p <= 1)) bad(`probability of ${k} must be in [0, 1], got ${p}`);
  return o;
}

// ---------------------------------------------------------------- orbits

/** Orbits of `sub` in a canonical order for its shape: by the members' WL colour, then size. */
export function canonicalOrbits(index: GraphIndex, sub: Subgraph): string[][] {
  const local = localGraph(index, sub);
  const colours = wlColours(local, Math.max(3, local.n));
  const colourOf = new Map(local.ids.map((id, i) => [id, colours[i]!]));
  return orbits(index, sub)
    .map((o) => ({ o, key: colourOf.get(o[0]!)! }))
    .sort((a, b) => a.key - b.key || a.o.length - b.o.length)
    .map((x) => x.o);
}

/** Per-(hash, orbit) answer counters; `choose` returns a least used orbit (random among ties). */
export class OrbitBalancer {
  private readonly counts = new Map<string, number[]>();

  countsOf(hash: string, orbitCount: number): number[] {
    let c = this.counts.get(hash);
    if (!c) this.counts.set(hash, (c = []));
    while (c.length < orbitCount) c.push(0);
    return c;
  }

  choose(hash: string, orbitCount: number, rng: Rng): number {
    const c = this.countsOf(hash, orbitCount).slice(0, orbitCount);
    const min = Math.min(...c);
    const ties = c.flatMap((n, i) => (n === min ? [i] : []));
    return rng.pick(ties);
  }

  record(hash: string, orbit: number): void {
    const c = this.countsOf(hash, orbit + 1);
    c[orbit]!++;
  }

  /** Shapes seen, their orbits, and how many of those orbits have at least one QA. */
  coverage(): { hashes: number; orbits: number; covered: number } {
    let orbitsTotal = 0;
    let covered = 0;
    for (const c of this.counts.values()) {
      orbitsTotal += c.length;
      covered += c.filter((n) => n > 0).length;
    }
    return { hashes: this.counts.size, orbits: orbitsTotal, covered };
  }
}

// ---------------------------------------------------------------- one QA

export interface Instance {
  sub: Subgraph;
  hash: string;
  topology: Topology;
  nodes: GraphNode[];
  edges: GraphEdge[];
  nodeSet: Set<string>;
  orbits: string[][];
}

export function makeInstance(index: GraphIndex, sub: Subgraph & { hash: string; topology: Topology }): Instance {
  return {
    sub: { nodes: sub.nodes, edges: sub.edges },
    hash: sub.hash,
    topology: sub.topology,
    nodes: sub.nodes.map((id) => index.node(id)!),
    edges: sub.edges.map((id) => index.edge(id)!),
    nodeSet: new Set(sub.nodes),
    orbits: canonicalOrbits(index, sub),
  };
}

export type RejectReason =
  | 'ambiguous'
  | 'leaked_answer'
  | 'no_usable_attrs'
  | 'duplicate_question'
  | 'inconsistent';

export type Draft = {
  inst: Instance;
  answer: GraphNode;
  answerNames: string[];
  vars: Map<string, string>; // node id -> variable
  constants: Set<string>; // subgraph nodes named in the prose
  constraints: Constraint[];
  used: Set<string>; // keys of attributes / links already used
};

export interface Context {
  graph: Graph;
  index: GraphIndex;
  qindex: QueryIndex;
  opts: SynthOptions;
  kindCounts: Record<string, number>;
  counters: { fragmentsLeaked: number; tightenSteps: number };
  /** (attr, lower-cased value) -> how many nodes have it; built on first use. */
  categories?: Map<string, number>;
}

export function makeContext(graph: Graph, opts: SynthOptions, index = buildIndex(graph), qindex = buildQueryIndex(graph)): Context {
  return {
    graph,
    index,
    qindex,
    opts,
    kindCounts: Object.fromEntries(OBFUSCATION_KINDS.map((k) => [k, 0])),
    counters: { fragmentsLeaked: 0, tightenSteps: 0 },
  };
}

type Made = { ok: true; qa: Omit<QA, 'id'>; tighten: number } | { ok: false; reason: RejectReason };

const varName = (i: number): string => (i < 26 ? `?${String.fromCharCode(97 + i)}` : `?v${i}`);

function distances(inst: Instance, from: string): Map<string, number> {
  const dist = new Map([[from, 0]]);
  const queue = [from];
  for (let i = 0; i < queue.length; i++) {
    const u = queue[i]!;
    for (const e of inst.edges) {
      const w = e.source === u ? e.target : e.target === u ? e.source : null;
      if (w !== null && !dist.has(w)) {
        dist.set(w, dist.get(u)! + 1);
        queue.push(w);
      }
    }
  }
  return dist;
}

export function toQuery(d: Draft): Query {
  const term = (id: string): string => (d.constants.has(id) ? id : d.vars.get(id)!);
  const patterns: QueryPattern[] = d.inst.edges.map((e) => ({ s: term(e.source), rel: e.relation, o: term(e.target) }));
  const filters: QueryFilter[] = [];
  for (const n of d.inst.nodes) if (!d.constants.has(n.id)) filters.push({ var: d.vars.get(n.id)!, attr: 'type', op: 'eq', value: n.type });
  for (const c of d.constraints) {
    filters.push(...c.filters);
    patterns.push(...c.patterns);
  }
  const seen = new Set<string>();
  const uniq = <T>(xs: T[]): T[] =>
    xs.filter((x) => {
      const k = JSON.stringify(x);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  return { answer: d.vars.get(d.answer.id)!, patterns: uniq(patterns), filters: uniq(filters) };
}

export function renderDraft(d: Draft, rng: Rng): string {
  const nodeOfVar = new Map([...d.vars].map(([id, v]) => [v, id]));
  const entities: REntity[] = d.inst.nodes.map((n) => ({
    id: n.id,
    type: n.type,
    name: d.constants.has(n.id) ? n.name : undefined,
    clauses: [],
    remarks: [],
  }));
  const byId = new Map(entities.map((e) => [e.id, e]));
  for (const c of d.constraints) {
    const e = byId.get(nodeOfVar.get(c.var) ?? '');
    if (!e) continue;
    if (c.remark) e.remarks.push(c.remark);
    if (c.clause) e.clauses.push(c.clause);
  }
  const edges: REdge[] = d.inst.edges.map((e) => ({ s: e.source, o: e.target, rel: e.relation }));
  return renderQuestion(d.inst.topology, entities, edges, d.answer.id, rng);
}

/** Text of a constraint as it can appear in the prose (for the leak check). */
function constraintText(c: Constraint): string {
  return `${c.clause} ${c.remark ? c.remark('it') : ''}`;
}

const SINGLE_KINDS: ObfuscationKind[] = ['vague_time', 'numeric_range', 'partial_name', 'description', 'implicit_order'];

/** Candidates of `v` under one constraint alone (plus the node's type): how open that constraint leaves it. */
function openUnder(ctx: Context, v: string, type: string, filters: QueryFilter[], patterns: QueryPattern[]): number {
  const q: Query = {
    answer: v,
    patterns: patterns.filter((p) => (p.s === v && !isVar(p.o)) || (p.o === v && !isVar(p.s))),
    filters: [{ var: v, attr: 'type', op: 'eq', value: type }, ...filters.filter((f) => f.var === v)],
  };
  return evaluateQuery(ctx.qindex, q, { maxSolutions: 1 }).candidates.length;
}

/**
 * A string attribute is categorical when at least 3 nodes share its value (case-insensitive) and the value
 * is short: "Northern Africa", "yes", "medium" — not an identifier, code or description.
 */
function isCategorical(ctx: Context, node: GraphNode, attr: string): boolean {
  const a = node.attrs[attr];
  if (!a || a.type !== 'string' || a.value.length > 40) return false;
  if (!ctx.categories) {
    ctx.categories = new Map();
    for (const n of ctx.graph.nodes) {
      for (const [k, x] of Object.entries(n.attrs)) {
        if (x.type !== 'string' || x.value.length > 40) continue;
        const key = `${k}\n${x.value.trim().toLowerCase()}`;
        ctx.categories.set(key, (ctx.categories.get(key) ?? 0) + 1);
      }
    }
  }
  return (ctx.categories.get(`${attr}\n${a.value.trim().toLowerCase()}`) ?? 0) >= 3;
}

/** Does this constraint on the answer pin it down on its own (with the answer's type)? */
function decisiveOnAnswer(ctx: Context, d: Draft, c: Constraint): boolean {
  const a = d.vars.get(d.answer.id)!;
  if (c.var !== a || (c.filters.length === 0 && c.patterns.length === 0)) return false;
  return openUnder(ctx, a, d.answer.type, c.filters, c.patterns) <= 1;
}

/** Tries to build one constraint of `kind` on subgraph node `nodeId`. Marks what it used. */
function tryKind(ctx: Context, d: Draft, kind: ObfuscationKind, nodeId: string, rng: Rng): Constraint | null {
  const node = ctx.index.node(nodeId)!;
  const v = d.vars.get(nodeId)!;
  const attrsOf = (t: 'date' | 'number'): string[] =>
    rng.shuffle(Object.keys(node.attrs).filter((a) => node.attrs[a]!.type === t && !d.used.has(`${nodeId}.${a}`)));
  const outside = (): { edgeId: string; relation: string; neighbour: GraphNode; direction: 'out' | 'in' }[] => {
    const links: { edgeId: string; relation: string; neighbour: GraphNode; direction: 'out' | 'in' }[] = [];
    for (const e of ctx.index.outEdges(nodeId))
      links.push({ edgeId: e.id, relation: e.relation, neighbour: ctx.index.node(e.target)!, direction: 'out' });
    for (const e of ctx.index.inEdges(nodeId))
      links.push({ edgeId: e.id, relation: e.relation, neighbour: ctx.index.node(e.source)!, direction: 'in' });
    return links.filter((l) => !d.inst.nodeSet.has(l.neighbour.id) && !d.used.has(`link:${l.edgeId}`));
  };
  let c: Constraint | null = null;
  let keys: string[] = [];
  switch (kind) {
    case 'vague_time':
      for (const a of attrsOf('date')) {
        c = vagueTime(v, node, a, rng);
        keys = [`${nodeId}.${a}`];
        if (c) break;
      }
      break;
    case 'numeric_range':
      for (const a of attrsOf('number')) {
        c = numericRange(v, node, a, rng);
        keys = [`${nodeId}.${a}`];
        if (c) break;
      }
      break;
    case 'partial_name':
      if (!d.used.has(`${nodeId}.name`)) {
        c = partialName(v, node, rng);
        keys = [`${nodeId}.name`];
      }
      break;
    case 'description': {
      // by category (a string attribute many nodes share) or by a relation to a named neighbour
      const cats = Object.keys(node.attrs).filter((a) => isCategorical(ctx, node, a) && !d.used.has(`${nodeId}.${a}`));
      const links = outside();
      if (cats.length && (!links.length || rng.next() < 0.5)) {
        const a = rng.pick(cats);
        c = describeByAttr(v, node, a);
        keys = [`${nodeId}.${a}`];
      } else if (links.length) {
        const l = rng.pick(links);
        c = description(v, node, l);
        keys = [`link:${l.edgeId}`];
      }
      break;
    }
    case 'implicit_order': {
      const dates = attrsOf('date');
      if (!dates.length) break;
      // Reference entities: related ones first (outside neighbours of the subgraph, named constants).
      const refs: GraphNode[] = [];
      for (const n of d.inst.nodes) {
        if (d.constants.has(n.id)) refs.push(n);
        for (const w of ctx.index.neighbours(n.id)) if (!d.inst.nodeSet.has(w)) refs.push(ctx.index.node(w)!);
      }
      const withDates = rng.shuffle(refs.filter((r) => r.id !== d.answer.id && r.id !== nodeId && Object.values(r.attrs).some((a) => a.type === 'date')));
      for (const ref of withDates.slice(0, 12)) {
        const rAttrs = Object.keys(ref.attrs).filter((a) => ref.attrs[a]!.type === 'date');
        c = implicitOrder(v, node, dates[0]!, { node: ref, attr: rng.pick(rAttrs) });
        keys = [`${nodeId}.${dates[0]!}`];
        if (c && !mentionsAny(constraintText(c), d.answerNames)) break;
        c = null;
      }
      break;
    }
    case 'multi_constraint': {
      // Two conditions on one entity, neither of which alone narrows it to a single node.
      for (let tries = 0; tries < 4 && !c; tries++) {
        const [k1, k2] = rng.shuffle(SINGLE_KINDS.filter((k) => k !== 'implicit_order'));
        const before = new Set(d.used);
        const p1 = tryKind(ctx, d, k1!, nodeId, rng);
        const p2 = p1 ? tryKind(ctx, d, k2!, nodeId, rng) : null;
        const added = [...d.used].filter((k) => !before.has(k));
        for (const k of added) d.used.delete(k);
        if (!p1 || !p2) continue;
        const alone = [p1, p2].map((p) => openUnder(ctx, v, node.type, p.filters, p.patterns));
        if (alone.every((n) => n > 1)) {
          c = multiConstraint([p1, p2]);
          keys = added;
        }
      }
      break;
    }
    case 'distractor': {
      // Another node of the same type sharing a neighbour through the same relation and direction.
      const options: { other: GraphNode; relation: string; neighbour: GraphNode; direction: 'out' | 'in' }[] = [];
      for (const e of ctx.index.outEdges(nodeId)) {
        for (const f of ctx.index.inEdges(e.target)) {
          if (f.relation === e.relation && f.source !== nodeId) {
            const o = ctx.index.node(f.source)!;
            if (o.type === node.type) options.push({ other: o, relation: e.relation, neighbour: ctx.index.node(e.target)!, direction: 'out' });
          }
        }
      }
      for (const e of ctx.index.inEdges(nodeId)) {
        for (const f of ctx.index.outEdges(e.source)) {
          if (f.relation === e.relation && f.target !== nodeId) {
            const o = ctx.index.node(f.target)!;
            if (o.type === node.type) options.push({ other: o, relation: e.relation, neighbour: ctx.index.node(e.source)!, direction: 'in' });
          }
        }
      }
      const usable = options.filter((x) => !d.inst.nodeSet.has(x.other.id) && !d.used.has(`distractor:${x.other.id}`));
      if (usable.length) {
        const x = rng.pick(usable);
        c = distractor(v, x.other, x);
        keys = [`distractor:${x.other.id}`];
      }
      break;
    }
  }
  if (!c) return null;
  if (mentionsAny(constraintText(c), d.answerNames)) {
    ctx.counters.fragmentsLeaked++;
    return null;
  }
  for (const k of keys) d.used.add(k);
  return c;
}

/**
 * A description of subgraph node `n` that fits no other node of its type ("the city that is the capital of
 * Peru", "the country that lies in Northern Africa" when it is the only one): the entity stays a variable
 * in the query and the description's filters and pattern identify it, exactly as the prose does.
 */
function uniqueDescription(ctx: Context, d: Draft, n: GraphNode, rng: Rng): Constraint | null {
  const v = d.vars.get(n.id)!;
  const options: (() => { c: Constraint | null; key: string })[] = [];
  for (const a of Object.keys(n.attrs)) {
    if (isCategorical(ctx, n, a) && !d.used.has(`${n.id}.${a}`)) options.push(() => ({ c: describeByAttr(v, n, a), key: `${n.id}.${a}` }));
  }
  const links = [
    ...ctx.index.outEdges(n.id).map((e) => ({ edgeId: e.id, relation: e.relation, neighbour: ctx.index.node(e.target)!, direction: 'out' as const })),
    ...ctx.index.inEdges(n.id).map((e) => ({ edgeId: e.id, relation: e.relation, neighbour: ctx.index.node(e.source)!, direction: 'in' as const })),
  ].filter((l) => !d.inst.nodeSet.has(l.neighbour.id) && !d.used.has(`link:${l.edgeId}`));
  for (const l of links) options.push(() => ({ c: description(v, n, l), key: `link:${l.edgeId}` }));
  for (const make of rng.shuffle(options).slice(0, 8)) {
    const { c, key } = make();
    if (!c || mentionsAny(c.clause, d.answerNames)) continue;
    if (openUnder(ctx, v, n.type, c.filters, c.patterns) !== 1) continue;
    d.used.add(key);
    return c;
  }
  return null;
}

/** Narrower version of a range constraint (same variable and attribute), or null. */
function narrowed(ctx: Context, c: Constraint, rng: Rng): Constraint | null {
  if (!c.range) return null;
  const node = ctx.index.node(c.range.node)!;
  if (c.kind === 'vague_time') {
    const maxWidth = c.range.width === Infinity ? 16 : Math.floor(c.range.width / 2);
    return maxWidth >= 3 ? vagueTime(c.var, node, c.range.attr, rng, { maxWidth }) : null;
  }
  if (c.kind === 'numeric_range') {
    const maxWidth = c.range.width === Infinity ? 0.8 : c.range.width / 2;
    return maxWidth >= 0.02 ? numericRange(c.var, node, c.range.attr, rng, { style: 'between', maxWidth }) : null;
  }
  return null;
}

/** One tightening move; false when none applies. */
function tighten(ctx: Context, d: Draft, result: QueryResult, rng: Rng): boolean {
  const open = d.inst.nodes
    .filter((n) => !d.constants.has(n.id))
    .sort((a, b) => (result.domains[d.vars.get(b.id)!] ?? 0) - (result.domains[d.vars.get(a.id)!] ?? 0) || (a.id === d.answer.id ? -1 : b.id === d.answer.id ? 1 : 0));
  const moves: (() => boolean)[] = [
    // add a constraint on the most open variable that can take one
    // (first without constraints that alone pin the answer down, which would make a one-lookup question)
    () => {
      const kinds = ctx.opts.kinds.filter((k) => SINGLE_KINDS.includes(k));
      for (const lenient of [false, true]) {
        for (const n of open) {
          for (const k of rng.shuffle([...kinds])) {
            const before = new Set(d.used);
            const c = tryKind(ctx, d, k, n.id, rng);
            if (c && !lenient && decisiveOnAnswer(ctx, d, c)) {
              for (const key of [...d.used]) if (!before.has(key)) d.used.delete(key);
              continue;
            }
            if (c) {
              d.constraints.push(c);
              return true;
            }
          }
        }
      }
      return false;
    },
    // narrow a range
    () => {
      for (const i of rng.shuffle(d.constraints.map((_, i) => i))) {
        const c = narrowed(ctx, d.constraints[i]!, rng);
        if (c && !mentionsAny(constraintText(c), d.answerNames)) {
          d.constraints[i] = c;
          return true;
        }
      }
      return false;
    },
    // pin a non-answer entity down: by a description only it fits (a described constant), else by name
    // (then its own constraints are redundant and are dropped)
    () => {
      const dist = distances(d.inst, d.answer.id);
      const far = open.filter((n) => n.id !== d.answer.id).sort((x, y) => (dist.get(y.id) ?? 0) - (dist.get(x.id) ?? 0));
      if (ctx.opts.kinds.includes('description')) {
        for (const n of far.slice(0, 3)) {
          const c = uniqueDescription(ctx, d, n, rng);
          if (c) {
            d.constraints.push(c);
            return true;
          }
        }
      }
      const cands = far.filter((n) => !mentionsAny(n.name, d.answerNames));
      if (!cands.length) return false;
      const n = cands[0]!;
      const v = d.vars.get(n.id)!;
      d.constants.add(n.id);
      d.constraints = d.constraints.filter((c) => c.var !== v || c.kind === 'distractor');
      return true;
    },
  ];
  const order = [0, 1, 2];
  const weights = [0.45, 0.3, 0.25];
  const picked: number[] = [];
  while (order.length) {
    const i = rng.weighted(order.map((o) => weights[o]!));
    picked.push(order.splice(i, 1)[0]!);
  }
  for (const m of picked) if (moves[m]!()) return true;
  return false;
}

export function levelOf(ctx: Context, d: Draft, q: Query): { level: 1 | 2 | 3; open: number; hops: number } {
  const a = q.answer;
  const type = d.answer.type;
  const singles: { filters: QueryFilter[]; patterns: QueryPattern[] }[] = [];
  for (const f of q.filters) if (f.var === a && f.attr !== 'type') singles.push({ filters: [f], patterns: [] });
  for (const p of q.patterns) if ((p.s === a && !isVar(p.o)) || (p.o === a && !isVar(p.s))) singles.push({ filters: [], patterns: [p] });
  const open = singles.length
    ? Math.min(...singles.map((s) => openUnder(ctx, a, type, s.filters, s.patterns)))
    : (ctx.qindex.byType.get(type)?.length ?? 0);
  const dist = distances(d.inst, d.answer.id);
  const hops = Math.max(0, ...dist.values());
  const cyclic = d.inst.topology === 'cycle' || d.inst.topology === 'dense';
  const obf = d.constraints.length;
  const level: 1 | 2 | 3 = open <= 1 ? 1 : open >= 3 && (cyclic || (hops >= 2 && obf >= 2)) ? 3 : 2;
  return { level, open, hops };
}

function leastUsedKind(ctx: Context, rng: Rng): ObfuscationKind | null {
  const kinds = ctx.opts.kinds;
  if (!kinds.length) return null;
  const min = Math.min(...kinds.map((k) => ctx.kindCounts[k] ?? 0));
  return rng.pick(kinds.filter((k) => (ctx.kindCounts[k] ?? 0) === min));
}

/** Builds, verifies and tightens one QA for `answerId` in `inst`. */
export function makeQa(ctx: Context, inst: Instance, answerId: string, orbit: number, rng: Rng): Made {
  const answer = ctx.index.node(answerId)!;
  const dist = distances(inst, answerId);
  const ordered = [...inst.nodes].sort((x, y) => (dist.get(x.id) ?? 0) - (dist.get(y.id) ?? 0) || inst.nodes.indexOf(x) - inst.nodes.indexOf(y));
  const d: Draft = {
    inst,
    answer,
    answerNames: [answer.name, ...answer.aliases],
    vars: new Map(ordered.map((n, i) => [n.id, varName(i)])),
    constants: new Set(),
    constraints: [],
    used: new Set(),
  };
  const others = ordered.filter((n) => n.id !== answerId && !mentionsAny(n.name, d.answerNames));
  if (others.length && rng.next() < ctx.opts.anchorProb) d.constants.add(others[others.length - 1]!.id); // the farthest

  // initial obfuscations: the least used kind first, then each other kind with its probability
  const primary = leastUsedKind(ctx, rng);
  const rest = rng.shuffle(ctx.opts.kinds.filter((k) => k !== primary));
  const varNodes = (): GraphNode[] => inst.nodes.filter((n) => !d.constants.has(n.id));
  for (const kind of primary ? [primary, ...rest] : rest) {
    if (d.constraints.length >= ctx.opts.maxConstraints) break;
    if (kind !== primary && rng.next() >= (ctx.opts.probs[kind] ?? 0)) continue;
    const targets = rng.shuffle(varNodes().filter((n) => n.id !== answerId));
    if (rng.next() < 0.35) targets.unshift(answer);
    else targets.push(answer);
    for (const n of targets) {
      const before = new Set(d.used);
      let c = tryKind(ctx, d, kind, n.id, rng);
      if (c && decisiveOnAnswer(ctx, d, c)) {
        for (const key of [...d.used]) if (!before.has(key)) d.used.delete(key);
        c = null;
      }
      if (c) {
        d.constraints.push(c);
        break;
      }
    }
  }

  let steps = 0;
  for (;;) {
    const query = toQuery(d);
    const question = renderDraft(d, rng);
    if (mentionsAny(question, d.answerNames)) return { ok: false, reason: 'leaked_answer' };
    const result = evaluateQuery(ctx.qindex, query, { maxSolutions: 10_000 });
    if (!result.candidates.includes(answerId)) return { ok: false, reason: 'inconsistent' };
    if (result.candidates.length === 1) {
      const { level } = levelOf(ctx, d, query);
      const obfuscations: Obfuscation[] = d.constraints.flatMap((c) => c.obfuscations);
      const support = [...new Set([...inst.sub.edges, ...d.constraints.flatMap((c) => c.support)])];
      return {
        ok: true,
        tighten: steps,
        qa: {
          question,
          answer: answer.name,
          answer_id: answer.id,
          aliases: [...answer.aliases],
          level,
          graph: ctx.opts.graphName,
          subgraph: { nodes: [...inst.sub.nodes], edges: [...inst.sub.edges] },
          wl_hash: inst.hash,
          orbit,
          topology: inst.topology,
          query,
          obfuscations,
          distractors: [...new Set(d.constraints.flatMap((c) => c.distractors))],
          support,
          candidates: 1,
        },
      };
    }
    if (steps >= ctx.opts.maxTighten) return { ok: false, reason: 'ambiguous' };
    if (!tighten(ctx, d, result, rng)) return { ok: false, reason: 'no_usable_attrs' };
    steps++;
    ctx.counters.tightenSteps++;
  }
}

// ---------------------------------------------------------------- the dataset

export interface SynthStats {
  requested: number;
  published: number;
  /** QA attempts (one per answer tried). */
  attempts: number;
  /** Distinct subgraph shapes drawn from the sampler. */
  shapes: number;
  /** QAs added beyond one per orbit to reach the exact count. */
  extras: number;
  tighten_steps: number;
  fragments_dropped_for_leak: number;
  rejections: Record<string, number>;
  topologies: Record<string, number>;
  kinds: Record<string, number>;
  levels: Record<string, number>;
  orbit_coverage: { hashes: number; orbits: number; covered: number };
  seconds: number;
}

export interface SynthResult {
  qas: QA[];
  stats: SynthStats;
}

/** Every edge the QAs' subgraphs use: what `excludeEdges` takes to keep another split's facts out. */
export function datasetEdges(qas: readonly Pick<QA, 'subgraph'>[]): Set<string> {
  return new Set(qas.flatMap((qa) => qa.subgraph.edges));
}

/**
 * The edges of another split's QAs, to keep out of a new one (`excludeEdges`). A split made on another
 * graph shares no edge id with this one and would exclude nothing, silently: that is refused, naming
 * `what` (the option that gave the split).
 */
export function edgesToExclude(graph: Pick<Graph, 'edges'>, qas: readonly Pick<QA, 'subgraph'>[], what: string): Set<string> {
  const edges = datasetEdges(qas);
  if (edges.size > 0 && !graph.edges.some((e) => edges.has(e.id))) {
    throw new LabError('bad_request', `${what} shares no edge with the graph; it must be a dataset built on the same graph`);
  }
  return edges;
}

/** The edges of several other splits (each checked as edgesToExclude checks one), to keep out of a new one. */
export function edgesOfSplits(graph: Pick<Graph, 'edges'>, splits: readonly { qas: readonly Pick<QA, 'subgraph'>[]; what: string }[]): Set<string> {
  return new Set(splits.flatMap((s) => [...edgesToExclude(graph, s.qas, s.what)]));
}

/** One subgraph instance: its edge set (two samples of one shape on other entities differ here, not in the hash). */
const instanceKey = (sub: { edges: readonly string[] }): string => [...sub.edges].sort().join('|');
/** One fact: an instance and the node asked for (rewordings of it share the key). */
const factKey = (sub: { edges: readonly string[] }, answerId: string): string => `${instanceKey(sub)}>${answerId}`;

export function synthesize(graph: Graph, input: SynthInput): SynthResult {
  const opts = resolveOptions(input);
  const t0 = performance.now();
  const ctx = makeContext(graph, opts);
  const rng = createRng(seedFrom(`synth/${opts.rng}`));
  const balancer = new OrbitBalancer();
  const rejections: Record<string, number> = {};
  const reject = (r: string, n = 1): void => {
    rejections[r] = (rejections[r] ?? 0) + n;
  };
  const published: Omit<QA, 'id'>[] = [];
  const questions = new Set<string>();
  const facts = new Set<string>();
  const done = new Map<string, Instance>();
  const seen = new Set<string>();
  const deferred: Instance[] = [];
  let attempts = 0;
  let extras = 0;
  let shapes = 0;

  const progress = (): void => opts.onProgress?.({ published: published.length, target: opts.count, attempts });
  const publish = (qa: Omit<QA, 'id'>): void => {
    published.push(qa);
    questions.add(qa.question);
    facts.add(factKey(qa.subgraph, qa.answer_id));
    balancer.record(qa.wl_hash, qa.orbit);
    for (const k of new Set(qa.obfuscations.map((o) => o.kind))) ctx.kindCounts[k] = (ctx.kindCounts[k] ?? 0) + 1;
  };
  const attempt = (inst: Instance, orbit: number, avoid: Set<string>): { qa: Omit<QA, 'id'> | null; answerId: string } => {
    const members = inst.orbits[orbit]!;
    const fresh = members.filter((id) => !avoid.has(id));
    const answerId = rng.pick(fresh.length ? fresh : members);
    attempts++;
    const made = makeQa(ctx, inst, answerId, orbit, rng);
    if (!made.ok) {
      reject(made.reason);
      return { qa: null, answerId };
    }
    if (questions.has(made.qa.question)) {
      reject('duplicate_question');
      return { qa: null, answerId };
    }
    // With many instances per shape the volume comes from other entities, not from rewording one fact.
    if (opts.perShape > 1 && facts.has(factKey(inst.sub, answerId))) {
      reject('duplicate_fact');
      return { qa: null, answerId };
    }
    return { qa: made.qa, answerId };
  };
  const tryGroup = (inst: Instance): void => {
    const group: Omit<QA, 'id'>[] = [];
    for (let k = 0; k < inst.orbits.length; k++) {
      let qa: Omit<QA, 'id'> | null = null;
      const tried = new Set<string>();
      for (let t = 0; t < 2 && !qa; t++) {
        const r = attempt(inst, k, tried);
        qa = r.qa;
        tried.add(r.answerId);
      }
      if (!qa) {
        if (group.length) reject('orbit_group_incomplete', group.length);
        return;
      }
      group.push(qa);
    }
    for (const qa of group) publish(qa);
    done.set(instanceKey(inst.sub), inst);
    progress();
  };

  // 1. one QA per orbit of each fresh shape
  // Many instances per shape: keep sampling while rounds still publish (a lookup set draws on every edge).
  const rounds = opts.perShape > 1 ? 60 : 6;
  // A sampled subgraph is new when its shape is (one per shape), or with perShape > 1 when its edge set is.
  const dedupeKey = (s: { hash: string; edges: readonly string[] }): string => (opts.perShape === 1 ? s.hash : instanceKey(s));
  let stalled = 0;
  for (let round = 0; published.length < opts.count && round < rounds && stalled < 3; round++) {
    const before = published.length;
    const want = Math.ceil((opts.count - published.length) / 2) + 8;
    const sampled = sampleDistinct(ctx.index, createRng(seedFrom(`synth/${opts.rng}/sample/${round}`)), {
      perHash: opts.perShape,
      minEdges: opts.minEdges,
      maxEdges: opts.maxEdges,
      count: want,
      maxTries: want * 40,
    });
    reject('duplicate_hash', sampled.stats.duplicates);
    const fresh = sampled.subgraphs.filter((s) => {
      if (opts.excludeEdges && s.edges.some((e) => opts.excludeEdges!.has(e))) {
        reject('excluded_edge');
        return false;
      }
      const dup = seen.has(dedupeKey(s));
      if (dup) reject(opts.perShape === 1 ? 'duplicate_hash' : 'duplicate_subgraph');
      return !dup;
    });
    if (fresh.length === 0) break;
    for (const s of fresh) {
      if (published.length >= opts.count) break;
      seen.add(dedupeKey(s));
      shapes++;
      const inst = makeInstance(ctx.index, s);
      if (inst.orbits.length > opts.count - published.length) deferred.push(inst);
      else tryGroup(inst);
    }
    stalled = published.length > before ? 0 : stalled + 1;
  }
  // 2. deferred shapes that now fit, smallest first
  deferred.sort((a, b) => a.orbits.length - b.orbits.length);
  for (const inst of deferred) {
    if (published.length >= opts.count) break;
    if (inst.orbits.length <= opts.count - published.length) tryGroup(inst);
  }
  // 3. extras. With many instances per shape, the last slots take one orbit of an instance whose whole group
  //    did not fit (a new fact, where another QA on a complete instance would only reword a published one);
  //    otherwise on complete shapes: a shape whose least used orbit is least used overall, then that orbit.
  for (const inst of opts.perShape > 1 ? deferred : []) {
    if (published.length >= opts.count) break;
    if (done.has(instanceKey(inst.sub))) continue;
    const { qa } = attempt(inst, balancer.choose(inst.hash, inst.orbits.length, rng), new Set());
    if (qa) {
      publish(qa);
      extras++;
      progress();
    }
  }
  const complete = [...done.values()];
  for (let guard = 0; published.length < opts.count && complete.length && guard < opts.count * 10; guard++) {
    const minOf = (inst: Instance): number => Math.min(...balancer.countsOf(inst.hash, inst.orbits.length));
    const low = Math.min(...complete.map(minOf));
    const inst = rng.pick(complete.filter((x) => minOf(x) === low));
    const orbit = balancer.choose(inst.hash, inst.orbits.length, rng);
    const used = new Set(published.filter((q) => q.wl_hash === inst.hash && q.orbit === orbit).map((q) => q.answer_id));
    const { qa } = attempt(inst, orbit, used);
    if (qa) {
      publish(qa);
      extras++;
      progress();
    }
  }
  const unusedDeferred = deferred.filter((inst) => !done.has(instanceKey(inst.sub))).length;
  if (unusedDeferred) reject('group_too_large', unusedDeferred);

  const qas: QA[] = published.map((qa, i) => ({ id: `qa-${String(i + 1).padStart(6, '0')}`, ...qa }));
  const count = (f: (qa: QA) => string[]): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const qa of qas) for (const k of f(qa)) out[k] = (out[k] ?? 0) + 1;
    return out;
  };
  const stats: SynthStats = {
    requested: opts.count,
    published: qas.length,
    attempts,
    shapes,
    extras,
    tighten_steps: ctx.counters.tightenSteps,
    fragments_dropped_for_leak: ctx.counters.fragmentsLeaked,
    rejections,
    topologies: count((qa) => [qa.topology]),
    kinds: count((qa) => [...new Set(qa.obfuscations.map((o) => o.kind))]),
    levels: count((qa) => [String(qa.level)]),
    orbit_coverage: balancer.coverage(),
    seconds: (performance.now() - t0) / 1000,
  };
  return { qas, stats };
}
