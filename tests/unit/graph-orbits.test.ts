import { describe, expect, it } from 'vitest';
import type { Graph } from '../../main/lab/formats/index';
import { buildIndex } from '../../main/lab/graph/graph-index';
import { orbits } from '../../main/lab/graph/orbits';
import { graphOf } from '../support/helpers';

const orb = (g: Graph): string[][] => orbits(buildIndex(g));
const nodesT = (ids: string[], type = 't'): string[] => ids.map((i) => `${i}:${type}`);
/** An undirected graph as a pair of opposite directed edges per edge. */
function undirected(n: number, pairs: [number, number][]): Graph {
  const edges: [string, string, string][] = [];
  for (const [a, b] of pairs) edges.push([`v${a}`, 'r', `v${b}`], [`v${b}`, 'r', `v${a}`]);
  return graphOf(nodesT(Array.from({ length: n }, (_, i) => `v${i}`)), edges);
}

describe('orbits', () => {
  it('a directed cycle is one orbit', () => {
    const g = graphOf(nodesT(['a', 'b', 'c', 'd', 'e']), [['a', 'r', 'b'], ['b', 'r', 'c'], ['c', 'r', 'd'], ['d', 'r', 'e'], ['e', 'r', 'a']]);
    expect(orb(g)).toEqual([['a', 'b', 'c', 'd', 'e']]);
  });

  it('a star: the hub alone, the leaves together', () => {
    const g = graphOf(['h:company', ...nodesT(['l1', 'l2', 'l3', 'l4'], 'person')], [['l1', 'works_at', 'h'], ['l2', 'works_at', 'h'], ['l3', 'works_at', 'h'], ['l4', 'works_at', 'h']]);
    expect(orb(g)).toEqual([['h'], ['l1', 'l2', 'l3', 'l4']]);
  });

  it('a directed path has no symmetry; a path whose edges meet in the middle swaps its ends', () => {
    expect(orb(graphOf(nodesT(['a', 'b', 'c']), [['a', 'r', 'b'], ['b', 'r', 'c']]))).toEqual([['a'], ['b'], ['c']]);
    expect(orb(graphOf(nodesT(['a', 'b', 'c']), [['a', 'r', 'b'], ['c', 'r', 'b']]))).toEqual([['a', 'c'], ['b']]);
    // a -> b -> c <- d <- e: mirror-symmetric; a -> b -> c -> d <- e: not.
    expect(orb(graphOf(nodesT(['a', 'b', 'c', 'd', 'e']), [['a', 'r', 'b'], ['b', 'r', 'c'], ['d', 'r', 'c'], ['e', 'r', 'd']]))).toEqual([['a', 'e'], ['b', 'd'], ['c']]);
    expect(orb(graphOf(nodesT(['a', 'b', 'c', 'd', 'e']), [['a', 'r', 'b'], ['b', 'r', 'c'], ['c', 'r', 'd'], ['e', 'r', 'd']])).length).toBe(5);
  });

  it('two isomorphic components are swapped', () => {
    const g = graphOf(['x1:person', 'y1:city', 'x2:person', 'y2:city', 'z:city'], [['x1', 'born_in', 'y1'], ['x2', 'born_in', 'y2']]);
    expect(orb(g)).toEqual([['x1', 'x2'], ['y1', 'y2'], ['z']]);
  });

  it('labels break symmetry', () => {
    // One node of another type on a directed 4-cycle: no rotation survives.
    const cyc = graphOf(['a:t', 'b:t', 'c:u', 'd:t'], [['a', 'r', 'b'], ['b', 'r', 'c'], ['c', 'r', 'd'], ['d', 'r', 'a']]);
    expect(orb(cyc)).toEqual([['a'], ['b'], ['c'], ['d']]);
    // One leaf of a star on another relation.
    const star = graphOf(nodesT(['h', 'a', 'b', 'c']), [['h', 'r', 'a'], ['h', 'r', 'b'], ['h', 's', 'c']]);
    expect(orb(star)).toEqual([['a', 'b'], ['c'], ['h']]);
  });

  it('handles multigraph edges', () => {
    // a and b each have two edges to h, but with different relation pairs.
    const g = graphOf(nodesT(['h', 'a', 'b', 'c']), [['a', 'r', 'h'], ['a', 's', 'h'], ['b', 'r', 'h'], ['b', 's', 'h'], ['c', 'r', 'h'], ['c', 'r', 'h']]);
    expect(orb(g)).toEqual([['a', 'b'], ['c'], ['h']]);
  });

  it('is exact where colour refinement splits nothing', () => {
    // Directed 6-cycle + two directed 3-cycles: every node looks alike to 1-WL, yet there are two orbits.
    const ring = (ids: string[]): [string, string, string][] => ids.map((id, i) => [id, 'r', ids[(i + 1) % ids.length]!]);
    const g = graphOf(nodesT(['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'b0', 'b1', 'b2', 'c0', 'c1', 'c2']), [
      ...ring(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']),
      ...ring(['b0', 'b1', 'b2']),
      ...ring(['c0', 'c1', 'c2']),
    ]);
    expect(orb(g)).toEqual([['a0', 'a1', 'a2', 'a3', 'a4', 'a5'], ['b0', 'b1', 'b2', 'c0', 'c1', 'c2']]);
    // Petersen graph: 3-regular and vertex-transitive, one orbit.
    const petersen = undirected(10, [[0, 1], [0, 4], [0, 5], [1, 2], [1, 6], [2, 3], [2, 7], [3, 4], [3, 8], [4, 9], [5, 7], [5, 8], [6, 8], [6, 9], [7, 9]]);
    expect(orb(petersen)).toHaveLength(1);
    // Frucht graph: 3-regular with no non-trivial automorphism, twelve singletons.
    const frucht = undirected(
      12,
      [[0, 1], [0, 6], [0, 7], [1, 2], [1, 7], [2, 3], [2, 8], [3, 4], [3, 9], [4, 5], [4, 9], [5, 6], [5, 10], [6, 10], [7, 11], [8, 9], [8, 11], [10, 11]],
    );
    expect(orb(frucht)).toHaveLength(12);
  });

  it('works on a subgraph and sorts ids by code unit', () => {
    const g = graphOf(nodesT(['n10', 'n2', 'n3', 'n9']), [['n2', 'r', 'n10'], ['n3', 'r', 'n10'], ['n9', 's', 'n10']]);
    const idx = buildIndex(g);
    expect(orbits(idx, { nodes: ['n10', 'n3', 'n2'], edges: ['e1', 'e0'] })).toEqual([['n10'], ['n2', 'n3']]);
    expect(orbits(idx, { nodes: ['n10'], edges: [] })).toEqual([['n10']]);
    expect(orbits(idx, { nodes: [], edges: [] })).toEqual([]);
  });

  it('stays fast on a few hundred nodes of a tree-like graph with many symmetric leaves', () => {
    // 40 hubs in a directed chain, each with 6 identical leaves and a 2-node tail: 360 nodes.
    const nodes: string[] = [];
    const edges: [string, string, string][] = [];
    for (let h = 0; h < 40; h++) {
      nodes.push(`h${h}:hub`);
      if (h > 0) edges.push([`h${h - 1}`, 'next', `h${h}`]);
      for (let l = 0; l < 6; l++) {
        nodes.push(`h${h}l${l}:leaf`);
        edges.push([`h${h}`, 'has', `h${h}l${l}`]);
      }
      nodes.push(`h${h}t:leaf`, `h${h}u:leaf`);
      edges.push([`h${h}`, 'tail', `h${h}t`], [`h${h}t`, 'tail', `h${h}u`]);
    }
    const t0 = performance.now();
    const result = orb(graphOf(nodes, edges));
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(result.filter((o) => o.length === 6)).toHaveLength(40);
    expect(result).toHaveLength(40 * 4);
  });

  it('fails instead of guessing when the budget runs out', () => {
    const petersen = undirected(10, [[0, 1], [0, 4], [0, 5], [1, 2], [1, 6], [2, 3], [2, 7], [3, 4], [3, 8], [4, 9], [5, 7], [5, 8], [6, 8], [6, 9], [7, 9]]);
    expect(() => orbits(buildIndex(petersen), undefined, { budget: 50 })).toThrow(/work budget/);
  });
});
