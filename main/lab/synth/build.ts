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
import { resolveOptions, type SynthInput, type SynthOptions } from './options';
import { OrbitBalancer } from './orbits';
import { evaluateQuery } from './query';
import { tighten } from './tighten';
import { injectUncertainty } from './uncertainty';

type Made = { ok: true; qa: Omit<QA, 'id'>; tighten: number } | { ok: false; reason: RejectReason };
/** A QA before it is numbered. */
type NewQa = Omit<QA, 'id'>;

/** Solutions a query's verification enumerates at most (more are reported as more than one candidate). */
const MAX_SOLUTIONS = 10_000;
/** Answers of one orbit a group tries (a fresh member each time) before the shape is given up. */
const ANSWERS_PER_ORBIT = 2;
/** Sampling rounds for fresh shapes: one group per shape, or many instances per shape (a lookup set draws on every edge). */
const ROUNDS = { onePerShape: 6, manyPerShape: 60 };
/** Rounds in a row that publish nothing before sampling ends. */
const MAX_STALLS = 6;
/** Subgraphs a round samples beyond half the QAs still needed. */
const SAMPLE_SLACK = 8;
/** The sampler's tries per subgraph wanted. */
const TRIES_PER_SUBGRAPH = 40;
/** Extras on complete shapes stop after this many attempts per QA requested. */
const EXTRA_TRIES_PER_QA = 10;

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
    const result = evaluateQuery(ctx.qindex, query, { maxSolutions: MAX_SOLUTIONS });
    if (!result.candidates.includes(answerId)) return { ok: false, reason: 'inconsistent' };
    if (result.candidates.length === 1) {
      // Constraint economy: drop what narrows nothing, then say the rest again (hardest first) and verify anew.
      economise(ctx, d);
      const lean = toQuery(d);
      const said = renderDraft(d, phrasing());
      if (mentionsAny(said, d.answerNames)) return { ok: false, reason: 'leaked_answer' };
      const check = evaluateQuery(ctx.qindex, lean, { maxSolutions: MAX_SOLUTIONS });
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

/** One synthesis: what is published and seen so far, and the counts its stats report. */
class Synthesis {
  readonly published: NewQa[] = [];
  readonly rejections: Record<string, number> = {};
  readonly balancer = new OrbitBalancer();
  /** Instances whose whole orbit group was published, by instanceKey. */
  readonly done = new Map<string, Instance>();
  /** Sampled subgraphs already used (dedupeKey). */
  readonly seen = new Set<string>();
  /** Shapes with more orbits than QAs still needed when sampled. */
  readonly deferred: Instance[] = [];
  private readonly questions = new Set<string>();
  private readonly facts = new Set<string>();
  attempts = 0;
  extras = 0;
  shapes = 0;

  constructor(
    readonly ctx: Context,
    readonly opts: SynthOptions,
    readonly rng: Rng,
  ) {}

  /** QAs still to publish. */
  get needed(): number {
    return this.opts.count - this.published.length;
  }

  reject(reason: string, n = 1): void {
    this.rejections[reason] = (this.rejections[reason] ?? 0) + n;
  }

  progress(): void {
    this.opts.onProgress?.({ published: this.published.length, target: this.opts.count, attempts: this.attempts });
  }

  /** A sampled subgraph is new when its shape is (one per shape), or with perShape > 1 when its edge set is. */
  dedupeKey(s: { hash: string; edges: readonly string[] }): string {
    return this.opts.perShape === 1 ? s.hash : instanceKey(s);
  }

  publish(qa: NewQa): void {
    this.published.push(qa);
    this.questions.add(qa.question);
    this.facts.add(factKey(qa.subgraph, qa.answer_id));
    this.balancer.record(qa.wl_hash, qa.orbit);
    for (const k of new Set(qa.obfuscations.map((o) => o.kind))) this.ctx.kindCounts[k] = (this.ctx.kindCounts[k] ?? 0) + 1;
  }

  /** An extra QA (beyond one group per shape), published. */
  publishExtra(qa: NewQa): void {
    this.publish(qa);
    this.extras++;
    this.progress();
  }

  /** One QA for an answer of `orbit` not in `avoid` (any member when all are), or why there is none. */
  attempt(inst: Instance, orbit: number, avoid: Set<string>): { qa: NewQa | null; answerId: string } {
    const members = inst.orbits[orbit]!;
    const fresh = members.filter((id) => !avoid.has(id));
    const answerId = this.rng.pick(fresh.length ? fresh : members);
    this.attempts++;
    const made = makeQa(this.ctx, inst, answerId, orbit, this.rng);
    if (!made.ok) {
      this.reject(made.reason);
      return { qa: null, answerId };
    }
    if (this.questions.has(made.qa.question)) {
      this.reject('duplicate_question');
      return { qa: null, answerId };
    }
    // With many instances per shape the volume comes from other entities, not from rewording one fact.
    if (this.opts.perShape > 1 && this.facts.has(factKey(inst.sub, answerId))) {
      this.reject('duplicate_fact');
      return { qa: null, answerId };
    }
    return { qa: made.qa, answerId };
  }

  /** One QA per orbit of `inst`, published together, or none when an orbit fails. */
  tryGroup(inst: Instance): void {
    const group: NewQa[] = [];
    for (let k = 0; k < inst.orbits.length; k++) {
      let qa: NewQa | null = null;
      const tried = new Set<string>();
      for (let t = 0; t < ANSWERS_PER_ORBIT && !qa; t++) {
        const r = this.attempt(inst, k, tried);
        qa = r.qa;
        tried.add(r.answerId);
      }
      if (!qa) {
        if (group.length) this.reject('orbit_group_incomplete', group.length);
        return;
      }
      group.push(qa);
    }
    for (const qa of group) this.publish(qa);
    this.done.set(instanceKey(inst.sub), inst);
    this.progress();
  }
}

export function synthesize(graph: Graph, input: SynthInput): SynthResult {
  const opts = resolveOptions(input);
  const t0 = performance.now();
  const ctx = makeContext(graph, opts);
  const s = new Synthesis(ctx, opts, createRng(seedFrom(`synth/${opts.rng}`)));
  freshShapes(s);
  deferredShapes(s);
  extraQas(s);
  return result(s, (performance.now() - t0) / 1000);
}

/**
 * 1. One QA per orbit of each fresh shape. A round that publishes nothing is a stall: near the end of a graph's
 * facts most draws hit used or excluded edges, so the next round samples twice as wide (up to the graph's
 * edge count); MAX_STALLS stalls in a row end it.
 */
function freshShapes(s: Synthesis): void {
  const { ctx, opts } = s;
  const rounds = opts.perShape > 1 ? ROUNDS.manyPerShape : ROUNDS.onePerShape;
  let stalled = 0;
  for (let round = 0; s.needed > 0 && round < rounds && stalled < MAX_STALLS; round++) {
    const before = s.published.length;
    const base = Math.ceil(s.needed / 2) + SAMPLE_SLACK;
    const want = Math.min(base * 2 ** stalled, Math.max(base, ctx.index.edgeCount));
    const sampled = sampleDistinct(ctx.index, createRng(seedFrom(`synth/${opts.rng}/sample/${round}`)), {
      perHash: opts.perShape,
      minEdges: opts.minEdges,
      maxEdges: opts.maxEdges,
      count: want,
      maxTries: want * TRIES_PER_SUBGRAPH,
    });
    s.reject('duplicate_hash', sampled.stats.duplicates);
    const fresh = sampled.subgraphs.filter((sub) => {
      if (opts.excludeEdges && sub.edges.some((e) => opts.excludeEdges!.has(e))) {
        s.reject('excluded_edge');
        return false;
      }
      const dup = s.seen.has(s.dedupeKey(sub));
      if (dup) s.reject(opts.perShape === 1 ? 'duplicate_hash' : 'duplicate_subgraph');
      return !dup;
    });
    for (const sub of fresh) {
      if (s.needed <= 0) break;
      s.seen.add(s.dedupeKey(sub));
      s.shapes++;
      const inst = makeInstance(ctx.index, sub);
      if (inst.orbits.length > s.needed) s.deferred.push(inst);
      else s.tryGroup(inst);
    }
    stalled = s.published.length > before ? 0 : stalled + 1;
  }
}

/** 2. Deferred shapes that now fit, smallest first. */
function deferredShapes(s: Synthesis): void {
  s.deferred.sort((a, b) => a.orbits.length - b.orbits.length);
  for (const inst of s.deferred) {
    if (s.needed <= 0) break;
    if (inst.orbits.length <= s.needed) s.tryGroup(inst);
  }
}

/**
 * 3. Extras. With many instances per shape, the last slots take one orbit of an instance whose whole group
 * did not fit (a new fact, where another QA on a complete instance would only reword a published one);
 * otherwise on complete shapes: a shape whose least used orbit is least used overall, then that orbit.
 */
function extraQas(s: Synthesis): void {
  const { opts, balancer, rng } = s;
  for (const inst of opts.perShape > 1 ? s.deferred : []) {
    if (s.needed <= 0) break;
    if (s.done.has(instanceKey(inst.sub))) continue;
    const { qa } = s.attempt(inst, balancer.choose(inst.hash, inst.orbits.length, rng), new Set());
    if (qa) s.publishExtra(qa);
  }
  const complete = [...s.done.values()];
  const minOf = (inst: Instance): number => Math.min(...balancer.countsOf(inst.hash, inst.orbits.length));
  for (let guard = 0; s.needed > 0 && complete.length && guard < opts.count * EXTRA_TRIES_PER_QA; guard++) {
    const low = Math.min(...complete.map(minOf));
    const inst = rng.pick(complete.filter((x) => minOf(x) === low));
    const orbit = balancer.choose(inst.hash, inst.orbits.length, rng);
    const used = new Set(s.published.filter((q) => q.wl_hash === inst.hash && q.orbit === orbit).map((q) => q.answer_id));
    const { qa } = s.attempt(inst, orbit, used);
    if (qa) s.publishExtra(qa);
  }
  const unusedDeferred = s.deferred.filter((inst) => !s.done.has(instanceKey(inst.sub))).length;
  if (unusedDeferred) s.reject('group_too_large', unusedDeferred);
}

/** The published QAs with their ids, and the stats. */
function result(s: Synthesis, seconds: number): SynthResult {
  const qas: QA[] = s.published.map((qa, i) => ({ id: `qa-${String(i + 1).padStart(6, '0')}`, ...qa }));
  const count = (f: (qa: QA) => string[]): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const qa of qas) for (const k of f(qa)) out[k] = (out[k] ?? 0) + 1;
    return out;
  };
  const stats: SynthStats = {
    requested: s.opts.count,
    published: qas.length,
    attempts: s.attempts,
    shapes: s.shapes,
    extras: s.extras,
    tighten_steps: s.ctx.counters.tightenSteps,
    fragments_dropped_for_leak: s.ctx.counters.fragmentsLeaked,
    rejections: s.rejections,
    topologies: count((qa) => [qa.topology]),
    kinds: count((qa) => [...new Set(qa.obfuscations.map((o) => o.kind))]),
    levels: count((qa) => [String(qa.level)]),
    orbit_coverage: s.balancer.coverage(),
    seconds,
  };
  return { qas, stats };
}
