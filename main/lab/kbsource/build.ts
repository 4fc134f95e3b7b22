// `kg build` from its params, for the CLI and the kg.build job alike: the bundled knowledge base (in memory)
// or a source (fetched as the walk goes). The caller writes the graph, atomically, only once it is whole.
import type { Graph } from '../formats/index';
import type { KgBuildParams } from '../contract/jobs';
import { loadKbIndex } from '../kb/index';
import { expandFromSource, expandGraph, type ExpandOptions } from '../kg/expand';
import { openKbSource, parseKbSpec } from './index';

export interface BuildProgress {
  /** Loading the knowledge base (a fraction of it, where known). */
  kb: (fraction: number, message: string) => void;
  /** The walk. */
  kg: (fraction: number, message: string) => void;
}

export async function buildGraph(p: Pick<KgBuildParams, 'seed' | 'maxEdges' | 'rng' | 'expandProb' | 'kb' | 'mapping' | 'license' | 'source'>, progress: BuildProgress, home?: string): Promise<Graph> {
  const spec = parseKbSpec(p.kb);
  const options: ExpandOptions = { maxEdges: p.maxEdges, rng: p.rng, ...(p.expandProb !== undefined ? { expandProb: p.expandProb } : {}), onProgress: progress.kg };
  if (spec.kind === 'bundled') {
    if (p.mapping || p.license || p.source) progress.kb(0, 'the bundled knowledge base records its own sources and licences: --mapping, --license and --source are ignored');
    const kb = await loadKbIndex({ ...(home ? { home } : {}), onProgress: progress.kb });
    return expandGraph(kb, { ...options, ...(p.seed ? { seed: p.seed } : {}) });
  }
  const provenance = { ...(p.license ? { licence: p.license } : {}), ...(p.source ? { source: p.source } : {}) };
  const source = await openKbSource(spec, { ...(p.mapping ? { mapping: p.mapping } : {}), provenance, onProgress: (m) => progress.kb(0.5, m) });
  progress.kb(1, `knowledge base ${spec.kind}:${spec.location}, mapping ${source.mapper.mapping.name}`);
  const seed = p.seed === undefined ? undefined : source.resolveSeed(p.seed);
  const graph = await expandFromSource(source, { ...options, ...(seed ? { seed } : {}) });
  const figures = source.store.figures?.();
  if (figures && graph.info) graph.info.kb = { ...(graph.info.kb as object), ...figures };
  return graph;
}
