import { describe, expect, it } from 'vitest';
import type { Graph } from '../../main/lab/formats/index';
import { buildIndex } from '../../main/lab/graph/graph-index';
import { topologyOf } from '../../main/lab/graph/topology';

/** Edges as 'a>b' (relation r); nodes are every id mentioned, all of type t. */
function shape(spec: string[], extraNodes: string[] = []): string {
  const pairs = spec.map((s) => s.split('>') as [string, string]);
  const ids = [...new Set([...pairs.flat(), ...extraNodes])];
  const g: Graph = {
    format: 'sailor.graph/1',
    nodes: ids.map((id) => ({ id, type: 't', name: id, aliases: [], attrs: {}, meta: {} })),
    edges: pairs.map(([source, target], i) => ({ id: `e${i}`, source, target, relation: 'r', meta: {} })),
  };
  return topologyOf(buildIndex(g), { nodes: ids, edges: g.edges.map((e) => e.id) });
}

describe('topologyOf', () => {
  it('paths, whatever the directions', () => {
    expect(shape([], ['a'])).toBe('path');
    expect(shape(['a>b'])).toBe('path');
    expect(shape(['a>b', 'c>b', 'c>d'])).toBe('path');
    expect(shape(['a>b', 'b>c'])).toBe('path'); // 2 leaves is not a star
  });
  it('stars need a hub joined to all others and at least 3 leaves', () => {
    expect(shape(['h>a', 'h>b', 'c>h'])).toBe('star');
    expect(shape(['h>a', 'h>b', 'h>c', 'h>d', 'h>e'])).toBe('star');
  });
  it('other acyclic shapes are trees', () => {
    expect(shape(['h>a', 'h>b', 'h>c', 'c>d'])).toBe('tree'); // spider with one long leg
    expect(shape(['a>b', 'b>c', 'b>d', 'd>e', 'd>f'])).toBe('tree');
    expect(shape(['a>b', 'c>d'])).toBe('tree'); // a forest
  });
  it('one independent cycle is a cycle, tails included', () => {
    expect(shape(['a>b', 'b>c', 'c>a'])).toBe('cycle');
    expect(shape(['a>b', 'c>b', 'c>d', 'a>d'])).toBe('cycle'); // undirected 4-cycle, mixed directions
    expect(shape(['a>b', 'b>c', 'c>a', 'c>d', 'd>e'])).toBe('cycle');
  });
  it('two or more independent cycles are dense', () => {
    expect(shape(['a>b', 'b>c', 'c>a', 'c>d', 'd>a'])).toBe('dense'); // two triangles sharing an edge
    expect(shape(['a>b', 'a>c', 'a>d', 'b>c', 'b>d', 'c>d'])).toBe('dense'); // K4
  });
  it('uses the simple graph: opposite, parallel edges and self-loops add no cycle', () => {
    expect(shape(['a>b', 'b>a'])).toBe('path');
    expect(shape(['a>b', 'a>b', 'b>c'])).toBe('path');
    expect(shape(['a>a', 'a>b'])).toBe('path');
    expect(shape(['h>a', 'a>h', 'h>b', 'h>c'])).toBe('star');
  });
});
