// `sailor synth` (synthesise verified QAs from a graph) and `sailor check` (re-evaluate a dataset's
// queries on a graph). docs/formats.md: 'sailor.qa/1', 'Command-line contract'.
import { llmApiKey } from '../../agent/llm-env';
import { basename } from 'node:path';
import type { QA } from '../../formats';
import { readGraphFile } from '../../kg/io';
import { synthesizeWith } from '../../synth/asearcher';
import { SYNTH_GENERATORS, type SynthGenerator } from '../../contract/jobs';
import { resolveOptions, type SynthInput } from '../../synth/options';
import { edgesOfSplits } from '../../synth/splits';
import { checkDataset, readDataset, writeDataset } from '../../synth/dataset';
import { isObfuscationKind, type ObfuscationKind } from '../../synth/obfuscate';
import { phraseQuestion, type PhraseOutcome } from '../../synth/phrase';
import { optInt, optNumber, optString, printResult, reqString, usageError, type CliCommand } from '../command';

function parseKinds(text: string | undefined): ObfuscationKind[] | undefined {
  if (text === undefined) return undefined;
  if (text.trim() === 'none') return []; // plain questions: only tightening by naming entities
  const kinds = text.split(',').map((s) => s.trim()).filter(Boolean);
  for (const k of kinds) if (!isObfuscationKind(k)) throw usageError(`--kinds: unknown kind '${k}'`);
  return kinds as ObfuscationKind[];
}

function parseProbs(text: string | undefined): Partial<Record<ObfuscationKind, number>> | undefined {
  if (text === undefined) return undefined;
  const out: Partial<Record<ObfuscationKind, number>> = {};
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [k, v] = part.split('=');
    if (!k || !isObfuscationKind(k)) throw usageError(`--probs: unknown kind '${k ?? part}' (expected kind=p,…)`);
    const p = Number(v);
    if (v === undefined || v.trim() === '' || !(p >= 0 && p <= 1)) throw usageError(`--probs: ${k} needs a probability in [0, 1], got '${v ?? ''}'`);
    out[k] = p;
  }
  return out;
}

/** Names of entities a QA's prose mentions (constants, distractors, reference entities), for the LLM check. */
function namedInQuestion(qa: QA, nameOf: Map<string, string>): string[] {
  const ids = new Set<string>([...qa.distractors]);
  for (const p of qa.query.patterns) for (const t of [p.s, p.o]) if (!t.startsWith('?')) ids.add(t);
  for (const s of qa.support) {
    const dot = s.lastIndexOf('.'); // `${nodeId}.${attr}`: ids may contain dots, attribute names do not
    if (dot > 0) ids.add(s.slice(0, dot));
  }
  return [...ids].flatMap((id) => {
    const name = nameOf.get(id);
    return name && id !== qa.answer_id && qa.question.includes(name) ? [name] : [];
  });
}

export const synthCommands: CliCommand[] = [
  {
    path: ['synth'],
    summary: 'synthesises N verified QAs (sailor.qa/1) from a knowledge graph',
    usage: 'synth --graph G.json --count N --out D.jsonl [--generator subgraph|asearcher] [--steps N] [--rng S] [--kinds a,b|none] [--probs a=0.5,…] [--exclude TRAIN.jsonl] [--json]',
    options: {
      graph: { type: 'string', description: 'the sailor.graph/1 file' },
      count: { type: 'string', description: 'number of QAs to publish' },
      out: { type: 'string', description: 'the dataset to write (JSON Lines, written atomically)' },
      rng: { type: 'string', description: 'seed of every random choice', default: '1' },
      generator: { type: 'string', description: 'subgraph (sampled subgraphs + obfuscation) or asearcher (inject/fuzz steps from one-hop lookups)', default: 'subgraph' },
      steps: { type: 'string', description: 'asearcher: inject/fuzz steps per seed', default: '3' },
      kinds: { type: 'string', description: 'obfuscation kinds to use, comma-separated, or none (default: all)' },
      probs: { type: 'string', description: 'per-kind injection probability, e.g. vague_time=0.8,distractor=0.2' },
      'max-constraints': { type: 'string', description: 'obfuscation fragments injected up front', default: '3' },
      'max-tighten': { type: 'string', description: 'tightening steps per QA before it counts as ambiguous', default: '6' },
      'min-edges': { type: 'string', description: 'smallest subgraph, in edges', default: '2' },
      'max-edges': { type: 'string', description: 'largest subgraph, in edges', default: '6' },
      'anchor-prob': { type: 'string', description: 'chance of naming one non-answer entity in the question up front', default: '0.35' },
      'per-shape': { type: 'string', description: 'subgraphs kept per WL hash (more: many QAs of one shape on other entities)', default: '1' },
      exclude: { type: 'string', description: 'datasets (comma-separated) whose subgraph edges no QA may use (a held-out set disjoint from its training set)' },
      'llm-url': { type: 'string', description: 'OpenAI-compatible base URL (…/v1) to rephrase questions; key from SAILOR_LLM_API_KEY (or the deprecated SAILOR_LLM_KEY)' },
      'llm-model': { type: 'string', description: 'model name for --llm-url' },
      json: { type: 'boolean', description: 'print the summary as JSON' },
    },
    async run(ctx) {
      const graphPath = reqString(ctx, 'graph');
      const out = reqString(ctx, 'out');
      const count = optInt(ctx, 'count', NaN, { min: 1 });
      if (!Number.isFinite(count)) throw usageError('--count is required');
      const llmUrl = optString(ctx, 'llm-url');
      const llmModel = optString(ctx, 'llm-model');
      if ((llmUrl === undefined) !== (llmModel === undefined)) throw usageError('--llm-url and --llm-model go together');
      const input: SynthInput = {
        count,
        rng: optInt(ctx, 'rng', 1),
        graphName: basename(graphPath),
        kinds: parseKinds(optString(ctx, 'kinds')),
        probs: parseProbs(optString(ctx, 'probs')),
        maxConstraints: optInt(ctx, 'max-constraints', 3, { min: 0, max: 20 }),
        maxTighten: optInt(ctx, 'max-tighten', 6, { min: 0, max: 50 }),
        minEdges: optInt(ctx, 'min-edges', 2, { min: 1 }),
        maxEdges: optInt(ctx, 'max-edges', 6, { min: 1 }),
        anchorProb: optNumber(ctx, 'anchor-prob', 0.35),
        perShape: optInt(ctx, 'per-shape', 1, { min: 1 }),
      };
      const generator = (optString(ctx, 'generator') ?? 'subgraph') as SynthGenerator;
      if (!SYNTH_GENERATORS.includes(generator)) throw usageError(`--generator: expected ${SYNTH_GENERATORS.join(' or ')}, got '${generator}'`);
      const steps = optInt(ctx, 'steps', 3, { min: 1, max: 8 });
      const exclude = optString(ctx, 'exclude');
      const opts = resolveOptions(input); // usage errors before reading anything
      const graph = readGraphFile(graphPath);
      if (exclude) {
        const files = exclude.split(',').map((f) => f.trim()).filter(Boolean);
        input.excludeEdges = edgesOfSplits(graph, files.map((f) => ({ qas: readDataset(f).qas, what: `--exclude ${f} (graph ${graphPath})` })));
      }
      let lastShown = -1;
      const onProgress = ({ published, target, attempts }: { published: number; target: number; attempts: number }): void => {
        const step = Math.max(1, Math.floor(target / 10));
        if (published === target || Math.floor(published / step) !== Math.floor(lastShown / step)) {
          lastShown = published;
          ctx.io.err(`synth: ${published}/${target} QAs (${attempts} attempts)\n`);
        }
      };
      const { qas, stats } = synthesizeWith(generator, graph, { ...input, steps, onProgress });

      let phrasing: Partial<Record<PhraseOutcome, number>> | undefined;
      if (llmUrl && llmModel) {
        phrasing = {};
        const nameOf = new Map(graph.nodes.map((n) => [n.id, n.name]));
        const cfg = { baseUrl: llmUrl, model: llmModel, apiKey: llmApiKey() };
        for (const [i, qa] of qas.entries()) {
          const r = await phraseQuestion(cfg, { question: qa.question, answer: qa.answer, aliases: qa.aliases, keep: namedInQuestion(qa, nameOf) });
          phrasing[r.outcome] = (phrasing[r.outcome] ?? 0) + 1;
          if (r.outcome === 'error' && (phrasing.error ?? 0) <= 3) ctx.io.err(`synth: ${qa.id}: ${r.detail}\n`);
          qa.question = r.question;
          // Each QA says what the rewrite did; a refused one keeps the rule text and records why.
          qa.phrasing = { outcome: r.outcome, ...(r.outcome !== 'rewritten' && r.detail ? { detail: r.detail } : {}) };
          if ((i + 1) % 20 === 0) ctx.io.err(`synth: phrased ${i + 1}/${qas.length}\n`);
        }
      }

      const { seconds, ...counts } = stats;
      const header = {
        graph: basename(graphPath),
        rng: opts.rng,
        generator,
        options: {
          ...(generator === 'asearcher' ? { steps } : {}),
          kinds: opts.kinds,
          probs: opts.probs,
          max_constraints: opts.maxConstraints,
          max_tighten: opts.maxTighten,
          min_edges: opts.minEdges,
          max_edges: opts.maxEdges,
          anchor_prob: opts.anchorProb,
          per_shape: opts.perShape,
          ...(exclude ? { exclude: { dataset: basename(exclude), edges: input.excludeEdges!.size } } : {}),
          ...(llmUrl ? { llm: { base_url: llmUrl, model: llmModel } } : {}),
        },
        counts: {
          requested: counts.requested,
          published: counts.published,
          attempts: counts.attempts,
          shapes: counts.shapes,
          extras: counts.extras,
          tighten_steps: counts.tighten_steps,
          fragments_dropped_for_leak: counts.fragments_dropped_for_leak,
        },
        rejections: counts.rejections,
        topologies: counts.topologies,
        kinds: counts.kinds,
        levels: counts.levels,
        orbit_coverage: counts.orbit_coverage,
        ...(counts.asearcher ? { asearcher: counts.asearcher } : {}),
        ...(phrasing ? { phrasing } : {}),
      };
      writeDataset(out, header, qas);
      const summary = { out, ...header, seconds: Number(seconds.toFixed(3)), qas_per_second: Number((qas.length / Math.max(seconds, 1e-9)).toFixed(1)) };
      printResult(ctx, summary, () =>
        [
          `wrote ${qas.length}/${count} QAs to ${out} in ${seconds.toFixed(2)} s (${counts.attempts} attempts, ${counts.shapes} shapes)`,
          `topologies: ${JSON.stringify(counts.topologies)}`,
          `kinds: ${JSON.stringify(counts.kinds)}`,
          `levels: ${JSON.stringify(counts.levels)}`,
          `orbits covered: ${counts.orbit_coverage.covered}/${counts.orbit_coverage.orbits} over ${counts.orbit_coverage.hashes} shapes`,
          `rejections: ${JSON.stringify(counts.rejections)}`,
          ...(counts.asearcher ? [`asearcher: ${JSON.stringify(counts.asearcher)}`] : []),
          ...(phrasing ? [`phrasing: ${JSON.stringify(phrasing)}`] : []),
        ].join('\n'),
      );
      if (qas.length < count) {
        ctx.io.err(`synth: only ${qas.length} of ${count} QAs could be verified on this graph (see rejections)\n`);
        return 1;
      }
      return 0;
    },
  },
  {
    path: ['check'],
    summary: "re-evaluates every QA's query on the graph; ok when exactly one candidate equal to answer_id",
    usage: 'check --graph G.json D.jsonl [--json]',
    options: {
      graph: { type: 'string', description: 'the sailor.graph/1 file' },
      json: { type: 'boolean', description: 'print the report (candidates per QA) as JSON' },
    },
    positionals: { min: 1, max: 1 },
    async run(ctx) {
      const graphPath = reqString(ctx, 'graph');
      const dataPath = ctx.positionals[0]!;
      const { qas } = readDataset(dataPath);
      const graph = readGraphFile(graphPath);
      const t0 = performance.now();
      const report = checkDataset(graph, qas);
      const seconds = (performance.now() - t0) / 1000;
      ctx.io.err(`check: ${report.total} QAs in ${seconds.toFixed(2)} s\n`);
      if (report.external) ctx.io.err(`check: skipped ${report.external} QA(s) imported from a published set (source "external": no graph query to check)\n`);
      printResult(ctx, { dataset: dataPath, graph: graphPath, ...report }, () => {
        const bad = report.rows.filter((r) => !r.match);
        return [
          ...bad.map((r) => `${r.id}: ${r.candidates} candidate(s)${r.candidates ? ` [${r.sample.join(', ')}${r.candidates > r.sample.length ? ', …' : ''}]` : ''}, expected ${r.answer_id}`),
          `${report.ok}/${report.total} ok (${report.ambiguous} ambiguous, ${report.unanswerable} with no candidate, ${report.mismatched} with another answer)`,
        ].join('\n');
      });
      return report.ok === report.total ? 0 : 1;
    },
  },
];
