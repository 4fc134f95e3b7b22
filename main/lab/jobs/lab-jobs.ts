// Job runners for the synthesis engine: build a graph, synthesise a dataset. Each writes its output file
// atomically into the data directory and returns the artefact record the manager stores.
import { join } from 'node:path';
import type { ArtefactRecord } from '../store/db';
import { artefactRel, datasetFile, graphFile } from '../store/layout';
import { buildGraph } from '../kbsource/build';
import { readGraphFile, writeGraphFile } from '../kg/io';
import { graphStats } from '../kg/stats';
import { synthesizeWith } from '../synth/asearcher';
import { edgesOfSplits } from '../synth/splits';
import { readDataset, synthHeader, writeDataset } from '../synth/dataset';
import { resolveOptions, SYNTH_DEFAULTS, type SynthInput } from '../synth/options';
import { LabError } from '../base/errors';
import { kgBuildParams, synthParams } from '../contract/jobs';
import type { JobContext } from './context';
import type { GraphKb } from '../contract/index';

/** An imported knowledge base's description as the graph list carries it (About lists the licences). */
function graphKb(kb: unknown): { kb?: GraphKb } {
  if (!kb || typeof kb !== 'object') return {};
  const k = kb as Record<string, unknown>;
  const text = (key: string): Record<string, string> => (typeof k[key] === 'string' ? { [key]: k[key] } : {});
  return { kb: { kind: String(k.kind), location: String(k.location), source: String(k.source), ...text('mapping'), ...text('licence'), ...text('licence_from'), ...text('url') } };
}

export async function runKgBuild(raw: unknown, ctx: JobContext): Promise<{ artefact: ArtefactRecord }> {
  const p = kgBuildParams.parse(raw);
  // Loading the knowledge base is the first ~half of the bar (it is cached after the first build).
  const graph = await buildGraph(
    p,
    { kb: (f, message) => ctx.progress({ fraction: f * 0.5, message }), kg: (f, message) => ctx.progress({ fraction: 0.5 + f * 0.45, message }) },
    ctx.home,
  );
  const rel = artefactRel('graphs', ctx.jobId);
  ctx.progress({ fraction: 0.97, message: `writing ${rel}` });
  writeGraphFile(join(ctx.home, rel), graph);
  const stats = graphStats(graph);
  return {
    artefact: {
      id: ctx.jobId,
      name: p.name ?? `graph rng ${p.rng}, ${p.maxEdges} edges`,
      path: rel,
      createdAt: new Date().toISOString(),
      info: { params: p, stats, ...graphKb(graph.info?.kb) },
    },
  };
}

export async function runSynth(raw: unknown, ctx: JobContext): Promise<{ artefact: ArtefactRecord }> {
  const p = synthParams.parse(raw);
  ctx.progress({ fraction: 0, message: `reading graph ${p.graphId}` });
  const graph = readGraphFile(graphFile(ctx.home, p.graphId));
  const excludedIds = [...(p.excludeDatasetId ? [p.excludeDatasetId] : []), ...(p.excludeDatasetIds ?? [])];
  const excludeEdges = excludedIds.length
    ? edgesOfSplits(graph, excludedIds.map((id) => ({ qas: readDataset(datasetFile(ctx.home, id)).qas, what: `excludeDatasetId: dataset ${id} (graph ${p.graphId})` })))
    : undefined;
  const onProgress = ({ published, target, attempts }: { published: number; target: number; attempts: number }): void =>
    ctx.progress({ fraction: Math.min(0.98, published / target), message: `${published} of ${target} QAs verified (${attempts} attempts)`, done: published, total: target });
  const input: SynthInput = {
    count: p.count,
    rng: p.rng,
    graphName: p.graphId,
    ...(p.kinds ? { kinds: p.kinds as never } : {}), // checked against the known kinds by resolveOptions
    ...(p.minEdges !== undefined ? { minEdges: p.minEdges } : {}),
    ...(p.maxEdges !== undefined ? { maxEdges: p.maxEdges } : {}),
    ...(p.anchorProb !== undefined ? { anchorProb: p.anchorProb } : {}),
    ...(p.maxConstraints !== undefined ? { maxConstraints: p.maxConstraints } : {}),
    ...(p.perShape !== undefined ? { perShape: p.perShape } : {}),
    ...(excludeEdges ? { excludeEdges } : {}),
  };
  const { qas, stats } = synthesizeWith(p.generator, graph, { ...input, steps: p.steps, onProgress });
  if (qas.length < p.count && !(p.allowFewer && qas.length > 0)) {
    throw new LabError('conflict', `only ${qas.length} of ${p.count} QAs could be verified on this graph; build a larger graph or ask for fewer`);
  }
  const rel = artefactRel('datasets', ctx.jobId);
  const exclude = excludeEdges ? { datasets: excludedIds, edges: excludeEdges.size } : undefined;
  const opts = { ...resolveOptions(input), steps: p.steps ?? SYNTH_DEFAULTS.steps };
  writeDataset(join(ctx.home, rel), synthHeader(p.graphId, p.generator, opts, stats, { exclude }), qas);
  return {
    artefact: {
      id: ctx.jobId,
      // Named in words (the graph by its size, not its id): the name heads Compare and the pickers.
      name: p.name ?? `${qas.length} ${p.generator === 'asearcher' ? 'ASearcher ' : ''}QAs from a ${graph.edges.length}-edge graph, rng ${p.rng}`,
      path: rel,
      createdAt: new Date().toISOString(),
      info: { params: p, graphId: p.graphId, stats },
    },
  };
}
