// Reading, writing and re-checking `sailor.qa/1` datasets (docs/formats.md, 'sailor.qa/1'). The reader validates
// every QA and names file, line and field of the first problem: `d.jsonl:7: query.patterns[0].rel: expected a
// string`.
import type { FilterOp, Graph, QA, QAHeader, Query, SynthStats } from '../formats';
import type { SynthGenerator } from '../contract/jobs';
import type { SynthOptions } from './options';
import { QA_FORMAT } from '../formats';
import { inputError } from '../base/errors';
import { describeValue, Fields, isObj } from '../util/fields';
import { readJsonl, writeFileAtomic } from '../store/files';
import { evaluateQuery } from './query';
import { buildQueryIndex, type QueryIndex } from './query-index';

const describe = describeValue;
const OPS: readonly FilterOp[] = ['eq', 'lt', 'gt', 'between', 'prefix', 'contains'];

export function validateQuery(value: unknown, f: Fields, at = 'query'): Query {
  const q = f.obj(value, at);
  const answer = f.str(q.answer, `${at}.answer`);
  if (!answer.startsWith('?')) throw f.fail(`${at}.answer`, `expected a variable starting with '?', got ${describe(answer)}`);
  const patterns = f.arr(q.patterns, `${at}.patterns`).map((p, i) => {
    const field = `${at}.patterns[${i}]`;
    const o = f.obj(p, field);
    return { s: f.str(o.s, `${field}.s`), rel: f.str(o.rel, `${field}.rel`), o: f.str(o.o, `${field}.o`) };
  });
  const filters = f.arr(q.filters, `${at}.filters`).map((x, i) => {
    const field = `${at}.filters[${i}]`;
    const o = f.obj(x, field);
    const v = f.str(o.var, `${field}.var`);
    if (!v.startsWith('?')) throw f.fail(`${field}.var`, `expected a variable starting with '?', got ${describe(v)}`);
    const attr = f.str(o.attr, `${field}.attr`);
    const op = f.str(o.op, `${field}.op`);
    if (!(OPS as readonly string[]).includes(op)) throw f.fail(`${field}.op`, `expected one of ${OPS.join(', ')}, got ${describe(op)}`);
    const vf = `${field}.value`;
    let value: string | number | [number, number];
    if (op === 'between') {
      const pair = f.arr(o.value, vf);
      if (pair.length !== 2) throw f.fail(vf, `expected [lo, hi], got ${pair.length} item(s)`);
      const lo = f.num(pair[0], `${vf}[0]`);
      const hi = f.num(pair[1], `${vf}[1]`);
      if (lo > hi) throw f.fail(vf, `expected lo <= hi, got [${lo}, ${hi}]`);
      value = [lo, hi];
    } else if (op === 'prefix' || op === 'contains') {
      value = f.str(o.value, vf);
    } else if (typeof o.value === 'number') {
      value = f.num(o.value, vf);
    } else {
      value = f.str(o.value, vf);
    }
    return { var: v, attr, op: op as FilterOp, value };
  });
  return { answer, patterns, filters };
}

/** Validates one QA record (every field docs/formats.md, 'sailor.qa/1', lists). */
export function validateQa(value: unknown, file: string, line: number): QA {
  const f = new Fields(file, line);
  const r = f.obj(value, 'qa');
  const level = f.num(r.level, 'level');
  if (level !== 1 && level !== 2 && level !== 3) throw f.fail('level', `expected 1, 2 or 3, got ${level}`);
  const sub = f.obj(r.subgraph, 'subgraph');
  const obfuscations = f.arr(r.obfuscations, 'obfuscations').map((x, i) => {
    const o = f.obj(x, `obfuscations[${i}]`);
    return {
      kind: f.str(o.kind, `obfuscations[${i}].kind`),
      target: f.str(o.target, `obfuscations[${i}].target`, false),
      from: f.str(o.from, `obfuscations[${i}].from`, false),
      to: f.str(o.to, `obfuscations[${i}].to`, false),
    };
  });
  const candidates = f.num(r.candidates, 'candidates');
  const orbit = f.num(r.orbit, 'orbit');
  const narrowing =
    r.narrowing === undefined
      ? undefined
      : f.arr(r.narrowing, 'narrowing').map((x, i) => {
          const o = f.obj(x, `narrowing[${i}]`);
          const at = (k: string): string => `narrowing[${i}].${k}`;
          return {
            kind: f.str(o.kind, at('kind')),
            target: f.str(o.target, at('target'), false),
            text: f.str(o.text, at('text'), false),
            of: f.num(o.of, at('of')),
            alone: f.num(o.alone, at('alone')),
            without: f.num(o.without, at('without')),
          };
        });
  const steps =
    r.steps === undefined
      ? undefined
      : f.arr(r.steps, 'steps').map((x, i) => {
          const o = f.obj(x, `steps[${i}]`);
          const op = f.str(o.op, `steps[${i}].op`);
          if (op !== 'inject' && op !== 'fuzz') throw f.fail(`steps[${i}].op`, `expected inject or fuzz, got ${describe(op)}`);
          const at = (k: string): string => `steps[${i}].${k}`;
          return { op, target: f.str(o.target, at('target'), false), from: f.str(o.from, at('from'), false), to: f.str(o.to, at('to'), false), support: f.strings(o.support, at('support')) } as const;
        });
  if (r.source !== undefined && r.source !== 'external') throw f.fail('source', `expected "external" or no source, got ${describe(r.source)}`);
  const phrasingObj = r.phrasing === undefined ? undefined : f.obj(r.phrasing, 'phrasing');
  const phrasing = phrasingObj && {
    outcome: f.str(phrasingObj.outcome, 'phrasing.outcome'),
    ...(phrasingObj.detail !== undefined ? { detail: f.str(phrasingObj.detail, 'phrasing.detail', false) } : {}),
  };
  return {
    id: f.str(r.id, 'id'),
    question: f.str(r.question, 'question'),
    answer: f.str(r.answer, 'answer'),
    answer_id: f.str(r.answer_id, 'answer_id'),
    aliases: f.strings(r.aliases, 'aliases'),
    level,
    graph: f.str(r.graph, 'graph', false),
    subgraph: { nodes: f.strings(sub.nodes, 'subgraph.nodes'), edges: f.strings(sub.edges, 'subgraph.edges') },
    wl_hash: f.str(r.wl_hash, 'wl_hash', false),
    orbit,
    topology: f.str(r.topology, 'topology', false),
    query: validateQuery(r.query, f),
    obfuscations,
    distractors: f.strings(r.distractors, 'distractors'),
    support: f.strings(r.support, 'support'),
    candidates,
    ...(narrowing ? { narrowing } : {}),
    ...(steps ? { steps } : {}),
    ...(r.source === 'external' ? { source: 'external' as const } : {}),
    ...(r.original !== undefined ? { original: f.obj(r.original, 'original') } : {}),
    ...(phrasing ? { phrasing } : {}),
  };
}

export interface Dataset {
  header: QAHeader;
  qas: QA[];
}

/** Reads a dataset: a `{"format": "sailor.qa/1", …}` header line, then one QA per line. */
export function readDataset(path: string): Dataset {
  const { records, tornTail } = readJsonl(path);
  if (tornTail) throw inputError(path, 'the last line is cut short (an interrupted write)');
  const first = records[0];
  if (!first) throw inputError(path, `empty file, expected a "${QA_FORMAT}" header line and QAs`);
  // The header line says what the file is: without it a file of other JSON Lines would be read as QAs.
  if (!isObj(first.value) || !Object.hasOwn(first.value, 'format')) {
    throw inputError(path, `expected the header line {"format": "${QA_FORMAT}", …} first, got a line without "format"`, { line: first.line, field: 'format' });
  }
  if (first.value.format !== QA_FORMAT) {
    throw inputError(path, `expected format "${QA_FORMAT}", got ${describe(first.value.format)}`, { line: first.line, field: 'format' });
  }
  const header = first.value as unknown as QAHeader;
  const ids = new Set<string>();
  const qas = records.slice(1).map(({ line, value }) => {
    const qa = validateQa(value, path, line);
    if (ids.has(qa.id)) throw inputError(path, `duplicate QA id '${qa.id}'`, { line, field: 'id' });
    ids.add(qa.id);
    return qa;
  });
  if (qas.length === 0) throw inputError(path, 'no QA records');
  return { header, qas };
}

/** What a synthesised dataset's header records beyond the options and figures of the run. */
export interface SynthHeaderExtras {
  /** The edges held out: the datasets named and how many edges they cover. */
  exclude?: { datasets: string[]; edges: number };
  llm?: { base_url: string; model: string };
  phrasing?: Record<string, number>;
}

/**
 * A synthesised dataset's header, one layout for `sailor synth` and the synth job (docs/formats.md,
 * `sailor.qa/1`): the graph, seed and generator, the options in effect, then the run's figures.
 */
export function synthHeader(
  graph: string, generator: SynthGenerator | undefined, opts: SynthOptions & { steps?: number }, stats: SynthStats, extras: SynthHeaderExtras = {},
): Record<string, unknown> {
  const { seconds: _seconds, generator: _generator, requested, published, attempts, shapes, extras: extraQas, tighten_steps, fragments_dropped_for_leak, ...figures } = stats;
  return {
    graph,
    rng: opts.rng,
    generator: generator ?? 'subgraph',
    options: {
      ...(generator === 'asearcher' ? { steps: opts.steps } : {}),
      kinds: opts.kinds,
      probs: opts.probs,
      max_constraints: opts.maxConstraints,
      max_tighten: opts.maxTighten,
      min_edges: opts.minEdges,
      max_edges: opts.maxEdges,
      anchor_prob: opts.anchorProb,
      per_shape: opts.perShape,
      ...(extras.exclude ? { exclude: extras.exclude } : {}),
      ...(extras.llm ? { llm: extras.llm } : {}),
    },
    counts: { requested, published, attempts, shapes, extras: extraQas, tighten_steps, fragments_dropped_for_leak },
    ...figures, // rejections, topologies, kinds, levels, orbit_coverage, and the asearcher figures
    ...(extras.phrasing ? { phrasing: extras.phrasing } : {}),
  };
}

export function writeDataset(path: string, header: Record<string, unknown>, qas: QA[]): void {
  const lines = [JSON.stringify({ format: QA_FORMAT, ...header }), ...qas.map((qa) => JSON.stringify(qa))];
  writeFileAtomic(path, lines.join('\n') + '\n');
}

export interface CheckRow {
  id: string;
  answer_id: string;
  candidates: number;
  match: boolean;
  /** Up to 5 of the candidates, to see what else fits when ambiguous. */
  sample: string[];
}

export interface CheckReport {
  total: number;
  /** QAs imported from a published set (`source: 'external'`): no graph query to check, so not counted in total. */
  external: number;
  ok: number;
  ambiguous: number;
  unanswerable: number;
  mismatched: number;
  rows: CheckRow[];
}

/** Re-evaluates every query on the graph: a QA is ok when exactly one candidate, equal to answer_id. */
export function checkDataset(graph: Graph | QueryIndex, all: readonly Pick<QA, 'id' | 'answer_id' | 'query' | 'source'>[]): CheckReport {
  const index = 'format' in graph ? buildQueryIndex(graph) : graph;
  const qas = all.filter((qa) => qa.source !== 'external');
  const rows = qas.map((qa) => {
    const r = evaluateQuery(index, qa.query, { maxSolutions: 1000 });
    const match = r.candidates.length === 1 && r.candidates[0] === qa.answer_id;
    return { id: qa.id, answer_id: qa.answer_id, candidates: r.candidates.length, match, sample: r.candidates.slice(0, 5) };
  });
  return {
    total: rows.length,
    external: all.length - qas.length,
    ok: rows.filter((r) => r.match).length,
    ambiguous: rows.filter((r) => r.candidates > 1).length,
    unanswerable: rows.filter((r) => r.candidates === 0).length,
    mismatched: rows.filter((r) => r.candidates === 1 && !r.match).length,
    rows,
  };
}

/**
 * Whether a dataset fits `graph`: the queries of up to `sample` of its QAs, spread over the set, re-evaluated on it.
 * Null when at least half give their answer (a set made on this graph gives every one); else how many failed. A
 * set made on another graph names entities or relations this one lacks, and its expert would play every rollout
 * in vain. Imported published QAs have no query and are not checked.
 */
export function graphMismatch(graph: Graph | QueryIndex, qas: readonly QA[], sample = 64): { checked: number; failed: number } | null {
  const own = qas.filter((qa) => qa.source !== 'external');
  const step = Math.max(1, own.length / sample);
  const picked = Array.from({ length: Math.min(sample, own.length) }, (_, i) => own[Math.floor(i * step)]!);
  const report = checkDataset(graph, picked);
  return report.total > 0 && report.ok * 2 < report.total ? { checked: report.total, failed: report.total - report.ok } : null;
}

/**
 * Throughput of exact verification, for bench/speed/synth.ts: evaluates the queries of `qas` over the graph in
 * rounds until at least `minSeconds` have passed. Returns QAs verified per second.
 */
export function measureVerifyRate(
  graph: Graph | QueryIndex,
  qas: readonly Pick<QA, 'id' | 'answer_id' | 'query'>[],
  opts: { minSeconds?: number } = {},
): { verified: number; seconds: number; perSecond: number; allUnique: boolean } {
  const index = 'format' in graph ? buildQueryIndex(graph) : graph;
  const minMs = (opts.minSeconds ?? 1) * 1000;
  let verified = 0;
  let allUnique = true;
  const t0 = performance.now();
  if (qas.length === 0) return { verified: 0, seconds: 0, perSecond: 0, allUnique };
  do {
    for (const qa of qas) {
      const r = evaluateQuery(index, qa.query, { maxSolutions: 1000 });
      if (!(r.candidates.length === 1 && r.candidates[0] === qa.answer_id)) allUnique = false;
      verified++;
    }
  } while (performance.now() - t0 < minMs);
  const seconds = (performance.now() - t0) / 1000;
  return { verified, seconds, perSecond: verified / seconds, allUnique };
}
