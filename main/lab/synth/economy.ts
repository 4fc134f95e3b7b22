// Constraint economy (docs/pipeline.md, 'Questions and verification'): once a draft's query has exactly one
// candidate, every constraint that removes no candidate is dropped, and the ones kept are weighed.
//
// A constraint is worth its words only if leaving it out lets another candidate back in. The builder tries to
// leave out each injected constraint in turn (the wordiest first, so the shorter of two equivalent ones stays)
// and keeps it out when the answer stays the only candidate. Dropping is monotone (a constraint that was needed
// stays needed once others go), so one pass leaves every kept constraint necessary. The two conditions of a
// multi_constraint are weighed one by one; when one of them goes, the other stays as a single constraint.
// Distractors add no filter: they are remarks, not constraints, and are neither dropped nor weighed here.
import type { NarrowingRecord } from '../formats';
import type { Context, Draft } from './draft';
import { toQuery } from './draft';
import { openUnder } from './level';
import { multiConstraint, type Constraint } from './obfuscate';
import { evaluateQuery } from './query';

/** Candidates of the draft's whole query with the given constraints. */
function candidatesWith(ctx: Context, d: Draft, constraints: Constraint[]): number {
  return evaluateQuery(ctx.qindex, toQuery({ ...d, constraints }), { maxSolutions: 1 }).candidates.length;
}

const words = (c: Constraint): number => c.clause.split(/\s+/).length;

/** Single constraints (a multi_constraint's parts on their own), distractors left aside. */
function singles(d: Draft): { weighed: Constraint[]; remarks: Constraint[] } {
  const weighed: Constraint[] = [];
  const remarks: Constraint[] = [];
  for (const c of d.constraints) {
    if (c.kind === 'distractor') remarks.push(c);
    else if (c.parts) weighed.push(...c.parts);
    else weighed.push(c);
  }
  return { weighed, remarks };
}

/**
 * Drops every constraint of a verified draft (exactly one candidate) that narrows nothing, and records on each
 * kept one how many candidates the query has without it (`without`). Returns the number dropped.
 */
export function economise(ctx: Context, d: Draft): number {
  const { weighed, remarks } = singles(d);
  let kept = [...weighed];
  // single constraints first (letters of a name before the rest, since a description or a vague period is what
  // a SailorFog-style question is made of; then the wordiest first), then whole multi_constraints, then their
  // parts: a multi_constraint whose conditions are both needed is the kind worth keeping
  const multis = d.constraints.filter((c) => c.parts);
  const inMulti = new Set(multis.flatMap((c) => c.parts!));
  const nameFirst = (c: Constraint): number => (c.kind === 'partial_name' ? 1 : 0);
  const order: Constraint[][] = [
    ...weighed.filter((c) => !inMulti.has(c)).sort((a, b) => nameFirst(b) - nameFirst(a) || words(b) - words(a)).map((c) => [c]),
    ...multis.map((m) => m.parts!),
    ...[...inMulti].map((c) => [c]),
  ];
  let dropped = 0;
  for (const group of order) {
    const rest = kept.filter((k) => !group.includes(k));
    if (rest.length === kept.length) continue;
    if (candidatesWith(ctx, d, [...rest, ...remarks]) === 1) {
      dropped += kept.length - rest.length;
      kept = rest;
    }
  }
  for (const c of kept) c.without = candidatesWith(ctx, d, [...kept.filter((k) => k !== c), ...remarks]);
  // regroup the parts of a multi_constraint that both stayed
  const out: Constraint[] = [];
  const seen = new Set<Constraint>();
  for (const c of d.constraints) {
    if (c.kind === 'distractor') out.push(c);
    else if (c.parts) {
      const left = c.parts.filter((p) => kept.includes(p));
      left.forEach((p) => seen.add(p));
      const m = left.length >= 2 ? multiConstraint(left) : left[0];
      if (m) {
        if (left.length >= 2) m.without = Math.min(...left.map((p) => p.without ?? 0));
        out.push(m);
      }
    } else if (kept.includes(c) && !seen.has(c)) out.push(c);
  }
  d.constraints = out;
  return dropped;
}

/** How much each kept constraint narrows, for the QA's `narrowing` field. */
export function narrowingOf(ctx: Context, d: Draft): NarrowingRecord[] {
  const typeOfVar = new Map([...d.vars].map(([id, v]) => [v, ctx.index.node(id)!.type]));
  return singles(d).weighed.map((c) => {
    const type = typeOfVar.get(c.var) ?? '';
    return {
      kind: c.kind,
      target: c.obfuscations[0]?.target ?? c.var,
      text: c.clause,
      of: ctx.qindex.byType.get(type)?.length ?? 0,
      alone: openUnder(ctx, c.var, type, c.filters, c.patterns),
      without: c.without ?? candidatesWith(ctx, d, d.constraints.filter((k) => k !== c)),
    };
  });
}
