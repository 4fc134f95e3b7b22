// The two moves of ASearcher's iterative QA synthesis (docs/pipeline.md, 'The ASearcher generator'), on our
// graph: a question is a small tree of graph facts around the answer with some entities named (constants)
// and the rest described (variables). Every move returns a new state and never edits the old one, so a move
// the validator refuses is simply dropped.
//
// - inject an edge: a named entity X gets a fact (X, rel, Y) from the graph; X stops being named and is
//   described through Y ("the capital of the country that borders Y") — or, when X is already described, it
//   gains that fact as one more clause. Y is named.
// - inject an attribute: an entity gets an exact date or number from its attributes ("that was founded in
//   1921"); a named entity is then described by it instead.
// - fuzz an attribute: an exact value becomes a range or a vague form (obfuscate.ts' vagueTime / numericRange,
//   which use the realiser's number forms: "in the early 1920s", "between 2 and 3 million people").
// - fuzz a name: a named entity becomes "known by a name beginning with …" (obfuscate.ts' partialName), only
//   while another entity stays named, so a search still has a handle.
import type { GraphEdge, GraphNode, QaStep } from '../formats';
import type { Rng } from '../util/rng';
import { varName, type Context } from './draft';
import { dateClause, numberClause, yearText } from './lexicon';
import { numericRange, partialName, vagueTime, type Constraint } from './obfuscate';
import { quantityKind } from './numbers';
import { yearOf } from './query-filters';

export interface AsState {
  answer: GraphNode;
  /** The question's entities, answer first; a node's variable is fixed by its position (see varOf). */
  nodes: string[];
  edges: string[];
  constants: ReadonlySet<string>;
  /** Attribute facts: exact (kind 'description', `exact` set) or fuzzed, and partial names. */
  constraints: Constraint[];
  steps: QaStep[];
}

export const varOf = (s: AsState, id: string): string => varName(s.nodes.indexOf(id));

/** The seed: a one-hop lookup `(named, rel, ?a)` or `(?a, rel, named)` over `edge`. */
export function seedState(ctx: Context, edge: GraphEdge, answerId: string): AsState {
  const other = edge.source === answerId ? edge.target : edge.source;
  return { answer: ctx.index.node(answerId)!, nodes: [answerId, other], edges: [edge.id], constants: new Set([other]), constraints: [], steps: [] };
}

const usedAttr = (s: AsState, v: string, attr: string): boolean => s.constraints.some((c) => c.var === v && c.range?.attr === attr);

/** Edges of `id` in the graph that would add a new entity (not the answer, not already in the question). */
export function freshEdges(ctx: Context, s: AsState, id: string): GraphEdge[] {
  const inQuestion = new Set(s.nodes);
  return [...ctx.index.outEdges(id), ...ctx.index.inEdges(id)].filter((e) => {
    const other = e.source === id ? e.target : e.source;
    return other !== id && !inQuestion.has(other) && !ctx.opts.excludeEdges?.has(e.id);
  });
}

export function injectEdge(ctx: Context, s: AsState, target: string, edge: GraphEdge): AsState {
  const other = edge.source === target ? edge.target : edge.source;
  const constants = new Set(s.constants);
  const wasNamed = constants.delete(target);
  constants.add(other);
  const name = (id: string): string => ctx.index.node(id)!.name;
  const step: QaStep = {
    op: 'inject',
    target: wasNamed ? name(target) : varOf(s, target),
    from: wasNamed ? name(target) : '',
    to: `${name(edge.source)} ${edge.relation} ${name(edge.target)}`,
    support: [edge.id],
  };
  return { ...s, nodes: [...s.nodes, other], edges: [...s.edges, edge.id], constants, steps: [...s.steps, step] };
}

/** Attributes of `id` an exact fact can state: a date, or a count, measure or percentage. */
export function exactAttrs(ctx: Context, s: AsState, id: string): string[] {
  const node = ctx.index.node(id)!;
  const v = varOf(s, id);
  return Object.entries(node.attrs)
    .filter(([attr, a]) => {
      if (usedAttr(s, v, attr)) return false;
      if (a.type === 'date') return Number.isFinite(yearOf(a.value));
      return a.type === 'number' && Number.isFinite(a.value) && ['count', 'measure', 'percent'].includes(quantityKind(attr, a.unit));
    })
    .map(([attr]) => attr);
}

/** An exact attribute fact as a constraint: the year of a date, or the number itself. */
export function exactFact(v: string, node: GraphNode, attr: string): Constraint | null {
  const a = node.attrs[attr];
  if (!a) return null;
  let clause: string;
  let lo: number;
  if (a.type === 'date') {
    lo = yearOf(a.value);
    if (!Number.isFinite(lo)) return null;
    clause = dateClause(attr, `in ${yearText(lo)}`);
  } else if (a.type === 'number' && Number.isFinite(a.value)) {
    lo = a.value;
    const kind = quantityKind(attr, a.unit);
    const bare = a.value.toLocaleString('en-US', { maximumFractionDigits: 2 });
    const unit = kind === 'percent' ? 'percent' : (a.unit ?? '');
    clause = numberClause(attr, { text: unit ? `${bare} ${unit}` : bare, bare, kind });
  } else return null;
  return {
    kind: 'description',
    var: v,
    clause,
    filters: [{ var: v, attr, op: 'between', value: [lo, lo] }],
    patterns: [],
    obfuscations: [{ kind: 'description', target: `${v}.${attr}`, from: node.id, to: clause }],
    support: [`${node.id}.${attr}`],
    distractors: [],
    range: { node: node.id, attr, value: a.value, width: 0 },
  };
}

export function injectAttr(ctx: Context, s: AsState, target: string, attr: string): AsState | null {
  const node = ctx.index.node(target)!;
  const c = exactFact(varOf(s, target), node, attr);
  if (!c) return null;
  const constants = new Set(s.constants);
  const wasNamed = constants.delete(target);
  const step: QaStep = { op: 'inject', target: wasNamed ? node.name : c.var, from: wasNamed ? node.name : '', to: c.clause, support: c.support };
  return { ...s, constants, constraints: [...s.constraints, c], steps: [...s.steps, step] };
}

/** Exact attribute facts that can be fuzzed. */
export const exactConstraints = (s: AsState): Constraint[] => s.constraints.filter((c) => c.range?.width === 0);

export function fuzzAttr(ctx: Context, s: AsState, exact: Constraint, rng: Rng): AsState | null {
  const node = ctx.index.node(exact.range!.node)!;
  const attr = exact.range!.attr;
  const vague = node.attrs[attr]?.type === 'date' ? vagueTime(exact.var, node, attr, rng) : numericRange(exact.var, node, attr, rng);
  if (!vague) return null;
  const step: QaStep = { op: 'fuzz', target: exact.var, from: exact.clause, to: vague.clause, support: vague.support };
  return { ...s, constraints: s.constraints.map((c) => (c === exact ? vague : c)), steps: [...s.steps, step] };
}

export function fuzzName(ctx: Context, s: AsState, target: string, rng: Rng): AsState | null {
  if (s.constants.size < 2 || !s.constants.has(target)) return null;
  const node = ctx.index.node(target)!;
  const c = partialName(varOf(s, target), node, rng, { style: 'prefix' });
  if (!c) return null;
  const constants = new Set(s.constants);
  constants.delete(target);
  const step: QaStep = { op: 'fuzz', target: node.name, from: node.name, to: c.clause, support: c.support };
  return { ...s, constants, constraints: [...s.constraints, c], steps: [...s.steps, step] };
}
