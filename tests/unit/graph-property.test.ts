// Property tests: on random small labelled directed multigraphs, WL hashes and orbits must not depend on
// node ids or on node/edge order, and orbits must equal the brute-force answer (all n! permutations).
import { describe, expect, it } from 'vitest';
import type { Graph } from '../../main/lab/formats/index';
import { buildIndex } from '../../main/lab/graph/graph-index';
import { wlHash } from '../../main/lab/graph/wl';
import { orbits } from '../../main/lab/graph/orbits';
import { createRng, type Rng } from '../../main/lab/util/rng';

interface Case {
  n: number;
  types: string[];
  edges: [number, number, string][];
}

function randomCase(rng: Rng): Case {
  const n = 1 + rng.int(8);
  const typeSet = ['a', 'b', 'c'].slice(0, 1 + rng.int(2));
  const relSet = ['r', 's'].slice(0, 1 + rng.int(2));
  const types = Array.from({ length: n }, () => rng.pick(typeSet));
  const edges: [number, number, string][] = [];
  const m = rng.int(2 * n + 1);
  for (let i = 0; i < m; i++) edges.push([rng.int(n), rng.int(n), rng.pick(relSet)]);
  if (rng.next() < 0.3 && 2 * n <= 8) {
    // Two disjoint copies of the same graph: symmetric cases on purpose.
    for (const [s, t, r] of [...edges]) edges.push([s + n, t + n, r]);
    return { n: 2 * n, types: [...types, ...types], edges };
  }
  return { n, types, edges };
}

/** The graph with node i named ids[i], nodes and edges listed in the orders given. */
function toGraph(c: Case, ids: string[], nodeOrder: number[], edgeOrder: number[]): Graph {
  return {
    format: 'sailor.graph/1',
    nodes: nodeOrder.map((i) => ({ id: ids[i]!, type: c.types[i]!, name: `x${i}`, aliases: [], attrs: {}, meta: {} })),
    edges: edgeOrder.map((j, k) => {
      const [s, t, r] = c.edges[j]!;
      return { id: `edge${k}`, source: ids[s]!, target: ids[t]!, relation: r, meta: {} };
    }),
  };
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** Orbits by trying every permutation: the reference answer, as sets of node indices. */
function bruteOrbits(c: Case): number[][] {
  const key = (s: number, t: number, r: string): string => `${s},${t},${r}`;
  const count = new Map<string, number>();
  for (const [s, t, r] of c.edges) count.set(key(s, t, r), (count.get(key(s, t, r)) ?? 0) + 1);
  const parent = range(c.n);
  const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x]!)));
  const perm = range(c.n);
  const visit = (k: number): void => {
    if (k === c.n) {
      const ok = [...count].every(([kk, mult]) => {
        const [s, t, r] = kk.split(',') as [string, string, string];
        return count.get(key(perm[Number(s)]!, perm[Number(t)]!, r)) === mult;
      });
      if (ok) for (let i = 0; i < c.n; i++) parent[find(i)] = find(perm[i]!);
      return;
    }
    for (let i = k; i < c.n; i++) {
      [perm[k], perm[i]] = [perm[i]!, perm[k]!];
      if (c.types[perm[k]!] === c.types[k]) visit(k + 1); // type-preserving only
      [perm[k], perm[i]] = [perm[i]!, perm[k]!];
    }
  };
  visit(0);
  const groups = new Map<number, number[]>();
  for (let i = 0; i < c.n; i++) groups.set(find(i), [...(groups.get(find(i)) ?? []), i]);
  return canon([...groups.values()]);
}

const canon = (parts: number[][]): number[][] => parts.map((p) => [...p].sort((a, b) => a - b)).sort((a, b) => a[0]! - b[0]!);

describe('graph invariants on 200 random labelled digraphs', () => {
  it('WL hash and orbits are invariant under renaming and reordering; orbits match brute force', () => {
    const rng = createRng(20240601);
    let symmetric = 0;
    for (let trial = 0; trial < 200; trial++) {
      const c = randomCase(rng);
      const ids = range(c.n).map((i) => `n${i}`);
      const g1 = toGraph(c, ids, range(c.n), range(c.edges.length));
      // A permuted copy: new ids, shuffled node and edge lists.
      const renamed = rng.shuffle(range(c.n)).map((i) => `q${i * 7 + 3}`);
      const g2 = toGraph(c, renamed, rng.shuffle(range(c.n)), rng.shuffle(range(c.edges.length)));
      const i1 = buildIndex(g1);
      const i2 = buildIndex(g2);
      expect(wlHash(i2), `trial ${trial}`).toBe(wlHash(i1));
      expect(wlHash(i2, undefined, 1)).toBe(wlHash(i1, undefined, 1));

      // Orbits as sets of original node indices, compared after mapping each copy's ids back.
      const back1 = new Map(ids.map((id, i) => [id, i]));
      const back2 = new Map(renamed.map((id, i) => [id, i]));
      const o1 = canon(orbits(i1).map((o) => o.map((id) => back1.get(id)!)));
      const o2 = canon(orbits(i2).map((o) => o.map((id) => back2.get(id)!)));
      expect(o2, `trial ${trial}`).toEqual(o1);
      if (c.n <= 7) expect(o1, `trial ${trial} brute force`).toEqual(bruteOrbits(c));
      if (o1.length < c.n) symmetric++;
    }
    expect(symmetric).toBeGreaterThan(40); // the generator must exercise non-trivial orbits
  });

  it('one flipped direction, changed relation or changed type changes the hash unless the result is isomorphic', () => {
    const rng = createRng(77);
    let differed = 0;
    for (let trial = 0; trial < 150; trial++) {
      const n = 3 + rng.int(5);
      const types = range(n).map(() => rng.pick(['a', 'b']));
      // A random tree plus one extra edge (connected, with a cycle or a parallel edge or a loop).
      const edges: [number, number, string][] = range(n - 1).map((i) => [i + 1, rng.int(i + 1), rng.pick(['r', 's'])]);
      edges.push([rng.int(n), rng.int(n), rng.pick(['r', 's'])]);
      const c: Case = { n, types, edges };
      const mutated: Case = { n, types: [...types], edges: edges.map((e) => [...e] as [number, number, string]) };
      const j = rng.int(edges.length);
      const kind = rng.int(3);
      if (kind === 0) mutated.edges[j] = [edges[j]![1], edges[j]![0], edges[j]![2]];
      else if (kind === 1) mutated.edges[j]![2] = edges[j]![2] === 'r' ? 's' : 'r';
      else mutated.types[j % n] = types[j % n] === 'a' ? 'b' : 'a';
      const h = (x: Case): string => wlHash(buildIndex(toGraph(x, range(n).map(String), range(n), range(x.edges.length))));
      if (h(c) === h(mutated)) expect(isomorphic(c, mutated), `trial ${trial}`).toBe(true);
      else differed++;
    }
    expect(differed).toBeGreaterThan(100);
  });
});

/** Brute-force isomorphism test for small graphs: some type-preserving bijection maps the edge multisets. */
function isomorphic(a: Case, b: Case): boolean {
  if (a.n !== b.n || a.edges.length !== b.edges.length) return false;
  const key = (s: number, t: number, r: string): string => `${s},${t},${r}`;
  const countB = new Map<string, number>();
  for (const [s, t, r] of b.edges) countB.set(key(s, t, r), (countB.get(key(s, t, r)) ?? 0) + 1);
  const perm = range(a.n);
  const visit = (k: number): boolean => {
    if (k === a.n) {
      const countA = new Map<string, number>();
      for (const [s, t, r] of a.edges) countA.set(key(perm[s]!, perm[t]!, r), (countA.get(key(perm[s]!, perm[t]!, r)) ?? 0) + 1);
      return [...countA].every(([kk, m]) => countB.get(kk) === m);
    }
    for (let i = k; i < a.n; i++) {
      [perm[k], perm[i]] = [perm[i]!, perm[k]!];
      const ok = a.types[k] === b.types[perm[k]!] && visit(k + 1);
      [perm[k], perm[i]] = [perm[i]!, perm[k]!];
      if (ok) return true;
    }
    return false;
  };
  return visit(0);
}
