import { describe, expect, it } from 'vitest';
import { cycleEdges } from '../../main/lab/graph/cycles';

const e = (id: string, source: string, target: string) => ({ id, source, target });

describe('cycleEdges (non-bridges of the undirected multigraph)', () => {
  it('a path has no cycle edges', () => {
    expect([...cycleEdges(['a', 'b', 'c'], [e('1', 'a', 'b'), e('2', 'b', 'c')])]).toEqual([]);
  });

  it('a directed triangle is a cycle whatever the directions', () => {
    const edges = [e('1', 'a', 'b'), e('2', 'c', 'b'), e('3', 'a', 'c')];
    expect([...cycleEdges(['a', 'b', 'c'], edges)].sort()).toEqual(['1', '2', '3']);
  });

  it('a triangle with a tail: only the triangle', () => {
    const edges = [e('1', 'a', 'b'), e('2', 'b', 'c'), e('3', 'c', 'a'), e('4', 'c', 'd'), e('5', 'd', 'x')];
    expect([...cycleEdges(['a', 'b', 'c', 'd', 'x'], edges)].sort()).toEqual(['1', '2', '3']);
  });

  it('two parallel edges between the same pair form a cycle', () => {
    const edges = [e('1', 'a', 'b'), e('2', 'b', 'a'), e('3', 'b', 'c')];
    expect([...cycleEdges(['a', 'b', 'c'], edges)].sort()).toEqual(['1', '2']);
  });

  it('two cycles joined by a bridge, in two components, with a self-loop', () => {
    const edges = [
      e('1', 'a', 'b'), e('2', 'b', 'c'), e('3', 'c', 'a'), // cycle 1
      e('4', 'c', 'd'), // bridge
      e('5', 'd', 'e'), e('6', 'e', 'f'), e('7', 'f', 'd'), // cycle 2
      e('8', 'x', 'y'), // other component, tree
      e('9', 'y', 'y'), // self-loop
    ];
    const got = [...cycleEdges(['a', 'b', 'c', 'd', 'e', 'f', 'x', 'y'], edges)].sort();
    expect(got).toEqual(['1', '2', '3', '5', '6', '7', '9']);
  });

  it('handles a long path without recursion limits', () => {
    const n = 50_000;
    const ids = Array.from({ length: n }, (_, i) => `n${i}`);
    const edges = ids.slice(1).map((id, i) => e(`e${i}`, ids[i]!, id));
    edges.push(e('close', ids[n - 1]!, ids[0]!));
    expect(cycleEdges(ids, edges).size).toBe(n);
  });
});
