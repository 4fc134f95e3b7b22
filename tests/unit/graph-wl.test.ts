import { describe, expect, it } from 'vitest';
import type { Graph } from '../../main/lab/formats/index';
import { buildIndex } from '../../main/lab/graph/graph-index';
import { wlHash } from '../../main/lab/graph/wl';
import { graphOf } from '../support/helpers';

const hash = (g: Graph, k?: number): string => wlHash(buildIndex(g), undefined, k);

// A person founded a company located in a city; the city is the capital of a country; the person was born in the city.
const base = graphOf(
  ['p:person', 'c:company', 'x:city', 'y:country'],
  [
    ['p', 'founded', 'c'],
    ['c', 'located_in', 'x'],
    ['x', 'capital_of', 'y'],
    ['p', 'born_in', 'x'],
  ],
);

describe('wlHash', () => {
  it('is a 32-hex-char string and stable', () => {
    expect(hash(base)).toMatch(/^[0-9a-f]{32}$/);
    expect(hash(base)).toBe(hash(base));
  });

  it('is equal for a relabelled, reordered copy, and ignores names and attrs', () => {
    // New ids, nodes and edges in reverse order (edge ids follow the new order too).
    const id: Record<string, string> = { p: 'Q7', c: 'Q3', x: 'Q1', y: 'Q9' };
    const copy = graphOf(
      base.nodes.map((n) => `${id[n.id]}:${n.type}`).reverse(),
      base.edges.map((e): [string, string, string] => [id[e.source]!, e.relation, id[e.target]!]).reverse(),
    );
    expect(copy.nodes.map((n) => n.id)).toEqual(['Q9', 'Q1', 'Q3', 'Q7']);
    copy.nodes[0]!.name = 'Somewhere';
    copy.nodes[0]!.attrs = { population: { type: 'number', value: 5 } };
    copy.edges[0]!.meta = { evidence: 'text' };
    expect(hash(copy)).toBe(hash(base));
  });

  it('differs when a node type changes', () => {
    const g = structuredClone(base);
    g.nodes[3]!.type = 'region';
    expect(hash(g)).not.toBe(hash(base));
  });

  it('differs when a relation changes', () => {
    const g = structuredClone(base);
    g.edges[2]!.relation = 'largest_city_of';
    expect(hash(g)).not.toBe(hash(base));
  });

  it('differs when one edge direction flips', () => {
    const g = structuredClone(base);
    const e = g.edges[1]!;
    [e.source, e.target] = [e.target, e.source];
    expect(hash(g)).not.toBe(hash(base));
    // Same types everywhere, so only direction can tell these apart: a->b->c vs a->b<-c.
    expect(hash(graphOf(['a:t', 'b:t', 'c:t'], [['a', 'r', 'b'], ['b', 'r', 'c']]))).not.toBe(
      hash(graphOf(['a:t', 'b:t', 'c:t'], [['a', 'r', 'b'], ['c', 'r', 'b']])),
    );
  });

  it('counts parallel edges and tells their relations apart', () => {
    const two = hash(graphOf(['a:t', 'b:t'], [['a', 'r', 'b'], ['a', 's', 'b']]));
    const same = hash(graphOf(['a:t', 'b:t'], [['a', 'r', 'b'], ['a', 'r', 'b']]));
    const one = hash(graphOf(['a:t', 'b:t'], [['a', 'r', 'b']]));
    const back = hash(graphOf(['a:t', 'b:t'], [['a', 'r', 'b'], ['b', 's', 'a']]));
    expect(new Set([two, same, one, back]).size).toBe(4);
  });

  it('hashes a subgraph like the same graph on its own', () => {
    const idx = buildIndex(base);
    const sub = { nodes: ['x', 'c', 'p'], edges: ['e1', 'e3', 'e0'] };
    const alone = graphOf(['p:person', 'c:company', 'x:city'], [['p', 'founded', 'c'], ['c', 'located_in', 'x'], ['p', 'born_in', 'x']]);
    expect(wlHash(idx, sub)).toBe(hash(alone));
    expect(() => wlHash(idx, { nodes: ['p', 'c'], edges: ['e1'] })).toThrow(/not in the subgraph/);
  });

  it('depends on the round count', () => {
    expect(hash(base, 1)).not.toBe(hash(base, 3));
  });

  it('known blind spot: a directed 6-cycle and two directed 3-cycles hash equal', () => {
    const c6 = graphOf(['0:t', '1:t', '2:t', '3:t', '4:t', '5:t'], [0, 1, 2, 3, 4, 5].map((i) => [`${i}`, 'r', `${(i + 1) % 6}`] as [string, string, string]));
    const c3c3 = graphOf(['0:t', '1:t', '2:t', '3:t', '4:t', '5:t'], [
      ['0', 'r', '1'], ['1', 'r', '2'], ['2', 'r', '0'],
      ['3', 'r', '4'], ['4', 'r', '5'], ['5', 'r', '3'],
    ]);
    expect(hash(c6)).toBe(hash(c3c3)); // 1-WL sees the same local view everywhere (docs/formats.md; the wl.ts header)
  });
});
