// An adjacency index over a sailor.graph/1 Graph: node and edge by id, out-/in-edges and undirected
// neighbours per node. Adjacency is stored as CSR (one offsets array + one flat Int32Array per relation),
// so ~100k nodes cost a few typed arrays rather than 100k small JS arrays. The integer methods (`*Idx`)
// are for hot loops in this module; the id methods are the convenient public face.
import type { Graph, GraphEdge, GraphNode } from '../formats/index';
import { LabError } from '../base/errors';

/** A set of ids into a Graph. `edges` are the edges taken, not implied: a subgraph is not necessarily induced. */
export interface Subgraph {
  nodes: string[];
  edges: string[];
}

interface Csr {
  start: Int32Array; // length n + 1
  items: Int32Array;
}

function buildCsr(n: number, keys: Int32Array, values: Int32Array): Csr {
  const start = new Int32Array(n + 1);
  for (let i = 0; i < keys.length; i++) start[keys[i]! + 1]!++;
  for (let v = 0; v < n; v++) start[v + 1]! += start[v]!;
  const fill = start.slice(0, n);
  const items = new Int32Array(keys.length);
  // Stable: items of one key keep the order they had in the input (graph order).
  for (let i = 0; i < keys.length; i++) items[fill[keys[i]!]!++] = values[i]!;
  return { start, items };
}

export class GraphIndex {
  readonly graph: Graph;
  readonly nodeCount: number;
  readonly edgeCount: number;
  private readonly nodeIdx = new Map<string, number>();
  private readonly edgeIdx = new Map<string, number>();
  /** Source and target node index of every edge, by edge index. */
  readonly edgeSrc: Int32Array;
  readonly edgeDst: Int32Array;
  private readonly outCsr: Csr; // node -> edge indices with that source
  private readonly inCsr: Csr; // node -> edge indices with that target
  private readonly nbrCsr: Csr; // node -> distinct adjacent nodes (either direction), self excluded

  constructor(graph: Graph) {
    this.graph = graph;
    const { nodes, edges } = graph;
    this.nodeCount = nodes.length;
    this.edgeCount = edges.length;
    nodes.forEach((node, i) => {
      if (this.nodeIdx.has(node.id)) throw new LabError('bad_input', `graph: duplicate node id '${node.id}'`);
      this.nodeIdx.set(node.id, i);
    });
    this.edgeSrc = new Int32Array(edges.length);
    this.edgeDst = new Int32Array(edges.length);
    edges.forEach((edge, j) => {
      if (this.edgeIdx.has(edge.id)) throw new LabError('bad_input', `graph: duplicate edge id '${edge.id}'`);
      this.edgeIdx.set(edge.id, j);
      const s = this.nodeIdx.get(edge.source);
      const t = this.nodeIdx.get(edge.target);
      if (s === undefined) throw new LabError('bad_input', `graph: edge '${edge.id}' has unknown source '${edge.source}'`);
      if (t === undefined) throw new LabError('bad_input', `graph: edge '${edge.id}' has unknown target '${edge.target}'`);
      this.edgeSrc[j] = s;
      this.edgeDst[j] = t;
    });
    const ids = Int32Array.from({ length: edges.length }, (_, j) => j);
    this.outCsr = buildCsr(this.nodeCount, this.edgeSrc, ids);
    this.inCsr = buildCsr(this.nodeCount, this.edgeDst, ids);
    this.nbrCsr = this.buildNeighbours();
  }

  private buildNeighbours(): Csr {
    const n = this.nodeCount;
    const start = new Int32Array(n + 1);
    const flat: number[] = [];
    const seen = new Int32Array(n).fill(-1); // seen[u] === v: u already listed for v
    for (let v = 0; v < n; v++) {
      start[v] = flat.length;
      const add = (u: number): void => {
        if (u !== v && seen[u] !== v) {
          seen[u] = v;
          flat.push(u);
        }
      };
      for (const e of this.outEdgeIdx(v)) add(this.edgeDst[e]!);
      for (const e of this.inEdgeIdx(v)) add(this.edgeSrc[e]!);
    }
    start[n] = flat.length;
    return { start, items: Int32Array.from(flat) };
  }

  // ---- integer views (no copies: subarrays share the CSR buffers) ----

  nodeIndexOf(id: string): number {
    return this.nodeIdx.get(id) ?? -1;
  }

  edgeIndexOf(id: string): number {
    return this.edgeIdx.get(id) ?? -1;
  }

  nodeAt(i: number): GraphNode {
    const node = this.graph.nodes[i];
    if (!node) throw new RangeError(`node index ${i} out of range`);
    return node;
  }

  edgeAt(j: number): GraphEdge {
    const edge = this.graph.edges[j];
    if (!edge) throw new RangeError(`edge index ${j} out of range`);
    return edge;
  }

  outEdgeIdx(v: number): Int32Array {
    return this.outCsr.items.subarray(this.outCsr.start[v]!, this.outCsr.start[v + 1]!);
  }

  inEdgeIdx(v: number): Int32Array {
    return this.inCsr.items.subarray(this.inCsr.start[v]!, this.inCsr.start[v + 1]!);
  }

  neighbourIdx(v: number): Int32Array {
    return this.nbrCsr.items.subarray(this.nbrCsr.start[v]!, this.nbrCsr.start[v + 1]!);
  }

  /** In-degree plus out-degree (a self-loop counts twice, parallel edges each count). */
  degreeIdx(v: number): number {
    return this.outCsr.start[v + 1]! - this.outCsr.start[v]! + this.inCsr.start[v + 1]! - this.inCsr.start[v]!;
  }

  // ---- by id ----

  hasNode(id: string): boolean {
    return this.nodeIdx.has(id);
  }

  node(id: string): GraphNode | undefined {
    const i = this.nodeIdx.get(id);
    return i === undefined ? undefined : this.graph.nodes[i];
  }

  edge(id: string): GraphEdge | undefined {
    const j = this.edgeIdx.get(id);
    return j === undefined ? undefined : this.graph.edges[j];
  }

  /** Edges whose source is `id`, in graph order; [] for an unknown id. */
  outEdges(id: string): GraphEdge[] {
    const v = this.nodeIndexOf(id);
    return v < 0 ? [] : Array.from(this.outEdgeIdx(v), (e) => this.edgeAt(e));
  }

  /** Edges whose target is `id`, in graph order; [] for an unknown id. */
  inEdges(id: string): GraphEdge[] {
    const v = this.nodeIndexOf(id);
    return v < 0 ? [] : Array.from(this.inEdgeIdx(v), (e) => this.edgeAt(e));
  }

  /** Distinct nodes joined to `id` by an edge in either direction, self excluded; [] for an unknown id. */
  neighbours(id: string): string[] {
    const v = this.nodeIndexOf(id);
    return v < 0 ? [] : Array.from(this.neighbourIdx(v), (u) => this.nodeAt(u).id);
  }
}

export function buildIndex(graph: Graph): GraphIndex {
  return new GraphIndex(graph);
}
