// Connected subgraphs by random walk (docs/pipeline.md, 'Subgraph sampling'), and a deduplicating, topology-balancing
// sampler.
//
// The walk draws a target edge count L in [minEdges, maxEdges] and, from a start node, repeatedly takes
// an unused incident edge in either direction. An edge whose far end is already in the sample closes a
// cycle (or adds a parallel edge); `cycleProb` is the chance of taking such an edge when one is there, so
// 0 keeps the sample acyclic and 1 closes every cycle it meets. After each step the walk may restart
// (`restartProb`) from a visited node, which grows branches (trees) instead of a single line; restarting
// always at the start node grows a star. A walk stuck in a dead end jumps to a visited node that still
// has unused edges; if the whole reachable part has fewer than minEdges usable edges the result is null.
// On a sparse graph a walk seldom closes a short cycle by chance, so `cycles` plants them on purpose:
// shortest "ears" found by BFS, each raising the cycle rank by one, before the walk fills up (the synthesiser
// wants cycles and denser shapes covered, not just trees; docs/pipeline.md, 'Subgraph sampling').
import { LabError } from '../base/errors';
import type { Rng } from '../util/rng';
import type { GraphIndex, Subgraph } from './graph-index';
import { localGraph } from './local';
import { TOPOLOGIES, topologyLocal, type Topology } from './topology';
import { wlHashLocal } from './wl';

export interface SampleOptions {
  minEdges: number;
  maxEdges: number;
  /** Node id to start from; a random node with at least one edge when omitted. */
  start?: string;
  /** Chance, after each step, to continue from another visited node instead (default 0.2). */
  restartProb?: number;
  /** Chance to take an edge back into the sample (closing a cycle) when one is available (default 0.3). */
  cycleProb?: number;
  /** Where a restart continues: a random visited node (default) or the start node (grows stars). */
  restartTo?: 'visited' | 'start';
  /**
   * Independent cycles to plant before walking (default 0): each is a shortest "ear" found by BFS, the
   * first one through the start node. A sparse graph rarely closes a cycle by chance within a few
   * edges, so this is how cycles and dense shapes are found on purpose. null if they do not fit.
   */
  cycles?: number;
}

const activeCache = new WeakMap<GraphIndex, Int32Array>();

/** Nodes with at least one edge: the only useful walk starts. */
function activeNodes(index: GraphIndex): Int32Array {
  let list = activeCache.get(index);
  if (!list) {
    const out: number[] = [];
    for (let v = 0; v < index.nodeCount; v++) if (index.degreeIdx(v) > 0) out.push(v);
    list = Int32Array.from(out);
    activeCache.set(index, list);
  }
  return list;
}

function checkProb(name: string, p: number): number {
  if (!(p >= 0 && p <= 1)) throw new LabError('bad_request', `sampleSubgraph: ${name} must be in [0, 1], got ${p}`);
  return p;
}

function checkEdgeRange(minEdges: number, maxEdges: number): void {
  if (!Number.isInteger(minEdges) || minEdges < 1) throw new LabError('bad_request', `minEdges must be a whole number >= 1, got ${minEdges}`);
  if (!Number.isInteger(maxEdges) || maxEdges < minEdges) throw new LabError('bad_request', `maxEdges must be a whole number >= minEdges (${minEdges}), got ${maxEdges}`);
}

/** The state of one walk: the sample so far and the moves that grow it. */
class Walk {
  readonly visited: Set<number>;
  readonly order: number[];
  readonly taken = new Set<number>();
  readonly edges: number[] = [];
  private readonly open: number[] = [];
  private readonly closing: number[] = [];

  constructor(
    private readonly index: GraphIndex,
    private readonly rng: Rng,
    readonly start: number,
  ) {
    this.visited = new Set([start]);
    this.order = [start];
  }

  private other(e: number, v: number): number {
    return this.index.edgeSrc[e] === v ? this.index.edgeDst[e]! : this.index.edgeSrc[e]!;
  }

  /** Unused edges at v, once each (a self-loop is listed among the out-edges only). */
  private *unused(v: number): Generator<number> {
    for (const e of this.index.outEdgeIdx(v)) if (!this.taken.has(e)) yield e;
    for (const e of this.index.inEdgeIdx(v)) if (!this.taken.has(e) && this.index.edgeSrc[e] !== v) yield e;
  }

  take(e: number): void {
    this.taken.add(e);
    this.edges.push(e);
    for (const v of [this.index.edgeSrc[e]!, this.index.edgeDst[e]!]) {
      if (!this.visited.has(v)) {
        this.visited.add(v);
        this.order.push(v);
      }
    }
  }

  /** An unused edge at v that the rules allow, or null. */
  choose(v: number, cycleProb: number): number | null {
    const { open, closing } = this;
    open.length = 0;
    closing.length = 0;
    // Plain loops rather than the unused() generator: this is the sampler's hot path.
    const { index, taken, visited } = this;
    for (const e of index.outEdgeIdx(v)) if (!taken.has(e)) (visited.has(index.edgeDst[e]!) ? closing : open).push(e);
    for (const e of index.inEdgeIdx(v)) {
      const s = index.edgeSrc[e]!;
      if (s !== v && !taken.has(e)) (visited.has(s) ? closing : open).push(e);
    }
    if (closing.length > 0 && cycleProb > 0 && (open.length === 0 || this.rng.next() < cycleProb)) return this.rng.pick(closing);
    return open.length > 0 ? this.rng.pick(open) : null;
  }

  /** Random walk from `cur` until `target` edges or nothing is left to take. */
  walk(cur: number, target: number, restartProb: number, cycleProb: number, restartTo: 'visited' | 'start'): void {
    while (this.edges.length < target) {
      let e = this.choose(cur, cycleProb);
      if (e === null) {
        // Dead end: continue from some visited node that still has a usable edge.
        for (const v of this.rng.shuffle([...this.order])) {
          e = this.choose(v, cycleProb);
          if (e !== null) {
            cur = v;
            break;
          }
        }
        if (e === null) return;
      }
      this.take(e);
      cur = this.other(e, cur);
      if (restartProb > 0 && this.rng.next() < restartProb) cur = restartTo === 'start' ? this.start : this.rng.pick(this.order);
    }
  }

  private adjacentInSample(a: number, b: number): boolean {
    for (const e of this.edges) {
      const s = this.index.edgeSrc[e]!;
      const t = this.index.edgeDst[e]!;
      if ((s === a && t === b) || (s === b && t === a)) return true;
    }
    return false;
  }

  /**
   * Adds a short "ear": a path from visited node u through new nodes, either back to another visited
   * node or round to u itself (two BFS branches meeting), so the cycle rank of the sample's simple
   * graph goes up by exactly one. At most maxLen edges. BFS with shuffled neighbours (so repeated calls
   * vary), capped at `maxExpand` expanded nodes so a hub cannot stall it. False if none is found.
   */
  ear(u: number, maxLen: number, maxExpand = 4000): boolean {
    if (maxLen < 1) return false;
    const { rng } = this;
    const via = new Map<number, number>([[u, -1]]); // BFS node -> edge it was reached by
    const depth = new Map<number, number>([[u, 0]]);
    const branch = new Map<number, number>(); // BFS node -> u's neighbour its path starts with
    const pathTo = (z: number, out: number[]): void => {
      for (; z !== u; z = this.other(via.get(z)!, z)) out.push(via.get(z)!);
    };
    const takeAll = (edges: number[]): true => {
      for (const e of edges) this.take(e);
      return true;
    };
    let frontier = [u];
    let expanded = 0;
    for (let d = 0; frontier.length > 0 && d < maxLen; d++) {
      const next: number[] = [];
      for (const x of frontier) {
        if (++expanded > maxExpand) return false;
        for (const e of rng.shuffle([...this.unused(x)])) {
          if (e === via.get(x)) continue;
          const y = this.other(e, x);
          if (y === x) continue; // self-loop
          if (this.visited.has(y) && y !== u) {
            // Onto another sample node: a new simple cycle unless it only doubles an existing edge.
            if (d === 0 && this.adjacentInSample(u, y)) continue;
            const path = [e];
            pathTo(x, path);
            return takeAll(path);
          }
          if (via.has(y)) {
            // Two BFS branches meet: u ... x - y ... u is a cycle through u (length >= 3).
            if (d === 0 || y === u || branch.get(y) === branch.get(x) || d + 1 + depth.get(y)! > maxLen) continue;
            const path = [e];
            pathTo(x, path);
            pathTo(y, path);
            return takeAll(path);
          }
          if (d + 2 <= maxLen) {
            via.set(y, e);
            depth.set(y, d + 1);
            branch.set(y, d === 0 ? y : branch.get(x)!);
            next.push(y);
          }
        }
      }
      frontier = next;
    }
    return false;
  }
}

function startNode(index: GraphIndex, rng: Rng, start: string | undefined): number {
  if (start !== undefined) {
    const v = index.nodeIndexOf(start);
    if (v < 0) throw new LabError('bad_request', `sampleSubgraph: unknown start node '${start}'`);
    return v;
  }
  const active = activeNodes(index);
  return active.length === 0 ? -1 : active[rng.int(active.length)]!;
}

/** A connected subgraph by random walk, or null when the start's component is too small. See header. */
export function sampleSubgraph(index: GraphIndex, rng: Rng, opts: SampleOptions): Subgraph | null {
  checkEdgeRange(opts.minEdges, opts.maxEdges);
  const restartProb = checkProb('restartProb', opts.restartProb ?? 0.2);
  const cycleProb = checkProb('cycleProb', opts.cycleProb ?? 0.3);
  const cycles = opts.cycles ?? 0;
  if (!Number.isInteger(cycles) || cycles < 0) throw new LabError('bad_request', `sampleSubgraph: cycles must be a whole number >= 0, got ${cycles}`);
  const target = opts.minEdges + rng.int(opts.maxEdges - opts.minEdges + 1);
  // Planted cycles need a start on a short cycle: without a given start, try a few random ones.
  const attempts = cycles > 0 && opts.start === undefined ? 8 : 1;
  let walk: Walk | null = null;
  for (let a = 0; a < attempts && !walk; a++) {
    const start = startNode(index, rng, opts.start);
    if (start < 0) return null;
    walk = new Walk(index, rng, start);
    for (let i = 0; i < cycles && walk; i++) {
      // The first cycle passes through the start; later ones may leave from any sample node.
      const from = i === 0 ? [start] : rng.shuffle([...walk.order]);
      const w: Walk = walk;
      if (!from.some((u) => w.ear(u, target - w.edges.length))) walk = null;
    }
  }
  if (!walk) return null;
  walk.walk(walk.start, target, restartProb, cycleProb, opts.restartTo ?? 'visited');
  if (walk.edges.length < opts.minEdges) return null;
  return {
    nodes: walk.order.map((v) => index.nodeAt(v).id),
    edges: walk.edges.map((e) => index.edgeAt(e).id),
  };
}

export interface DistinctOptions extends SampleOptions {
  count: number;
  maxTries: number;
  /** Subgraphs kept per WL hash (default 1). */
  perHash?: number;
  /** WL rounds for the dedupe hash (default 3, the same as wlHash's default). */
  iterations?: number;
  /** Steer the walk toward under-represented topologies (default true); false samples with `opts` as given. */
  balance?: boolean;
  /** Consecutive tries aimed at one topology that may fail before it counts as unavailable (default 25). */
  patience?: number;
}

export type SampledSubgraph = Subgraph & { hash: string; topology: Topology };

export interface DistinctStats {
  tried: number;
  duplicates: number;
  byTopology: Record<string, number>;
  /** Walks that could not reach minEdges. */
  failed: number;
  /** New shapes turned away because their topology already had its share. */
  overQuota: number;
}

/** The smallest edge count each topology needs on the simple graph (star: 3 leaves; dense: 2 triangles sharing an edge). */
const MIN_EDGES: Record<Topology, number> = { path: 1, star: 3, tree: 3, cycle: 3, dense: 5 };

/**
 * Samples until `count` structurally distinct subgraphs (at most `perHash` per WL hash) or `maxTries`.
 * Balancing: each try aims at the topology with the fewest kept samples and walks with settings that
 * produce it (path: no restarts, no cycles; star: restarts at a hub; tree: frequent restarts; cycle and
 * dense: 1 or 2-3 planted cycles). A new shape whose topology already holds ceil(count / live) samples is
 * turned away while another live topology is short. A topology stops being live when the graph cannot
 * have it (no hub, acyclic graph, maxEdges too small) or after `patience` consecutive tries aimed at it
 * keep nothing new of it; the others then share its quota.
 */
export function sampleDistinct(
  index: GraphIndex,
  rng: Rng,
  opts: DistinctOptions,
): { subgraphs: SampledSubgraph[]; stats: DistinctStats } {
  checkEdgeRange(opts.minEdges, opts.maxEdges);
  const perHash = opts.perHash ?? 1;
  const iterations = opts.iterations ?? 3;
  const patience = opts.patience ?? 25;
  const balance = opts.balance ?? true;
  if (!Number.isInteger(opts.count) || opts.count < 0) throw new LabError('bad_request', `count must be a whole number >= 0, got ${opts.count}`);
  if (!Number.isInteger(opts.maxTries) || opts.maxTries < 0) throw new LabError('bad_request', `maxTries must be a whole number >= 0, got ${opts.maxTries}`);
  if (!Number.isInteger(perHash) || perHash < 1) throw new LabError('bad_request', `perHash must be a whole number >= 1, got ${perHash}`);

  // Hubs for stars: nodes with >= 3 distinct neighbours.
  const hubs: number[] = [];
  for (let v = 0; v < index.nodeCount && balance; v++) if (index.neighbourIdx(v).length >= 3) hubs.push(v);
  const globalShape = balance ? topologyLocal(localGraph(index)) : 'tree';
  const live = new Set<Topology>(
    TOPOLOGIES.filter((t) => {
      if (!balance || opts.maxEdges < MIN_EDGES[t]) return false;
      if (t === 'star' || t === 'tree') return hubs.length > 0;
      if (t === 'cycle') return globalShape === 'cycle' || globalShape === 'dense';
      if (t === 'dense') return globalShape === 'dense';
      return true;
    }),
  );
  const misses = Object.fromEntries(TOPOLOGIES.map((t) => [t, 0])) as Record<Topology, number>;
  const byTopology = Object.fromEntries(TOPOLOGIES.map((t) => [t, 0])) as Record<Topology, number>;
  const stats: DistinctStats = { tried: 0, duplicates: 0, byTopology, failed: 0, overQuota: 0 };
  const perHashCount = new Map<string, number>();
  const subgraphs: SampledSubgraph[] = [];

  const miss = (t: Topology | null): void => {
    if (t && ++misses[t] >= patience) live.delete(t);
  };
  const strategy = (t: Topology | null): SampleOptions => {
    const base = { minEdges: opts.minEdges, maxEdges: opts.maxEdges, start: opts.start };
    switch (t) {
      case null:
        return opts;
      case 'path':
        return { ...base, restartProb: 0, cycleProb: 0 };
      case 'star': {
        const hub = opts.start !== undefined ? index.nodeIndexOf(opts.start) : hubs[rng.int(hubs.length)]!;
        const fan = index.neighbourIdx(hub).length;
        const maxEdges = Math.max(opts.minEdges, Math.min(opts.maxEdges, fan));
        const minEdges = Math.min(maxEdges, Math.max(opts.minEdges, MIN_EDGES.star));
        return { ...base, start: index.nodeAt(hub).id, minEdges, maxEdges, restartProb: 1, restartTo: 'start', cycleProb: 0 };
      }
      case 'tree':
        return { ...base, restartProb: 0.4, cycleProb: 0 };
      case 'cycle':
        return { ...base, minEdges: Math.max(opts.minEdges, MIN_EDGES.cycle), restartProb: 0.3, cycleProb: 0, cycles: 1 };
      case 'dense':
        return { ...base, minEdges: Math.max(opts.minEdges, MIN_EDGES.dense), restartProb: 0.3, cycleProb: 0, cycles: 2 + rng.int(2) };
    }
  };

  while (subgraphs.length < opts.count && stats.tried < opts.maxTries) {
    // Aim at the live topology with the fewest kept samples (ties: TOPOLOGIES order).
    let aim: Topology | null = null;
    for (const t of TOPOLOGIES) if (live.has(t) && (aim === null || byTopology[t] < byTopology[aim])) aim = t;
    stats.tried++;
    const sub = sampleSubgraph(index, rng, strategy(aim));
    if (!sub) {
      stats.failed++;
      miss(aim);
      continue;
    }
    const local = localGraph(index, sub);
    const topology = topologyLocal(local);
    const hash = wlHashLocal(local, iterations);
    const seen = perHashCount.get(hash) ?? 0;
    if (seen >= perHash) {
      stats.duplicates++;
      miss(aim);
      continue;
    }
    if (balance) {
      const cap = Math.ceil(opts.count / Math.max(1, live.size));
      const othersShort = [...live].some((t) => t !== topology && byTopology[t] < cap);
      if (byTopology[topology] >= cap && othersShort) {
        stats.overQuota++;
        miss(aim);
        continue;
      }
    }
    perHashCount.set(hash, seen + 1);
    byTopology[topology]++;
    subgraphs.push({ ...sub, hash, topology });
    if (aim !== null) {
      if (topology === aim) misses[aim] = 0;
      else miss(aim);
    }
  }
  return { subgraphs, stats };
}
