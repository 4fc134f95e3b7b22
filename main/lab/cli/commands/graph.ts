// `sailor graph …`: structural views of a sailor.graph/1 file (docs/formats.md, 'sailor.graph/1').
import { buildIndex } from '../../graph/graph-index';
import { wlHash } from '../../graph/wl';
import { DEFAULT_ORBIT_BUDGET, orbits } from '../../graph/orbits';
import { readGraphFile } from '../../kg/io';
import { optInt, printResult, sharedOptions, type CliCommand } from '../command';

export const graphCommands: CliCommand[] = [
  {
    path: ['graph', 'wl-hash'],
    summary: 'prints the Weisfeiler-Leman hash of the whole graph (types, relations and directions; ids and names ignored)',
    usage: 'graph wl-hash G.json [--iterations N] [--json]',
    options: {
      iterations: { type: 'string', description: 'WL refinement rounds; hashes compare only at equal rounds', default: '3' },
      ...sharedOptions.json('{"wl_hash", "iterations", "nodes", "edges"}'),
    },
    positionals: { min: 1, max: 1 },
    async run(ctx) {
      const iterations = optInt(ctx, 'iterations', 3, { min: 0, max: 1000 });
      const graph = readGraphFile(ctx.positionals[0]!);
      const hash = wlHash(buildIndex(graph), undefined, iterations);
      printResult(ctx, { wl_hash: hash, iterations, nodes: graph.nodes.length, edges: graph.edges.length }, () => hash);
    },
  },
  {
    path: ['graph', 'orbits'],
    summary: 'prints the exact automorphism orbits of the graph (one structural role per orbit)',
    usage: 'graph orbits G.json [--json] [--budget N]',
    options: {
      ...sharedOptions.json('an array of arrays of node ids'),
      budget: { type: 'string', description: 'search work budget in node-rounds; exceeding it fails rather than guess', default: String(DEFAULT_ORBIT_BUDGET) },
    },
    positionals: { min: 1, max: 1 },
    async run(ctx) {
      const budget = optInt(ctx, 'budget', DEFAULT_ORBIT_BUDGET, { min: 1 });
      const graph = readGraphFile(ctx.positionals[0]!);
      const t0 = performance.now();
      const result = orbits(buildIndex(graph), undefined, { budget });
      const nontrivial = result.filter((o) => o.length > 1).length;
      ctx.io.err(`${result.length} orbits (${nontrivial} with more than one node) over ${graph.nodes.length} nodes in ${Math.round(performance.now() - t0)} ms\n`);
      printResult(ctx, result, () => result.map((o) => o.join(' ')).join('\n'));
    },
  },
];
