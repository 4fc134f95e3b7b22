// Uncertainty injection (see docs/pipeline.md, 'Uncertainty injection'): the obfuscation fragments a
// draft starts with, and the one-constraint builder that tightening reuses. Each fragment is a constraint
// on one subgraph node (a vague time, a numeric range, part of a name, a description, an order relative to
// another entity, two conditions together, or a distractor) with the filters and patterns it implies.
// A fragment whose text would name the answer is dropped (counted as fragments_dropped_for_leak).
import type { GraphNode } from '../formats';
import type { Rng } from '../util/rng';
import type { Context, Draft } from './draft';
import { openUnder } from './level';
import {
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

/** Text of a constraint as it can appear in the prose (for the leak check). */
export function constraintText(c: Constraint): string {
  return `${c.clause} ${c.remark ? c.remark('it') : ''}`;
}

/** A distractor's shared neighbour has at most this many links of the shared relation. */
const MAX_LOOKALIKE_SHARERS = 12;

/** Kinds that make one constraint on one node (multi_constraint combines two of them; distractor names another node). */
export const SINGLE_KINDS: ObfuscationKind[] = ['vague_time', 'numeric_range', 'partial_name', 'description', 'implicit_order'];

/**
 * A string attribute is categorical when at least 3 nodes share its value (case-insensitive) and the value
 * is short: "Northern Africa", "yes", "medium" — not an identifier, code or description.
 */
export function isCategorical(ctx: Context, node: GraphNode, attr: string): boolean {
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
export function decisiveOnAnswer(ctx: Context, d: Draft, c: Constraint): boolean {
  const a = d.vars.get(d.answer.id)!;
  if (c.var !== a || (c.filters.length === 0 && c.patterns.length === 0)) return false;
  return openUnder(ctx, a, d.answer.type, c.filters, c.patterns) <= 1;
}

/** Tries to build one constraint of `kind` on subgraph node `nodeId`. Marks what it used. */
export function tryKind(ctx: Context, d: Draft, kind: ObfuscationKind, nodeId: string, rng: Rng): Constraint | null {
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
  /** The first unused attribute of type `t`, in a shuffled order, that `make` turns into a constraint. */
  const firstAttr = (t: 'date' | 'number', make: (attr: string) => Constraint | null): void => {
    for (const a of attrsOf(t)) {
      c = make(a);
      keys = [`${nodeId}.${a}`];
      if (c) return;
    }
  };
  switch (kind) {
    case 'vague_time':
      firstAttr('date', (a) => vagueTime(v, node, a, rng));
      break;
    case 'numeric_range':
      firstAttr('number', (a) => numericRange(v, node, a, rng));
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
      // a look-alike shares something rare: sharing "member of the United Nations" with 190 others is no likeness
      const sharers = (x: (typeof options)[number]): number =>
        (x.direction === 'out' ? ctx.index.inEdges(x.neighbour.id) : ctx.index.outEdges(x.neighbour.id)).filter((e) => e.relation === x.relation).length;
      const usable = options.filter((x) => !d.inst.nodeSet.has(x.other.id) && !d.used.has(`distractor:${x.other.id}`) && sharers(x) <= MAX_LOOKALIKE_SHARERS);
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

function leastUsedKind(ctx: Context, rng: Rng): ObfuscationKind | null {
  const kinds = ctx.opts.kinds;
  if (!kinds.length) return null;
  const min = Math.min(...kinds.map((k) => ctx.kindCounts[k] ?? 0));
  return rng.pick(kinds.filter((k) => (ctx.kindCounts[k] ?? 0) === min));
}

/**
 * The draft's first constraints: the least used kind first (so every kind gets its share across the
 * dataset), then each other allowed kind with its probability, up to `maxConstraints`. A constraint that
 * alone pins the answer down is skipped: it would make a one-lookup question.
 */
export function injectUncertainty(ctx: Context, d: Draft, rng: Rng): void {
  const answer = d.answer;
  const answerId = answer.id;
  const primary = leastUsedKind(ctx, rng);
  const rest = rng.shuffle(ctx.opts.kinds.filter((k) => k !== primary));
  const varNodes = (): GraphNode[] => d.inst.nodes.filter((n) => !d.constants.has(n.id));
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
}
