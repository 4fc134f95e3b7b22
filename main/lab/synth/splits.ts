// Keeping splits apart: the edges a dataset's QAs use, to exclude from another split built on the same
// graph (a held-out set whose facts the training set never asks about).
import type { Graph, QA } from '../formats';
import { LabError } from '../base/errors';

/** Every edge the QAs' subgraphs use: what `excludeEdges` takes to keep another split's facts out. */
export function datasetEdges(qas: readonly Pick<QA, 'subgraph'>[]): Set<string> {
  return new Set(qas.flatMap((qa) => qa.subgraph.edges));
}

/**
 * The edges of another split's QAs, to keep out of a new one (`excludeEdges`). A split made on another
 * graph shares no edge id with this one and would exclude nothing, silently: that is refused, naming
 * `what` (the option that gave the split).
 */
export function edgesToExclude(graph: Pick<Graph, 'edges'>, qas: readonly Pick<QA, 'subgraph'>[], what: string): Set<string> {
  const edges = datasetEdges(qas);
  if (edges.size > 0 && !graph.edges.some((e) => edges.has(e.id))) {
    throw new LabError('bad_request', `${what} shares no edge with the graph; it must be a dataset built on the same graph`);
  }
  return edges;
}

/** The edges of several other splits (each checked as edgesToExclude checks one), to keep out of a new one. */
export function edgesOfSplits(graph: Pick<Graph, 'edges'>, splits: readonly { qas: readonly Pick<QA, 'subgraph'>[]; what: string }[]): Set<string> {
  return new Set(splits.flatMap((s) => [...edgesToExclude(graph, s.qas, s.what)]));
}
