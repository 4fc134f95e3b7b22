// Question synthesis (see docs/pipeline.md, 'Questions and verification'): sampled subgraph -> orbit-balanced answer ->
// formal query + template prose with injected uncertainty -> exact verification over the whole graph ->
// tighten until unique. This file drives it; the pieces are options.ts, orbits.ts, draft.ts (the query and
// the prose of one draft), uncertainty.ts, tighten.ts and level.ts.
//
// Per structurally distinct subgraph (one per WL hash, from the graph module's balanced sampler) the
// builder makes one QA per automorphism orbit, so every structural role (hub, leaf, node on a cycle) is
// an answer once; a group is published only when all its orbits succeed. When the remaining count is
// smaller than the next group, it adds extra QAs on already complete shapes, always for the (hash, orbit)
// pair used least so far, so coverage stays even.
//
// Rejection reasons counted in the stats:
//   duplicate_hash         a sampled subgraph whose WL hash was already used;
//   duplicate_subgraph     with perShape > 1, a sampled subgraph whose edge set was already used;
//   excluded_edge          a sampled subgraph that uses an edge of `excludeEdges` (another split's facts);
//   ambiguous              still more than one candidate after `maxTighten` steps;
//   no_usable_attrs        ambiguous, and no tightening move applies (nothing left to add, narrow or name);
//   leaked_answer          the prose names the answer or an alias (fragments that would are dropped first
//                          and counted as fragments_dropped_for_leak);
//   duplicate_question     the same prose as a QA already published;
//   duplicate_fact         with perShape > 1, the same instance and answer as a QA already published;
//   inconsistent           the answer is not among the candidates (a guard; never expected);
//   orbit_group_incomplete QAs discarded because another orbit of the same shape failed;
//   group_too_large        shapes never used because they have more orbits than QAs still needed.
import type { Graph, Obfuscation, QA, SynthStats } from '../formats';
import { sampleDistinct } from '../graph/sample';
import { createRng, seedFrom, type Rng } from '../util/rng';
import { distances, makeContext, makeInstance, renderDraft, toQuery, varName, type Context, type Draft, type Instance, type RejectReason } from './draft';
import { economise, narrowingOf } from './economy';
import { levelOf } from './level';
import { mentionsAny } from './obfuscate';
import { resolveOptions, type SynthInput } from './options';
import { OrbitBalancer } from './orbits';
import { evaluateQuery } from './query';
import { tighten } from './tighten';
import { injectUncertainty } from './uncertainty';

type Made = { ok: true; qa: Omit<QA, 'id'>; tighten: number } | { ok: false; reason: RejectReason };

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

  injectUncertainty(ctx, d, rng);
  // The wording draws from its own stream, so how a question is phrased never changes which facts are asked.
  const phrasing = (): Rng => createRng(seedFrom(`synth/${ctx.opts.rng}/phrase/${answerId}/${inst.sub.edges.join(',')}`));

  let steps = 0;
  for (;;) {
    const query = toQuery(d);
    const question = renderDraft(d, phrasing());
    if (mentionsAny(question, d.answerNames)) return { ok: false, reason: 'leaked_answer' };
    const result = evaluateQuery(ctx.qindex, query, { maxSolutions: 10_000 });
    if (!result.candidates.includes(answerId)) return { ok: false, reason: 'inconsistent' };
    if (result.candidates.length === 1) {
      // Constraint economy: drop what narrows nothing, then say the rest again (hardest first) and verify anew.
      economise(ctx, d);
      const lean = toQuery(d);
      const said = renderDraft(d, phrasing());
      if (mentionsAny(said, d.answerNames)) return { ok: false, reason: 'leaked_answer' };
      const check = evaluateQuery(ctx.qindex, lean, { maxSolutions: 10_000 });
      if (!(check.candidates.length === 1 && check.candidates[0] === answerId)) return { ok: false, reason: 'inconsistent' };
      const { level } = levelOf(ctx, d, lean);
      const obfuscations: Obfuscation[] = d.constraints.flatMap((c) => c.obfuscations);
      const support = [...new Set([...inst.sub.edges, ...d.constraints.flatMap((c) => c.support)])];
      return {
        ok: true,
        tighten: steps,
        qa: {
          question: said,
          answer: answer.name,
          answer_id: answer.id,
          aliases: [...answer.aliases],
          level,
          graph: ctx.opts.graphName,
          subgraph: { nodes: [...inst.sub.nodes], edges: [...inst.sub.edges] },
          wl_hash: inst.hash,
          orbit,
          topology: inst.topology,
          query: lean,
          obfuscations,
          distractors: [...new Set(d.constraints.flatMap((c) => c.distractors))],
          support,
          candidates: 1,
          narrowing: narrowingOf(ctx, d),
        },
      };
    }
    if (steps >= ctx.opts.maxTighten) return { ok: false, reason: 'ambiguous' };
    if (!tighten(ctx, d, result, rng)) return { ok: false, reason: 'no_usable_attrs' };
    steps++;
    ctx.counters.tightenSteps++;
  }
}

export interface SynthResult {
  qas: QA[];
  stats: SynthStats;
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
  // A round that publishes nothing is a stall: near the end of a graph's facts most draws hit used or excluded
  // edges, so the next round samples twice as wide (up to the graph's edge count); six stalls in a row end it.
  let stalled = 0;
  for (let round = 0; published.length < opts.count && round < rounds && stalled < 6; round++) {
    const before = published.length;
    const base = Math.ceil((opts.count - published.length) / 2) + 8;
    const want = Math.min(base * 2 ** stalled, Math.max(base, ctx.index.edgeCount));
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
