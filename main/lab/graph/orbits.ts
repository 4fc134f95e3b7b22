// Exact automorphism orbits of a labelled directed multigraph (node `type`, edge `relation` and
// direction are the labels; ids, names and attrs are not).
//
// Method (the individualisation-refinement scheme of nauty/bliss, without their pruning machinery):
//  1. Colour refinement from the node types to the coarsest equitable partition. Nodes in different cells
//     are never in one orbit, so orbits refine the cells.
//  2. For two nodes r, v of one cell, decide whether some automorphism maps r to v: give r (on one side)
//     and v (on the other) a fresh colour, refine both, and search for a colour-preserving bijection that
//     is an automorphism, individualising one more node pair per level and backtracking over every
//     candidate in the target cell. Refinement is isomorphism-equivariant, so a branch is pruned only when
//     the two sides' refinement traces differ, which no automorphism allows: the answer is exact.
//  3. Every automorphism found merges all its cycles (union-find), not only r and v, so a cell of k
//     interchangeable leaves costs about k tests, not k^2.
// A cheap guess is tried at every search level before branching: fix the nodes that sit in the same cell
// on both sides and pair the rest in order. It finds swaps of leaves and of identical branches (the
// symmetries a knowledge graph mostly has) without any backtracking.
//
// Limits: subgraphs of tens of nodes take well under a millisecond. A whole graph of a few hundred nodes
// takes up to seconds (one refinement per test, each O(rounds * m log m)). Graphs where refinement
// splits nothing and the symmetry is not leaf/branch swapping (large regular or strongly regular graphs)
// make the backtracking exponential; the work budget then stops the search with an error rather than
// returning a partition that might be wrong.
import { LabError } from '../base/errors';
import type { GraphIndex, Subgraph } from './graph-index';
import { hashPair, hashString } from './hash';
import { labelRanks, localGraph, type LocalGraph } from './local';
import { unionFind } from '../util/union-find';

export interface OrbitOptions {
  /** Work budget in node-rounds of refinement (sum over refinements of n * rounds). */
  budget?: number;
}

export const DEFAULT_ORBIT_BUDGET = 50_000_000;

interface Partition {
  colour: Int32Array; // dense colour ids 0..count-1
  count: number;
  trace: number; // hash of every round's signatures: equal on both sides of any automorphism
}

class OrbitSolver {
  private readonly n: number;
  private readonly arcStart: Int32Array;
  private readonly arcCode: Int32Array; // relation rank * 2 + (0 out | 1 in)
  private readonly arcNbr: Int32Array;
  private readonly edgeCount = new Map<number, number>(); // (s, t, rel) -> multiplicity
  private readonly relCount: number;
  private work = 0;

  constructor(
    private readonly g: LocalGraph,
    private readonly budget: number,
  ) {
    const { n, m } = g;
    this.n = n;
    const rel = labelRanks(g.rels);
    this.relCount = Math.max(1, rel.count);
    this.arcStart = new Int32Array(n + 1);
    for (let e = 0; e < m; e++) {
      this.arcStart[g.src[e]! + 1]!++;
      this.arcStart[g.dst[e]! + 1]!++;
    }
    for (let v = 0; v < n; v++) this.arcStart[v + 1]! += this.arcStart[v]!;
    const fill = this.arcStart.slice(0, n);
    this.arcCode = new Int32Array(2 * m);
    this.arcNbr = new Int32Array(2 * m);
    for (let e = 0; e < m; e++) {
      const s = g.src[e]!;
      const t = g.dst[e]!;
      const r = rel.rank[e]!;
      let a = fill[s]!++;
      this.arcCode[a] = 2 * r;
      this.arcNbr[a] = t;
      a = fill[t]!++;
      this.arcCode[a] = 2 * r + 1;
      this.arcNbr[a] = s;
      const key = this.edgeKey(s, t, r);
      this.edgeCount.set(key, (this.edgeCount.get(key) ?? 0) + 1);
    }
  }

  private edgeKey(s: number, t: number, r: number): number {
    return (s * this.n + t) * this.relCount + r;
  }

  /** Colour refinement to the coarsest equitable partition finer than `start` (dense colours). */
  refine(start: Int32Array, startCount: number, startTrace: number): Partition {
    const { n } = this;
    let colour = start;
    let count = startCount;
    let trace = startTrace;
    const sigs: string[] = new Array<string>(n);
    const nums: number[] = [];
    for (;;) {
      this.work += n;
      if (this.work > this.budget) {
        throw new LabError('unsupported', `orbits: search exceeded its work budget (${this.budget} node-rounds) on a graph of ${n} nodes; the graph is too symmetric for this solver`);
      }
      for (let v = 0; v < n; v++) {
        nums.length = 0;
        for (let a = this.arcStart[v]!; a < this.arcStart[v + 1]!; a++) nums.push(this.arcCode[a]! * count + colour[this.arcNbr[a]!]!);
        nums.sort((x, y) => x - y);
        sigs[v] = `${colour[v]}:${nums.join(',')}`;
      }
      const all = [...sigs].sort();
      trace = hashPair(trace, hashString(all.join(';')));
      const rank = new Map<string, number>();
      for (const s of all) if (!rank.has(s)) rank.set(s, rank.size);
      const next = Int32Array.from(sigs, (s) => rank.get(s)!);
      const stable = rank.size === count;
      colour = next;
      count = rank.size;
      if (stable) return { colour, count, trace };
    }
  }

  individualise(p: Partition, x: number): Partition {
    const colour = p.colour.slice();
    colour[x] = p.count;
    return this.refine(colour, p.count + 1, hashPair(p.trace, p.colour[x]!));
  }

  /** The colour-preserving bijection that moves as few nodes as possible (null if cell sizes differ). */
  private guess(p1: Partition, p2: Partition): Int32Array | null {
    const cells1: number[][] = Array.from({ length: p1.count }, () => []);
    const cells2: number[][] = Array.from({ length: p2.count }, () => []);
    if (p1.count !== p2.count) return null;
    for (let v = 0; v < this.n; v++) {
      cells1[p1.colour[v]!]!.push(v);
      cells2[p2.colour[v]!]!.push(v);
    }
    const sigma = new Int32Array(this.n);
    for (let c = 0; c < p1.count; c++) {
      const a = cells1[c]!;
      const b = cells2[c]!;
      if (a.length !== b.length) return null;
      const inB = new Set(b);
      const inA = new Set(a);
      const fromA = a.filter((x) => !inB.has(x));
      const toB = b.filter((y) => !inA.has(y));
      for (const x of a) if (inB.has(x)) sigma[x] = x;
      fromA.forEach((x, i) => (sigma[x] = toB[i]!));
    }
    return sigma;
  }

  isAutomorphism(sigma: Int32Array): boolean {
    const { g } = this;
    for (let v = 0; v < this.n; v++) if (g.types[sigma[v]!] !== g.types[v]) return false;
    for (const [key, mult] of this.edgeCount) {
      const r = key % this.relCount;
      const st = (key - r) / this.relCount;
      const t = st % this.n;
      const s = (st - t) / this.n;
      if (this.edgeCount.get(this.edgeKey(sigma[s]!, sigma[t]!, r)) !== mult) return false;
    }
    return true;
  }

  /** An automorphism mapping partition p1 onto p2 colour for colour, or null if there is none. */
  search(p1: Partition, p2: Partition): Int32Array | null {
    if (p1.trace !== p2.trace || p1.count !== p2.count) return null;
    const sigma = this.guess(p1, p2);
    if (!sigma) return null;
    if (this.isAutomorphism(sigma)) return sigma;
    if (p1.count === this.n) return null; // discrete: the guess was the only candidate
    // Target: the smallest non-singleton cell (fewest branches), lowest colour on ties.
    const size = new Int32Array(p1.count);
    for (let v = 0; v < this.n; v++) size[p1.colour[v]!]!++;
    let target = -1;
    for (let c = 0; c < p1.count; c++) if (size[c]! > 1 && (target < 0 || size[c]! < size[target]!)) target = c;
    let x = 0;
    while (p1.colour[x] !== target) x++;
    const q1 = this.individualise(p1, x);
    const candidates: number[] = [];
    for (let y = 0; y < this.n; y++) if (p2.colour[y] === target) candidates.push(y);
    // Try x itself first: most automorphisms fix most nodes.
    candidates.sort((a, b) => (a === x ? -1 : b === x ? 1 : a - b));
    for (const y of candidates) {
      const found = this.search(q1, this.individualise(p2, y));
      if (found) return found;
    }
    return null;
  }

  orbits(): number[][] {
    const { n, g } = this;
    const types = labelRanks(g.types);
    const base = this.refine(types.rank, types.count, 0);
    const { find, union } = unionFind(n);
    const cells: number[][] = Array.from({ length: base.count }, () => []);
    for (let v = 0; v < n; v++) cells[base.colour[v]!]!.push(v);
    const sideOne = new Map<number, Partition>();
    for (const cell of cells) {
      if (cell.length < 2) continue;
      const reps: number[] = [];
      for (const v of cell) {
        if (reps.some((r) => find(r) === find(v))) continue;
        let merged = false;
        let p2: Partition | undefined;
        for (const r of reps) {
          let p1 = sideOne.get(r);
          if (!p1) sideOne.set(r, (p1 = this.individualise(base, r)));
          p2 ??= this.individualise(base, v);
          const sigma = this.search(p1, p2);
          if (sigma) {
            for (let i = 0; i < n; i++) union(i, sigma[i]!);
            merged = true;
            break;
          }
        }
        if (!merged) reps.push(v);
      }
    }
    const groups = new Map<number, number[]>();
    for (let v = 0; v < n; v++) {
      const root = find(v);
      const list = groups.get(root);
      if (list) list.push(v);
      else groups.set(root, [v]);
    }
    return [...groups.values()];
  }
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function sortOrbits(ids: string[][]): string[][] {
  for (const o of ids) o.sort(byCodeUnit);
  return ids.sort((a, b) => byCodeUnit(a[0]!, b[0]!));
}

export function orbitsLocal(g: LocalGraph, opts: OrbitOptions = {}): string[][] {
  const solver = new OrbitSolver(g, opts.budget ?? DEFAULT_ORBIT_BUDGET);
  return sortOrbits(solver.orbits().map((o) => o.map((v) => g.ids[v]!)));
}

/**
 * Exact automorphism orbits of `sub` (or of the whole graph): node ids grouped by structural role.
 * Canonical order: ids sorted by code unit within an orbit, orbits sorted by their first id.
 * Throws LabError('unsupported') if the search exceeds `opts.budget` (never an approximate answer).
 */
export function orbits(index: GraphIndex, sub?: Subgraph, opts: OrbitOptions = {}): string[][] {
  return orbitsLocal(localGraph(index, sub), opts);
}
