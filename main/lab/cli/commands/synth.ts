// `sailor synth` (synthesise verified QAs from a graph) and `sailor check` (re-evaluate a dataset's
// queries on a graph). docs/formats.md: 'sailor.qa/1', 'Command-line contract'.
import { llmApiKey } from '../../agent/llm-env';
import { basename } from 'node:path';
import type { QA } from '../../formats';
import { readGraphFile } from '../../kg/io';
import { synthesizeWith } from '../../synth/asearcher';
import { resolveOptions, SYNTH_DEFAULTS, type SynthInput } from '../../synth/options';
import { edgesOfSplits } from '../../synth/splits';
import { checkDataset, readDataset, synthHeader, writeDataset } from '../../synth/dataset';
import { isObfuscationKind, type ObfuscationKind } from '../../synth/obfuscate';
import { phraseQuestion, type PhraseOutcome } from '../../synth/phrase';
import { optInt, optString, printResult, reqString, sharedOptions, usageError, type CliCommand } from '../command';
import { jobOptions, parseJobFlags, type JobFlags } from '../job-flags';

function checkKinds(kinds: string[] | undefined): ObfuscationKind[] | undefined {
  for (const k of kinds ?? []) if (!isObfuscationKind(k)) throw usageError(`--kinds: unknown kind '${k}'`);
  return kinds as ObfuscationKind[] | undefined;
}

/**
 * `synth` takes the synth job's params as flags; the graph and the held-out datasets are files here
 * (--graph, --exclude) where the job names stored ones, and a short set is exit 1 rather than allowFewer.
 */
const synthFlags: JobFlags<'synth'> = {
  kind: 'synth',
  omit: ['name', 'graphId', 'excludeDatasetId', 'excludeDatasetIds', 'allowFewer'],
  standIns: { graphId: 'file' },
  engineDefaults: { generator: 'subgraph', ...SYNTH_DEFAULTS },
};

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
    job: synthFlags,
    summary: 'synthesises N verified QAs (sailor.qa/1) from a knowledge graph',
    usage: 'synth --graph G.json --out D.jsonl [--count N] [--generator subgraph|asearcher] [--steps N] [--rng S] [--kinds a,b|none] [--probs a=0.5,…] [--exclude TRAIN.jsonl] [--json]',
    options: {
      ...sharedOptions.graph(),
      out: { type: 'string', description: 'the dataset to write (JSON Lines, written atomically)' },
      ...jobOptions(synthFlags),
      probs: { type: 'string', description: 'per-kind injection probability, e.g. vague_time=0.8,distractor=0.2' },
      'max-tighten': { type: 'string', description: 'tightening steps per QA before it counts as ambiguous', default: String(SYNTH_DEFAULTS.maxTighten) },
      exclude: { type: 'string', description: 'datasets (comma-separated) whose subgraph edges no QA may use (a held-out set disjoint from its training set)' },
      'llm-url': { type: 'string', description: 'OpenAI-compatible base URL (…/v1) to rephrase questions; key from SAILOR_LLM_API_KEY (or the deprecated SAILOR_LLM_KEY)' },
      'llm-model': { type: 'string', description: 'model name for --llm-url' },
      ...sharedOptions.json(),
    },
    async run(ctx) {
      const p = parseJobFlags(ctx, synthFlags);
      const graphPath = reqString(ctx, 'graph');
      const out = reqString(ctx, 'out');
      const count = p.count;
      const llmUrl = optString(ctx, 'llm-url');
      const llmModel = optString(ctx, 'llm-model');
      if ((llmUrl === undefined) !== (llmModel === undefined)) throw usageError('--llm-url and --llm-model go together');
      const input: SynthInput = {
        count,
        rng: p.rng,
        graphName: basename(graphPath),
        kinds: checkKinds(p.kinds),
        probs: parseProbs(optString(ctx, 'probs')),
        maxConstraints: p.maxConstraints,
        maxTighten: optInt(ctx, 'max-tighten', SYNTH_DEFAULTS.maxTighten, { min: 0, max: 50 }),
        minEdges: p.minEdges,
        maxEdges: p.maxEdges,
        anchorProb: p.anchorProb,
        perShape: p.perShape,
      };
      const { generator } = p;
      const steps = p.steps ?? SYNTH_DEFAULTS.steps;
      const exclude = optString(ctx, 'exclude');
      const files = (exclude ?? '').split(',').map((f) => f.trim()).filter(Boolean);
      const opts = resolveOptions(input); // usage errors before reading anything
      const graph = readGraphFile(graphPath);
      if (files.length) {
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
      const header = synthHeader(basename(graphPath), generator, { ...opts, steps }, stats, {
        ...(files.length ? { exclude: { datasets: files.map((f) => basename(f)), edges: input.excludeEdges!.size } } : {}),
        ...(llmUrl && llmModel ? { llm: { base_url: llmUrl, model: llmModel } } : {}),
        ...(phrasing ? { phrasing } : {}),
      });
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
      ...sharedOptions.graph(),
      ...sharedOptions.json('the report (candidates per QA)'),
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
