// `sailor kg build` and `sailor kg stats` (docs/formats.md, 'Command-line contract').
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { printResult, progressLine, reqString, sharedOptions, usageError, type CliCommand } from '../command';
import { jobOptions, parseJobFlags, type JobFlags } from '../job-flags';
import { EXPAND_DEFAULTS } from '../../kg/expand';
import { buildGraph } from '../../kbsource/build';
import { readGraphFile, writeGraphFile } from '../../kg/io';
import { graphStats } from '../../kg/stats';
import type { GraphStats } from '../../formats/index';

function humanStats(s: GraphStats): string {
  const list = (counts: Record<string, number>): string =>
    Object.entries(counts)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([k, v]) => `  ${k.padEnd(24)} ${v}`)
      .join('\n');
  return [
    `nodes       ${s.nodes}`,
    `edges       ${s.edges}`,
    `components  ${s.components}`,
    `cycle rank  ${s.cycle_rank}   (edges - nodes + components, undirected multigraph)`,
    `types (${Object.keys(s.types).length}):`,
    list(s.types),
    `relations (${Object.keys(s.relations).length}):`,
    list(s.relations),
  ].join('\n');
}

/** `kg build` takes the kg.build job's params as flags; the graph goes to --out instead of the store. */
const buildFlags: JobFlags<'kg.build'> = { kind: 'kg.build', omit: ['name'], engineDefaults: { expandProb: EXPAND_DEFAULTS.expandProb } };

const build: CliCommand = {
  path: ['kg', 'build'],
  job: buildFlags,
  summary: 'builds a knowledge graph by random-walk expansion over the bundled knowledge base, an RDF dump, a Wikidata JSON dump or a SPARQL endpoint',
  usage: 'kg build --out G.json [--kb bundled|rdf:FILE|wikidata:FILE|sparql:URL] [--mapping wikidata|dbpedia|rdf|FILE.json] [--seed ID] [--max-edges N] [--rng S] [--expand-prob P]',
  options: {
    out: { type: 'string', description: 'output graph file (sailor.graph/1)' },
    ...jobOptions(buildFlags),
  },
  async run(ctx) {
    const params = parseJobFlags(ctx, buildFlags);
    const out = resolve(reqString(ctx, 'out'));
    if (existsSync(out) && statSync(out).isDirectory()) throw usageError(`--out ${out} is a directory, expected a file path`);
    if (!existsSync(dirname(out))) throw usageError(`--out: folder ${dirname(out)} does not exist`);

    // Written only once whole (and atomically): a source that fails mid-walk leaves no file behind.
    const graph = await buildGraph(params, { kb: progressLine(ctx.io, 'kb'), kg: progressLine(ctx.io, 'kg') });
    writeGraphFile(out, graph);
    const s = graphStats(graph);
    ctx.io.err(`kg: wrote ${out}: ${s.nodes} nodes, ${s.edges} edges, ${Object.keys(s.types).length} types, cycle rank ${s.cycle_rank}, seed ${String(graph.info?.seed)}\n`);
  },
};

const stats: CliCommand = {
  path: ['kg', 'stats'],
  summary: 'prints nodes, edges, components, cycle rank, types and relations of a graph file',
  usage: 'kg stats G.json [--json]',
  options: { ...sharedOptions.json('the stats') },
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const graph = readGraphFile(ctx.positionals[0]!);
    const s = graphStats(graph);
    printResult(ctx, s, () => humanStats(s));
  },
};

export const kgCommands: CliCommand[] = [build, stats];
