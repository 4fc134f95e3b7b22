// Template prose for a question, one plan per structural pattern (docs/pipeline.md, 'Questions and
// verification'). The input is already the logical content: entities (variables described by their type and
// constraint clauses, or named constants) and the subgraph's edges. The output mentions every entity and
// every edge exactly as the query states them; it never names a variable entity.
//
// Noun phrases come from the realiser (realise.ts): adjectives before the noun, reduced phrases after it, at
// most two "that" clauses; a clause that does not fit becomes a short sentence of its own ("The city also …").
// A sentence whose subject is the previous sentence's subject says "It". The question is asked with one of
// the answer's clauses as its predicate ("Which South American country borders Peru?").
//
// Plans:
// - path:  a chain of sentences from the far end(s) towards the answer, then the question on the answer;
// - star / tree: "There is …" sentences for the inner entities, deepest first, each carrying the edges to
//   its children as clauses, then the question with the answer's own edges;
// - cycle / dense: the loop (or web) edge by edge, entities introduced at first mention, then the question
//   on the answer's referent.
import type { Rng } from '../util/rng';
import { capitalise, joinAnd, ordinalWord, relPhrase, typeNoun } from './lexicon';
import { nounPhrase, PEOPLE, reduceClause } from './realise';

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

class Mentions {
  private readonly introduced = new Set<string>();
  private readonly ordinals = new Map<string, number>();
  private readonly perType = new Map<string, number>();
  private readonly shared = new Set<string>();
  /** Clauses that did not fit their noun phrase, said after the current sentence ("The city also …"). */
  private pending: { id: string; clauses: string[] }[] = [];
  /** The subject of the last sentence, for "It". */
  lastSubject = '';
  /** The last noun phrase introduced ends in a comma-set phrase (a verb after it needs a closing comma). */
  private lastCommas = false;

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
    let det = 'a';
    if (this.shared.has(e.type)) {
      const k = (this.perType.get(e.type) ?? 0) + 1;
      this.perType.set(e.type, k);
      this.ordinals.set(id, k);
      if (k > 1) det = 'another';
    }
    const np = nounPhrase(det, noun, [...e.clauses, ...extra()]);
    if (np.overflow.length) this.pending.push({ id, clauses: np.overflow });
    this.lastCommas = np.commas;
    return np.text;
  }

  /** Sentences for clauses that did not fit their noun phrase: "The city also borders Peru." */
  flush(): string[] {
    const out = this.pending.map((p) => `${capitalise(this.ref(p.id))} also ${joinAnd(p.clauses.map((c) => c.replace(/^(that|who) /, '')))}.`);
    this.pending = [];
    return out;
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

  /** "S rel O"; "It rel O" when S was the subject of the sentence before. */
  edgeSentence(e: REdge): string {
    const rp = relPhrase(e.rel);
    this.lastCommas = false;
    // "It" for a thing that stays the subject; a person is not "it"
    const same = this.introduced.has(e.s) && e.s === this.lastSubject && !this.entity(e.s).name && !PEOPLE.test(typeNoun(this.entity(e.s).type));
    let s = same ? 'it' : this.np(e.s);
    if (this.lastCommas) s = `${s},`;
    this.lastSubject = e.s;
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

/**
 * The question on the answer: one of its clauses becomes the predicate ("Which country … borders Peru?");
 * without one that can, "What is the name of the … ?".
 */
function question(m: Mentions, answerId: string, extra: () => string[], rng: Rng): string {
  const e = m.entity(answerId);
  const noun = typeNoun(e.type);
  // The answer is introduced here: register it first so nested clauses see it as mentioned.
  m.intro(answerId);
  const clauses = [...e.clauses, ...extra()];
  const preds = clauses.map((c) => reduceClause(c, noun)).map((x) => (x.kind === 'post' || x.kind === 'rel' ? x.pred : undefined));
  let at = -1;
  for (let i = preds.length - 1; i >= 0 && at < 0; i--) if (preds[i]) at = i;
  if (at < 0 || rng.next() < 0.2) return `What is the name of ${nounPhrase('the', noun, clauses).text}?`;
  const np = nounPhrase('', noun, clauses.filter((_, i) => i !== at));
  const said = [...np.overflow.map((c) => c.replace(/^(that|who) /, '')), preds[at]!];
  return `Which ${np.text}${np.commas ? ',' : ''} ${joinAnd(said)}?`;
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
  for (const e of away) sentences.push(`${capitalise(m.edgeSentence(e))}.`, ...m.flush());
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
  const sentences = inner.flatMap((p) => {
    // A named entity carries its edges as plain sentences; a described one as clauses of "There is …".
    if (m.entity(p).name) return (lower.get(p) ?? []).flatMap((e) => [`${capitalise(m.edgeSentence(e))}.`, ...m.flush()]);
    const np = m.intro(p, () => m.edgeClauses(lower.get(p) ?? [], p));
    return [`${rng.pick(leads)} ${np}.`, ...m.flush()];
  });
  sentences.push(question(m, answerId, () => m.edgeClauses(lower.get(answerId) ?? [], answerId), rng));
  return sentences;
}

function planLoop(m: Mentions, ids: string[], edges: REdge[], answerId: string, rng: Rng): string[] {
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
  // (the loop needs no announcing: the facts close it)
  const body: string[] = [];
  for (let i = 0; i < sorted.length; i += 2) {
    const pair = sorted.slice(i, i + 2).map((e) => m.edgeSentence(e));
    body.push(`${capitalise(pair.join('; '))}.`, ...m.flush());
  }
  const ask = m.isIntroduced(answerId)
    ? rng.pick([`What is the name of ${m.ref(answerId)}?`, `What is ${m.ref(answerId)} called?`])
    : question(m, answerId, () => [], rng);
  return [...body, ask];
}

/** The template prose of one question. */
export function renderQuestion(shape: Shape, entities: REntity[], edges: REdge[], answerId: string, rng: Rng): string {
  const byId = new Map(entities.map((e) => [e.id, e]));
  const m = new Mentions(byId, answerId);
  const ids = entities.map((e) => e.id);
  let sentences: string[];
  if (edges.length === 0) sentences = [question(m, answerId, () => [], rng)];
  else if (shape === 'path') sentences = planPath(m, ids, edges, answerId, rng);
  else if (shape === 'cycle' || shape === 'dense') sentences = planLoop(m, ids, edges, answerId, rng);
  else sentences = planTree(m, ids, edges, answerId, rng);
  return [...sentences, ...m.flush(), ...remarks(m, entities, answerId)].join(' ');
}
