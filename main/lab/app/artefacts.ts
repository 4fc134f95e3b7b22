// Reading the artefacts the store lists (graphs, datasets) for the app. Parsed files are cached by
// path and modification time, so browsing a dataset does not re-read and re-validate it every click.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ArtefactRecord, ComparisonFile, ComparisonView, DatasetView, GraphLayout, GraphView, QaDetail } from '../contract';
import { readJsonFile, writeJsonAtomic } from '../store/files';
import type { Graph } from '../formats';
import { LabError } from '../base/errors';
import type { StoreData } from '../store/db';
import { readGraphFile } from '../kg/io';
import { graphStats } from '../kg/stats';
import { readDataset } from '../synth/dataset';
import { buildIndex, type GraphIndex } from '../graph/graph-index';
import { canonicalOrbits } from '../synth/orbits';
import { cycleEdges } from '../graph/cycles';
import { recordOf } from '../util/own';
import { levelOfQuestion } from '../contract/level-breakdown';

const MAX_VIEW_EDGES = 50_000; // beyond this the explorer would not draw it usefully anyway

interface Cached<T> {
  mtimeMs: number;
  value: T;
}

export class ArtefactReader {
  private readonly graphs = new Map<string, Cached<{ view: GraphView; index: GraphIndex }>>();
  private readonly datasets = new Map<string, Cached<DatasetView>>();

  constructor(
    private readonly home: string,
    private readonly data: () => StoreData,
  ) {}

  private find(collection: 'graphs' | 'datasets' | 'comparisons', id: string): ArtefactRecord {
    const a = this.data()[collection].find((x) => x.id === id);
    if (!a) throw new LabError('not_found', `no ${collection.slice(0, -1)} with id '${id}'`);
    return a;
  }

  /** A checkpoint comparison with the question texts of its dataset (when the dataset is still there). */
  comparison(id: string): ComparisonView {
    const artefact = this.find('comparisons', id);
    this.mtime(artefact);
    const file = readJsonFile(join(this.home, artefact.path)) as ComparisonFile;
    const datasetId = String(artefact.info.datasetId ?? '');
    const qas = this.data().datasets.some((d) => d.id === datasetId) ? this.dataset(datasetId).qas : [];
    const questionText = recordOf(qas.map((qa) => [qa.id, qa.question] as const));
    const questionLevels = recordOf(qas.map((qa) => [qa.id, levelOfQuestion(qa)] as const));
    return { artefact, ...file, questionText, questionLevels };
  }

  private mtime(artefact: ArtefactRecord): number {
    try {
      return statSync(join(this.home, artefact.path)).mtimeMs;
    } catch {
      throw new LabError('not_found', `${artefact.path} is listed in the store but missing from the data directory`);
    }
  }

  private loadGraph(id: string): { view: GraphView; index: GraphIndex } {
    const artefact = this.find('graphs', id);
    const mtimeMs = this.mtime(artefact);
    const hit = this.graphs.get(id);
    if (hit && hit.mtimeMs === mtimeMs) return hit.value;
    const graph: Graph = readGraphFile(join(this.home, artefact.path));
    if (graph.edges.length > MAX_VIEW_EDGES) {
      throw new LabError('unsupported', `graph ${id} has ${graph.edges.length} edges; the explorer shows up to ${MAX_VIEW_EDGES}`);
    }
    const view: GraphView = {
      artefact,
      graph,
      stats: graphStats(graph),
      cycleEdges: [...cycleEdges(graph.nodes.map((n) => n.id), graph.edges)],
    };
    const value = { view, index: buildIndex(graph) };
    this.graphs.set(id, { mtimeMs, value });
    return value;
  }

  graph(id: string): GraphView {
    return this.loadGraph(id).view;
  }

  /** Where a graph's layout is kept: beside its file. */
  private layoutFile(id: string): string {
    return join(this.home, `${this.find('graphs', id).path}.layout.json`);
  }

  /** The graph's kept layout; null when none was saved or it no longer fits the graph's nodes. */
  layout(id: string): GraphLayout | null {
    const file = this.layoutFile(id);
    if (!existsSync(file)) return null;
    const saved = readJsonFile(file) as Partial<GraphLayout>;
    const nodes = this.graph(id).graph.nodes.length;
    const fits = saved.nodes === nodes && Array.isArray(saved.xy) && saved.xy.length === 2 * nodes && saved.xy.every((v) => typeof v === 'number' && Number.isFinite(v));
    return fits ? { nodes, xy: saved.xy! } : null;
  }

  /** Keeps a computed layout with the graph (x then y of each node, in the file's node order). */
  saveLayout(id: string, xy: readonly number[]): { nodes: number } {
    const nodes = this.graph(id).graph.nodes.length;
    if (xy.length !== 2 * nodes) throw new LabError('bad_request', `xy: graph ${id} has ${nodes} nodes, so a layout has ${2 * nodes} numbers (x then y of each); got ${xy.length}`);
    writeJsonAtomic(this.layoutFile(id), { nodes, xy });
    return { nodes };
  }

  dataset(id: string): DatasetView {
    const artefact = this.find('datasets', id);
    const mtimeMs = this.mtime(artefact);
    const hit = this.datasets.get(id);
    if (hit && hit.mtimeMs === mtimeMs) return hit.value;
    const { header, qas } = readDataset(join(this.home, artefact.path));
    const value: DatasetView = { artefact, header: header as Record<string, unknown>, qas };
    this.datasets.set(id, { mtimeMs, value });
    return value;
  }

  qa(datasetId: string, qaId: string): QaDetail {
    const ds = this.dataset(datasetId);
    const qa = ds.qas.find((q) => q.id === qaId);
    if (!qa) throw new LabError('not_found', `dataset ${datasetId} has no QA '${qaId}'`);
    const graphId = String(ds.artefact.info.graphId ?? qa.graph);
    const { index } = this.loadGraph(graphId);
    return { qa, orbits: canonicalOrbits(index, qa.subgraph) };
  }
}
