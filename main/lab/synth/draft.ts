// What question synthesis works on: the run's context, one subgraph instance, and the draft of one QA
// (variables, named constants, injected constraints), with the formal query and the prose a draft makes.
//
// Query: the answer is `?a`; every other subgraph node is a variable (or, once anchored, a named
// constant); each subgraph edge is a pattern; every variable has a `type eq` filter (the prose says
// "a country"); obfuscations add the filters and patterns they imply. The query format is in
// docs/formats.md, 'sailor.qa/1'.
import type { Graph, GraphEdge, GraphNode, Query, QueryFilter, QueryPattern } from '../formats';
import { buildIndex, type GraphIndex, type Subgraph } from '../graph/graph-index';
import type { Topology } from '../graph/topology';
import type { Rng } from '../util/rng';
import { OBFUSCATION_KINDS, type Constraint } from './obfuscate';
import type { SynthOptions } from './options';
import { canonicalOrbits } from './orbits';
import { buildQueryIndex, type QueryIndex } from './query-index';
import { nounPhrase } from './realise';
import { renderQuestion, type REdge, type REntity } from './render';

export interface Instance {
  sub: Subgraph;
  hash: string;
  topology: Topology;
  nodes: GraphNode[];
  edges: GraphEdge[];
  nodeSet: Set<string>;
  orbits: string[][];
}

/** The query variable of the i-th entity: `?a` (the answer), `?b`, … then `?v26` on. */
export const varName = (i: number): string => (i < 26 ? `?${String.fromCharCode(97 + i)}` : `?v${i}`);

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

/** Undirected hop counts from `from` to every node of the instance. */
export function distances(inst: Instance, from: string): Map<string, number> {
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
  // the hardest constraint first: the one whose absence would let the most candidates back in
  const hardestFirst = [...d.constraints].sort((a, b) => (b.without ?? 0) - (a.without ?? 0));
  for (const c of hardestFirst) {
    const e = byId.get(nodeOfVar.get(c.var) ?? '');
    if (!e) continue;
    if (c.aside) {
      const { name, noun, clause } = c.aside;
      e.remarks.push((ref) => `${ref} is not ${name}, ${nounPhrase('another', noun, [clause]).text}`);
    } else if (c.remark) e.remarks.push(c.remark);
    if (c.parts) e.clauses.push(...c.parts.map((p) => p.clause));
    else if (c.clause) e.clauses.push(c.clause);
  }
  const edges: REdge[] = d.inst.edges.map((e) => ({ s: e.source, o: e.target, rel: e.relation }));
  return renderQuestion(d.inst.topology, entities, edges, d.answer.id, rng);
}
