// ASearcher's second generator (docs/pipeline.md, 'The ASearcher generator'): start from a one-hop lookup
// ("Which city is the capital of Peru?") and repeatedly inject a fact about an entity of the question or fuzz
// a detail (asearcher-moves.ts), keeping each step's supporting facts. Every step is validated before it is
// kept; a refused move is dropped and counted by reason, and the QA goes on from the last good state:
//   quality     the question realises, every named entity is in it, the answer is not (render_failed,
//               anchor_missing, leaked_answer, too_long);
//   uniqueness  the query evaluator, on the whole graph, still gives exactly the answer (not_unique, no_candidate).
// Difficulty is checked once the steps are done, by a no-tool proxy: the lab's level rule (level.ts) says
// Level 1 when one lookup — one named entity next to the answer, or one attribute of it — already leaves a
// single candidate, i.e. an agent could answer from what the question names without searching. Such a QA is
// rejected as too_easy. (The expert in agent/ sits above synth/ and reads the graph itself, so "the expert
// without tools" would be this same lookup test with more machinery.)
import type { Graph, Obfuscation, QA, Query } from '../formats';
import { synthesize, type SynthResult } from './build';
import type { SynthGenerator } from '../contract/jobs';
import { createRng, seedFrom, type Rng } from '../util/rng';
import { topologyOf } from '../graph/topology';
import { wlHash } from '../graph/wl';
import { makeContext, renderDraft, toQuery, varName, type Context, type Draft } from './draft';
import { levelOf } from './level';
import { mentionsAny } from './obfuscate';
import { resolveOptions, SYNTH_DEFAULTS, type SynthInput } from './options';
import { evaluateQuery } from './query';
import { wordCount } from './style';
import {
  exactAttrs,
  exactConstraints,
  freshEdges,
  fuzzAttr,
  fuzzName,
  injectAttr,
  injectEdge,
  seedState,
  type AsState,
} from './asearcher-moves';

export interface AsearcherInput {
  count: number;
  rng?: number;
  graphName?: string;
  /** Steps tried on each seed (default 3). */
  steps?: number;
  /** Chance that a step injects rather than fuzzes (default 0.6). */
  injectProb?: number;
  /** A question longer than this is refused (quality). */
  maxWords?: number;
  excludeEdges?: ReadonlySet<string>;
  onProgress?: (p: { published: number; target: number; attempts: number }) => void;
}

export type StepRejection = 'render_failed' | 'anchor_missing' | 'leaked_answer' | 'too_long' | 'not_unique' | 'no_candidate';

export type Checked = { ok: true; question: string; query: Query; draft: Draft } | { ok: false; reason: StepRejection };

/** The draft (instance, variables, constants) a state stands for, so the subgraph realiser can say it. */
export function draftOf(ctx: Context, s: AsState): Draft {
  const sub = { nodes: [...s.nodes], edges: [...s.edges] };
  return {
    inst: {
      sub,
      hash: '',
      topology: topologyOf(ctx.index, sub),
      nodes: s.nodes.map((id) => ctx.index.node(id)!),
      edges: s.edges.map((id) => ctx.index.edge(id)!),
      nodeSet: new Set(s.nodes),
      orbits: [[s.answer.id]],
    },
    answer: s.answer,
    answerNames: [s.answer.name, ...s.answer.aliases],
    vars: new Map(s.nodes.map((id, i) => [id, varName(i)])),
    constants: new Set(s.constants),
    constraints: s.constraints,
    used: new Set(),
  };
}

const phrasingRng = (seed: number, s: AsState): Rng => createRng(seedFrom(`asearcher/${seed}/phrase/${s.answer.id}/${s.edges.join(',')}`));

/** Quality and uniqueness of one state (see the header). */
export function checkState(ctx: Context, s: AsState, opts: { seed: number; maxWords: number }): Checked {
  const draft = draftOf(ctx, s);
  let question: string;
  try {
    question = renderDraft(draft, phrasingRng(opts.seed, s));
  } catch {
    return { ok: false, reason: 'render_failed' };
  }
  if (!question.trim().endsWith('?')) return { ok: false, reason: 'render_failed' };
  for (const id of s.constants) if (!question.includes(ctx.index.node(id)!.name)) return { ok: false, reason: 'anchor_missing' };
  if (mentionsAny(question, draft.answerNames)) return { ok: false, reason: 'leaked_answer' };
  if (wordCount(question) > opts.maxWords) return { ok: false, reason: 'too_long' };
  const query = toQuery(draft);
  const { candidates } = evaluateQuery(ctx.qindex, query, { maxSolutions: 1 });
  if (!candidates.includes(s.answer.id)) return { ok: false, reason: 'no_candidate' };
  if (candidates.length !== 1) return { ok: false, reason: 'not_unique' };
  return { ok: true, question, query, draft };
}

type Move = () => AsState | null;

/** The moves of one kind that apply to a state, in random order (named entities weighed double for injection). */
export function movesOf(ctx: Context, s: AsState, op: 'inject' | 'fuzz', rng: Rng): Move[] {
  const moves: Move[] = [];
  if (op === 'inject') {
    const targets = rng.shuffle([...s.nodes, ...s.constants]);
    for (const id of targets) {
      const edges = freshEdges(ctx, s, id);
      if (edges.length) {
        const e = rng.pick(edges);
        moves.push(() => injectEdge(ctx, s, id, e));
      }
      const attrs = exactAttrs(ctx, s, id);
      if (attrs.length) {
        const attr = rng.pick(attrs);
        moves.push(() => injectAttr(ctx, s, id, attr));
      }
    }
  } else {
    for (const c of exactConstraints(s)) moves.push(() => fuzzAttr(ctx, s, c, rng));
    for (const id of s.constants) moves.push(() => fuzzName(ctx, s, id, rng));
  }
  return rng.shuffle(moves);
}

const TRIES_PER_STEP = 4;

export function synthesizeAsearcher(graph: Graph, input: AsearcherInput): SynthResult {
  const t0 = performance.now();
  const opts = resolveOptions({ count: input.count, rng: input.rng, graphName: input.graphName, excludeEdges: input.excludeEdges });
  const steps = input.steps ?? SYNTH_DEFAULTS.steps;
  const injectProb = input.injectProb ?? 0.6;
  const check = { seed: opts.rng, maxWords: input.maxWords ?? 60 };
  const ctx = makeContext(graph, opts);
  const rng = createRng(seedFrom(`asearcher/${opts.rng}`));
  const rejections: Record<string, number> = {};
  const stepRejections: Record<string, number> = {};
  const bump = (m: Record<string, number>, k: string): void => {
    m[k] = (m[k] ?? 0) + 1;
  };
  const published: Omit<QA, 'id'>[] = [];
  const questions = new Set<string>();
  let seeds = 0;
  let injected = 0;
  let fuzzed = 0;

  const order = rng.shuffle(graph.edges.map((_, i) => i));
  for (const i of order) {
    if (published.length >= opts.count) break;
    const edge = graph.edges[i]!;
    if (opts.excludeEdges?.has(edge.id) || edge.source === edge.target) continue;
    const answerId = rng.next() < 0.5 ? edge.target : edge.source;
    let state = seedState(ctx, edge, answerId);
    let last = checkState(ctx, state, check);
    seeds++;
    if (!last.ok) {
      bump(rejections, `seed_${last.reason}`);
      continue;
    }
    for (let k = 0; k < steps; k++) {
      // An exact value just injected is what fuzzing is for: fuzz first more often while one is in the question.
      const pInject = exactConstraints(state).length ? injectProb / 2 : injectProb;
      const first: 'inject' | 'fuzz' = rng.next() < pInject ? 'inject' : 'fuzz';
      const moves = [...movesOf(ctx, state, first, rng), ...movesOf(ctx, state, first === 'inject' ? 'fuzz' : 'inject', rng)];
      let kept = false;
      for (let t = 0, tried = 0; t < moves.length && tried < TRIES_PER_STEP && !kept; t++) {
        const next = moves[t]!();
        if (!next) continue;
        tried++;
        const r = checkState(ctx, next, check);
        if (!r.ok) bump(stepRejections, r.reason);
        else [state, last, kept] = [next, r, true];
      }
      if (!kept) break;
    }
    if (!last.ok) continue; // (never: `last` is the last state that passed)
    if (state.steps.length === 0) {
      bump(rejections, 'no_step');
      continue;
    }
    const { level } = levelOf(ctx, last.draft, last.query);
    if (level === 1) {
      bump(rejections, 'too_easy');
      continue;
    }
    if (questions.has(last.question)) {
      bump(rejections, 'duplicate_question');
      continue;
    }
    questions.add(last.question);
    for (const st of state.steps) if (st.op === 'inject') injected++;
    else fuzzed++;
    published.push(toQa(ctx, state, last, level));
    input.onProgress?.({ published: published.length, target: opts.count, attempts: seeds });
  }

  const qas: QA[] = published.map((qa, i) => ({ id: `qa-${String(i + 1).padStart(6, '0')}`, ...qa }));
  const count = (f: (qa: QA) => string[]): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const qa of qas) for (const k of f(qa)) out[k] = (out[k] ?? 0) + 1;
    return out;
  };
  const hashes = new Set(qas.map((q) => q.wl_hash)).size;
  return {
    qas,
    stats: {
      requested: opts.count,
      published: qas.length,
      attempts: seeds,
      shapes: hashes,
      extras: 0,
      tighten_steps: 0,
      fragments_dropped_for_leak: 0,
      rejections,
      topologies: count((qa) => [qa.topology]),
      kinds: count((qa) => [...new Set(qa.obfuscations.map((o) => o.kind))]),
      levels: count((qa) => [String(qa.level)]),
      orbit_coverage: { hashes, orbits: hashes, covered: hashes },
      seconds: (performance.now() - t0) / 1000,
      generator: 'asearcher',
      asearcher: { seeds, injected, fuzzed, step_rejections: stepRejections },
    },
  };
}

function toQa(ctx: Context, s: AsState, ok: Extract<Checked, { ok: true }>, level: 1 | 2 | 3): Omit<QA, 'id'> {
  const { draft, question, query } = ok;
  const sub = { nodes: [...s.nodes], edges: [...s.edges] };
  // Entities the question describes through their facts instead of naming them.
  const described: Obfuscation[] = s.nodes
    .filter((id, i) => i > 0 && !s.constants.has(id))
    .map((id) => ({ kind: 'description', target: draft.vars.get(id)!, from: id, to: 'described by its facts' }));
  return {
    question,
    answer: s.answer.name,
    answer_id: s.answer.id,
    aliases: [...s.answer.aliases],
    level,
    graph: ctx.opts.graphName,
    subgraph: sub,
    wl_hash: wlHash(ctx.index, sub),
    orbit: 0,
    topology: draft.inst.topology,
    query,
    obfuscations: [...described, ...s.constraints.flatMap((c) => c.obfuscations)],
    distractors: [],
    support: [...new Set([...s.edges, ...s.constraints.flatMap((c) => c.support)])],
    candidates: 1,
    steps: s.steps,
  };
}

/**
 * The synthesis of a job or `sailor synth`, by generator: the subgraph one with all its options, or ASearcher's
 * inject/fuzz one, which takes the count, seed, graph name, its steps, the excluded edges and the progress hook.
 */
export function synthesizeWith(generator: SynthGenerator | undefined, graph: Graph, input: SynthInput & { steps?: number }): SynthResult {
  if (generator !== 'asearcher') return synthesize(graph, input);
  const { count, rng, graphName, steps, excludeEdges, onProgress } = input;
  return synthesizeAsearcher(graph, { count, rng, graphName, steps, excludeEdges, onProgress });
}
