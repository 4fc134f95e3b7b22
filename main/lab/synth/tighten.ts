// Question tightening (see docs/pipeline.md, 'Questions and verification'): verification evaluates the query on the
// whole graph and must find exactly one candidate, the answer. While it finds more, the builder makes one move at a
// time, at most `maxTighten` times: add a constraint on the most open variable, narrow a range, or pin a non-answer
// entity down (by a description only it fits, else by name).
import type { GraphNode } from '../formats';
import type { Rng } from '../util/rng';
import { distances, type Context, type Draft } from './draft';
import { openUnder } from './level';
import { describeByAttr, description, mentionsAny, numericRange, vagueTime, type Constraint } from './obfuscate';
import type { QueryResult } from './query';
import { SINGLE_KINDS, constraintText, decisiveOnAnswer, isCategorical, tryKind } from './uncertainty';

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
export function tighten(ctx: Context, d: Draft, result: QueryResult, rng: Rng): boolean {
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
