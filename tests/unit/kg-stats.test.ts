import { describe, expect, it } from 'vitest';
import { countComponents, graphStats } from '../../main/lab/kg/stats';
import { graphOf } from '../support/helpers';

describe('graphStats', () => {
  it('empty graph: all zero', () => {
    expect(graphStats(graphOf([], []))).toEqual({ nodes: 0, edges: 0, components: 0, cycle_rank: 0, types: {}, relations: {} });
  });

  it('a tree has cycle rank 0', () => {
    const g = graphOf(['a:person', 'b:city', 'c:country', 'd:city'], [
      ['a', 'born_in', 'b'],
      ['b', 'located_in', 'c'],
      ['d', 'located_in', 'c'],
    ]);
    expect(graphStats(g)).toEqual({
      nodes: 4,
      edges: 3,
      components: 1,
      cycle_rank: 0,
      types: { city: 2, country: 1, person: 1 },
      relations: { born_in: 1, located_in: 2 },
    });
  });

  it('a directed triangle is one cycle whatever the edge directions', () => {
    const g = graphOf(['a:x', 'b:x', 'c:x'], [
      ['a', 'r', 'b'],
      ['c', 'r', 'b'],
      ['a', 'r', 'c'],
    ]);
    expect(graphStats(g).cycle_rank).toBe(1);
  });

  it('parallel edges and self loops count (undirected multigraph)', () => {
    const parallel = graphOf(['city:city', 'fr:country'], [
      ['city', 'located_in', 'fr'],
      ['city', 'capital_of', 'fr'],
    ]);
    expect(graphStats(parallel).cycle_rank).toBe(1);
    const loop = graphOf(['a:x'], [['a', 'r', 'a']]);
    expect(graphStats(loop)).toMatchObject({ nodes: 1, edges: 1, components: 1, cycle_rank: 1 });
  });

  it('counts components, isolated nodes included', () => {
    // Square with a diagonal (rank 2) + a separate edge + an isolated node.
    const g = graphOf(['a:x', 'b:x', 'c:x', 'd:x', 'e:y', 'f:y', 'g:z'], [
      ['a', 'r', 'b'],
      ['b', 'r', 'c'],
      ['c', 'r', 'd'],
      ['d', 'r', 'a'],
      ['a', 's', 'c'],
      ['e', 's', 'f'],
    ]);
    const s = graphStats(g);
    expect(s.components).toBe(3);
    expect(s.cycle_rank).toBe(6 - 7 + 3);
    expect(s.cycle_rank).toBe(2);
    expect(Object.keys(s.types)).toEqual(['x', 'y', 'z']);
    expect(s.relations).toEqual({ r: 4, s: 2 });
  });

  it('countComponents ignores edges to unknown nodes', () => {
    expect(countComponents(['a', 'b'], [{ source: 'a', target: 'zz' }])).toBe(2);
  });

  it('is pure: the input is not modified', () => {
    const g = graphOf(['a:x', 'b:x'], [['a', 'r', 'b']]);
    const before = JSON.stringify(g);
    graphStats(g);
    expect(JSON.stringify(g)).toBe(before);
  });
});
