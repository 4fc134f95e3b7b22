// Template prose for a question, one plan per structural pattern (docs/pipeline.md, 'Questions and
// verification'). The input is already the logical content: entities (variables described by their type and
// constraint clauses, or named constants) and the subgraph's edges. The output mentions every entity and
// every edge exactly as the query states them; it never names a variable entity.
//
// Plans:
// - path:  a chain of sentences from the far end(s) towards the answer, then the question on the answer;
// - star / tree: "There is …" sentences for the inner entities, deepest first, each carrying the edges to
//   its children as relative clauses, then the question with the answer's own edges;
// - cycle / dense: the loop (or web) edge by edge, entities introduced at first mention, then the question
//   on the answer's referent.
import type { Rng } from '../util/rng';
import { article, capitalise, joinAnd, ordinalWord, relPhrase, typeNoun } from './lexicon';

export interface REntity {
  id: string;
  type: string;
  /** Set for a named constant: the prose uses the name. */
  name?: string;
  /** Relative clauses from the constraints on this entity. */
  clauses: string[];
  /** Remarks (distractors) given the entity's referent. */
  remarks: ((ref: string) => string)[];
}

export interface REdge {
  s: string;
  o: string;
  rel: string;
}

export type Shape = 'path' | 'star' | 'tree' | 'cycle' | 'dense';

function joinClauses(clauses: string[]): string {
  return joinAnd(clauses);
}

class Mentions {
  private readonly introduced = new Set<string>();
  private readonly ordinals = new Map<string, number>();
  private readonly perType = new Map<string, number>();
  private readonly shared = new Set<string>();

  constructor(
    private readonly byId: Map<string, REntity>,
    private readonly answerId: string,
  ) {
    const counts = new Map<string, number>();
    for (const e of byId.values()) if (!e.name) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
    for (const [t, n] of counts) if (n > 1) this.shared.add(t);
  }

  entity(id: string): REntity {
    const e = this.byId.get(id);
    if (!e) throw new Error(`render: unknown entity ${id}`);
    return e;
  }

  isIntroduced(id: string): boolean {
    return this.introduced.has(id);
  }

  /** First mention: "a city whose population is …" (extra clauses are computed after registration). */
  intro(id: string, extra: () => string[] = () => []): string {
    const e = this.entity(id);
    this.introduced.add(id);
    if (e.name) return e.name;
    const noun = typeNoun(e.type);
    let det = id === this.answerId ? 'a certain' : article(noun);
    if (this.shared.has(e.type)) {
      const k = (this.perType.get(e.type) ?? 0) + 1;
      this.perType.set(e.type, k);
      this.ordinals.set(id, k);
      if (k > 1) det = 'another';
    }
    const clauses = [...e.clauses, ...extra()];
    return `${det} ${noun}${clauses.length ? ` ${joinClauses(clauses)}` : ''}`;
  }

  ref(id: string): string {
    const e = this.entity(id);
    if (e.name) return e.name;
    const noun = typeNoun(e.type);
    const k = this.ordinals.get(id);
    return k !== undefined ? `the ${ordinalWord(k)} ${noun}` : `the ${noun}`;
  }

  np(id: string): string {
    return this.introduced.has(id) ? this.ref(id) : this.intro(id);
  }

  /**
   * Relative clauses for several edges of `from`: edges to entities that will be introduced with clauses
   * of their own go last, so their nested clauses are not followed by more clauses of `from`.
   */
  edgeClauses(es: REdge[], from: string): string[] {
    const nested = (e: REdge): number => {
      const id = other(e, from);
      return !this.introduced.has(id) && !this.entity(id).name && this.entity(id).clauses.length > 0 ? 1 : 0;
    };
    return [...es].sort((a, b) => nested(a) - nested(b)).map((e) => this.edgeClause(e, from));
  }

  /** A relative clause for edge `e` seen from `from` (the entity it is attached to). */
  edgeClause(e: REdge, from: string): string {
    const rp = relPhrase(e.rel);
    return e.s === from ? rp.onSubject(this.np(e.o)) : rp.onObject(this.np(e.s));
  }

  edgeSentence(e: REdge): string {
    const rp = relPhrase(e.rel);
    const s = this.np(e.s);
    return rp.sentence(s, this.np(e.o));
  }
}

/** Undirected adjacency of the rendered subgraph (edge indices per node). */
function adjacency(ids: string[], edges: REdge[]): Map<string, number[]> {
  const adj = new Map<string, number[]>(ids.map((id) => [id, []]));
  edges.forEach((e, i) => {
    adj.get(e.s)?.push(i);
    if (e.o !== e.s) adj.get(e.o)?.push(i);
  });
  return adj;
}

const other = (e: REdge, id: string): string => (e.s === id ? e.o : e.s);

function bfs(start: string, ids: string[], edges: REdge[]): { order: string[]; parentEdge: Map<string, number>; dist: Map<string, number> } {
  const adj = adjacency(ids, edges);
  const order = [start];
  const dist = new Map([[start, 0]]);
  const parentEdge = new Map<string, number>();
  for (let i = 0; i < order.length; i++) {
    const u = order[i]!;
    for (const ei of adj.get(u) ?? []) {
      const w = other(edges[ei]!, u);
      if (!dist.has(w)) {
        dist.set(w, dist.get(u)! + 1);
        parentEdge.set(w, ei);
        order.push(w);
      }
    }
  }
  return { order, parentEdge, dist };
}

function question(m: Mentions, answerId: string, extra: () => string[], rng: Rng): string {
  const e = m.entity(answerId);
  const noun = typeNoun(e.type);
  // The answer is introduced here: register it first so nested clauses see it as mentioned.
  m.intro(answerId);
  const clauses = [...e.clauses, ...extra()];
  const body = clauses.length ? ` ${joinClauses(clauses)}` : '';
  switch (rng.int(3)) {
    case 0:
      return `What is the name of the ${noun}${body}?`;
    case 1:
      return `Can you name the ${noun}${body}?`;
    default:
      return `Which ${noun} is meant here: the one${body}?`;
  }
}

/** Remarks go after the question, as parentheticals. */
function remarks(m: Mentions, entities: REntity[], answerId: string): string[] {
  const out: string[] = [];
  for (const e of entities) {
    for (const r of e.remarks) {
      const ref = e.id === answerId ? `the ${typeNoun(e.type)} in question` : m.ref(e.id);
      out.push(`(${capitalise(r(ref))}.)`);
    }
  }
  return out;
}

/** Edges grouped by their endpoint nearer to the answer (BFS distance; ties go to the subject). */
function groupByUpper(ids: string[], edges: REdge[], answerId: string): { dist: Map<string, number>; order: string[]; lower: Map<string, REdge[]> } {
  const { order, dist } = bfs(answerId, ids, edges);
  const lower = new Map<string, REdge[]>();
  for (const e of edges) {
    const ds = dist.get(e.s) ?? Infinity;
    const dO = dist.get(e.o) ?? Infinity;
    const upper = dO < ds ? e.o : e.s;
    const list = lower.get(upper) ?? [];
    list.push(e);
    lower.set(upper, list);
  }
  return { dist, order, lower };
}

function planPath(m: Mentions, ids: string[], edges: REdge[], answerId: string, rng: Rng): string[] {
  // A chain told from the far end(s) towards the answer: one sentence per edge away from the answer,
  // then the question carries the answer's own edges.
  const { dist } = bfs(answerId, ids, edges);
  const far = (e: REdge): number => Math.max(dist.get(e.s) ?? 0, dist.get(e.o) ?? 0);
  const arm = armOf(ids, edges, answerId);
  const away = edges
    .filter((e) => e.s !== answerId && e.o !== answerId)
    .sort((a, b) => (arm.get(a.s) ?? '').localeCompare(arm.get(b.s) ?? '') || far(b) - far(a));
  const sentences: string[] = [];
  let lastArm = '';
  for (const e of away) {
    const s = capitalise(m.edgeSentence(e));
    const sameArm = arm.get(e.s) === lastArm;
    const lowered = /^(A|An|Another|The) /.test(s) ? `${s[0]!.toLowerCase()}${s.slice(1)}` : s;
    sentences.push(`${sameArm && rng.next() < 0.5 ? `In turn, ${lowered}` : s}.`);
    lastArm = arm.get(e.s) ?? '';
  }
  const own = edges.filter((e) => e.s === answerId || e.o === answerId);
  sentences.push(question(m, answerId, () => m.edgeClauses(own, answerId), rng));
  return sentences;
}

/** For every node, the answer's neighbour whose branch it hangs from. */
function armOf(ids: string[], edges: REdge[], answerId: string): Map<string, string> {
  const { order, parentEdge } = bfs(answerId, ids, edges);
  const arm = new Map<string, string>();
  for (const id of order) {
    if (id === answerId) continue;
    const parent = other(edges[parentEdge.get(id)!]!, id);
    arm.set(id, parent === answerId ? id : (arm.get(parent) ?? id));
  }
  return arm;
}

function planTree(m: Mentions, ids: string[], edges: REdge[], answerId: string, rng: Rng): string[] {
  const { order, dist, lower } = groupByUpper(ids, edges, answerId);
  const inner = order.filter((id) => id !== answerId && (lower.get(id)?.length ?? 0) > 0);
  inner.sort((a, b) => dist.get(b)! - dist.get(a)!);
  const leads = ['There is', 'Consider', 'Take'];
  const sentences = inner.map((p) => {
    // A named entity carries its edges as plain sentences; a described one as clauses of "There is …".
    if (m.entity(p).name) return (lower.get(p) ?? []).map((e) => `${capitalise(m.edgeSentence(e))}.`).join(' ');
    const np = m.intro(p, () => m.edgeClauses(lower.get(p) ?? [], p));
    return `${rng.pick(leads)} ${np}.`;
  });
  sentences.push(question(m, answerId, () => m.edgeClauses(lower.get(answerId) ?? [], answerId), rng));
  return sentences;
}

function planLoop(m: Mentions, ids: string[], edges: REdge[], answerId: string, shape: Shape, rng: Rng): string[] {
  // Start the tour at a neighbour of the answer so the answer appears early, then go edge by edge in
  // BFS order; the question asks for the answer's referent.
  const start = ids.find((id) => id !== answerId && edges.some((e) => (e.s === id && e.o === answerId) || (e.o === id && e.s === answerId))) ?? answerId;
  const { order } = bfs(start, ids, edges);
  const pos = new Map(order.map((id, i) => [id, i]));
  const sorted = [...edges].sort(
    (a, b) =>
      Math.min(pos.get(a.s)!, pos.get(a.o)!) - Math.min(pos.get(b.s)!, pos.get(b.o)!) ||
      Math.max(pos.get(a.s)!, pos.get(a.o)!) - Math.max(pos.get(b.s)!, pos.get(b.o)!),
  );
  const n = ids.length;
  const opening =
    shape === 'cycle'
      ? `${capitalise(numberWord(n))} entities are linked, and their relations close a loop.`
      : `${capitalise(numberWord(n))} entities are tightly interlinked.`;
  const facts = sorted.map((e) => m.edgeSentence(e));
  const body: string[] = [];
  for (let i = 0; i < facts.length; i += 2) {
    const pair = facts.slice(i, i + 2);
    body.push(`${capitalise(pair.join('; '))}.`);
  }
  const ask = m.isIntroduced(answerId)
    ? rng.pick([`What is the name of ${m.ref(answerId)}?`, `What is ${m.ref(answerId)} called?`])
    : question(m, answerId, () => [], rng);
  return [opening, ...body, ask];
}

function numberWord(n: number): string {
  return ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'][n] ?? String(n);
}

/** The template prose of one question. */
export function renderQuestion(shape: Shape, entities: REntity[], edges: REdge[], answerId: string, rng: Rng): string {
  const byId = new Map(entities.map((e) => [e.id, e]));
  const m = new Mentions(byId, answerId);
  const ids = entities.map((e) => e.id);
  let sentences: string[];
  if (edges.length === 0) sentences = [question(m, answerId, () => [], rng)];
  else if (shape === 'path') sentences = planPath(m, ids, edges, answerId, rng);
  else if (shape === 'cycle' || shape === 'dense') sentences = planLoop(m, ids, edges, answerId, shape, rng);
  else sentences = planTree(m, ids, edges, answerId, rng);
  return [...sentences, ...remarks(m, entities, answerId)].join(' ');
}
