import { describe, expect, it } from 'vitest';
import type { Graph } from '../../main/lab/formats/index';
import { buildIndex } from '../../main/lab/graph/graph-index';
import { graphOf } from '../support/helpers';

describe('GraphIndex', () => {
  const g = graphOf(
    ['a:person', 'b:company', 'c:city', 'd:city'],
    [
      ['a', 'founded', 'b'],
      ['a', 'leads', 'b'], // parallel edge, other relation
      ['b', 'located_in', 'c'],
      ['c', 'near', 'c'], // self-loop
      ['c', 'near', 'a'],
    ],
  );
  const idx = buildIndex(g);

  it('looks nodes and edges up by id', () => {
    expect(idx.node('b')?.type).toBe('company');
    expect(idx.edge('e2')?.relation).toBe('located_in');
    expect(idx.node('zz')).toBeUndefined();
    expect(idx.edge('zz')).toBeUndefined();
    expect(idx.hasNode('d')).toBe(true);
  });

  it('lists out- and in-edges in graph order', () => {
    expect(idx.outEdges('a').map((e) => e.id)).toEqual(['e0', 'e1']);
    expect(idx.inEdges('b').map((e) => e.id)).toEqual(['e0', 'e1']);
    expect(idx.outEdges('c').map((e) => e.id)).toEqual(['e3', 'e4']);
    expect(idx.inEdges('c').map((e) => e.id)).toEqual(['e2', 'e3']);
    expect(idx.outEdges('d')).toEqual([]);
    expect(idx.inEdges('nope')).toEqual([]);
  });

  it('lists distinct undirected neighbours without self', () => {
    expect(idx.neighbours('a').sort()).toEqual(['b', 'c']);
    expect(idx.neighbours('b').sort()).toEqual(['a', 'c']);
    expect(idx.neighbours('c').sort()).toEqual(['a', 'b']);
    expect(idx.neighbours('d')).toEqual([]);
    expect(idx.degreeIdx(idx.nodeIndexOf('c'))).toBe(4); // self-loop counts twice
  });

  it('rejects duplicate ids and dangling edges', () => {
    expect(() => buildIndex(graphOf(['a:x', 'a:y'], []))).toThrow(/duplicate node id 'a'/);
    expect(() => buildIndex(graphOf(['a:x'], [['a', 'r', 'b']]))).toThrow(/unknown target 'b'/);
  });

  it('builds 100k nodes / 200k edges quickly', () => {
    const n = 100_000;
    const graph: Graph = { format: 'sailor.graph/1', nodes: [], edges: [] };
    for (let i = 0; i < n; i++) graph.nodes.push({ id: `n${i}`, type: 't', name: '', aliases: [], attrs: {}, meta: {} });
    for (let j = 0; j < 2 * n; j++) {
      graph.edges.push({ id: `e${j}`, source: `n${(j * 7919) % n}`, target: `n${(j * 104729 + 13) % n}`, relation: 'r', meta: {} });
    }
    const t0 = performance.now();
    const big = buildIndex(graph);
    const ms = performance.now() - t0;
    expect(big.edgeCount).toBe(2 * n);
    let total = 0;
    for (let v = 0; v < n; v++) total += big.outEdgeIdx(v).length;
    expect(total).toBe(2 * n);
    expect(ms).toBeLessThan(10_000); // 0.2-2 s here depending on load; only catches a quadratic blow-up
  });
});
