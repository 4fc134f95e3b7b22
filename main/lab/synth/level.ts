// How hard a QA is: the level rule, ours rather than the method's (see docs/pipeline.md, 'Questions and verification'):
//   open  = the fewest candidates any SINGLE constraint on the answer leaves (one non-type filter on ?a,
//           or one pattern from ?a to a named constant, each together with ?a's type); the number of
//           nodes of the answer's type when no constraint touches ?a directly;
//   hops  = the answer's eccentricity in the subgraph (undirected);
//   obf   = the number of injected obfuscation fragments (distractors included).
//   Level 1 when open <= 1 (one lookup settles it);
//   Level 3 when open >= 3 and (the subgraph has a cycle, or hops >= 2 and obf >= 2);
//   Level 2 otherwise.
import type { Query, QueryFilter, QueryPattern } from '../formats';
import { distances, type Context, type Draft } from './draft';
import { evaluateQuery, isVar } from './query';

/** Candidates of `v` under one constraint alone (plus the node's type): how open that constraint leaves it. */
export function openUnder(ctx: Context, v: string, type: string, filters: QueryFilter[], patterns: QueryPattern[]): number {
  const q: Query = {
    answer: v,
    patterns: patterns.filter((p) => (p.s === v && !isVar(p.o)) || (p.o === v && !isVar(p.s))),
    filters: [{ var: v, attr: 'type', op: 'eq', value: type }, ...filters.filter((f) => f.var === v)],
  };
  return evaluateQuery(ctx.qindex, q, { maxSolutions: 1 }).candidates.length;
}

/** The level of a verified draft's query by the rule above, with the open count and hops behind it. */
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
