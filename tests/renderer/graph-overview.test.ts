// The Graph explorer's opening view of a big graph (issue 45, part 2, point 6): communities (Louvain), named
// after their best-connected members, joined by the edges between them. Hand-checked on two cliques joined
// by one bridge; then on a graph the lab builds, small enough to read.
import { describe, expect, it } from 'vitest';
import { communityOverview, MAX_COMMUNITIES, type OverviewNode } from '../../renderer/src/components/graph/overview';
import { fixtureGraph } from '../support/fixture-graph';
import { exploreRings, type RingNode } from '../../renderer/src/components/graph/exploreRings';

const node = (id: string, type = 'city'): OverviewNode => ({ id, name: id.toUpperCase(), type });
/** Every pair of `ids` joined. */
const clique = (ids: string[]): Array<[string, string]> => ids.flatMap((a, i) => ids.slice(i + 1).map((b): [string, string] => [a, b]));

describe('communityOverview', () => {
  it('finds two cliques joined by a bridge, names each after its best-connected members, and joins them once', () => {
    const left = ['a1', 'a2', 'a3', 'a4', 'a5'];
    const right = ['b1', 'b2', 'b3', 'b4'];
    const nodes = [...left.map((id) => node(id, 'country')), ...right.map((id) => node(id)), node('lonely', 'river')];
    // a1 also carries the bridge (5 edges), b1 too (4): each its community's best-connected member.
    const edges = [...clique(left), ...clique(right), ['a1', 'b1'] as [string, string], ['a2', 'a2'] as [string, string]];
    const o = communityOverview(nodes, edges);
    expect(o.found).toBe(3); // the lonely node is a community of its own
    expect(o.communities).toEqual([
      { id: 'c0', size: 5, hub: 'a1', name: 'A1, A2', type: 'country' },
      { id: 'c1', size: 4, hub: 'b1', name: 'B1, B2', type: 'city' },
      { id: 'c2', size: 1, hub: 'lonely', name: 'LONELY', type: 'river' },
    ]);
    // One bridge between the cliques; the self-loop adds nothing.
    expect(o.links).toEqual([{ id: 'c0-c1', source: 'c0', target: 'c1', weight: 1 }]);
    expect(o.covered).toBe(10);
  });

  it('shows at most the largest communities, and says how many nodes they hold', () => {
    const nodes = Array.from({ length: 12 }, (_, i) => node(`n${i}`));
    const edges: Array<[string, string]> = [];
    for (let i = 0; i < 12; i += 2) edges.push([`n${i}`, `n${i + 1}`]);
    const o = communityOverview(nodes, edges, 4);
    expect(o.found).toBe(6);
    expect(o.communities).toHaveLength(4);
    expect(o.covered).toBe(8);
  });

  it('reads a lab graph of hundreds of nodes as a few dozen communities, the same every time', () => {
    const g = fixtureGraph({ countries: 60 });
    const edges = g.edges.map((e): [string, string] => [e.source, e.target]);
    const o = communityOverview(g.nodes, edges);
    expect(g.nodes.length).toBeGreaterThan(300);
    expect(o.communities.length).toBeGreaterThan(3);
    expect(o.communities.length).toBeLessThanOrEqual(MAX_COMMUNITIES);
    expect(o.links.length).toBeGreaterThan(0);
    // Largest first, and each named after members of its own.
    for (let i = 1; i < o.communities.length; i++) expect(o.communities[i - 1]!.size).toBeGreaterThanOrEqual(o.communities[i]!.size);
    expect(communityOverview(g.nodes, edges)).toEqual(o);
  });
});

describe('exploreRings (the explore view of a hub)', () => {
  it('fills rings of 8, 16, 24, … best-connected first, and starts a ring at each depth', () => {
    const hood: RingNode[] = [{ id: 'root', depth: 0, degree: 131 }];
    for (let i = 0; i < 131; i++) hood.push({ id: `n${String(i).padStart(3, '0')}`, depth: 1, degree: 200 - i });
    hood.push({ id: 'far1', depth: 2, degree: 500 }, { id: 'far2', depth: 2, degree: 1 }, { id: 'lost', depth: Infinity, degree: 9 });
    const ring = exploreRings(hood);
    expect(ring.get('root')).toBe(0);
    const sizes = new Map<number, number>();
    for (const [id, r] of ring) if (id.startsWith('n')) sizes.set(r, (sizes.get(r) ?? 0) + 1);
    // 131 = 8 + 16 + 24 + 32 + 40 + 11: six rings where one circle held them all.
    expect([...sizes.entries()].sort((a, b) => a[0] - b[0])).toEqual([[1, 8], [2, 16], [3, 24], [4, 32], [5, 40], [6, 11]]);
    expect(ring.get('n000')).toBe(1); // the best-connected neighbour nearest the centre
    expect(ring.get('n130')).toBe(6);
    // The next depth on a ring of its own however well connected, and an unreached node outside it.
    expect(ring.get('far1')).toBe(7);
    expect(ring.get('far2')).toBe(7);
    expect(ring.get('lost')).toBe(8);
  });

  it('keeps a root-less set in rings by degree, ties by id', () => {
    const ring = exploreRings([{ id: 'b', depth: Infinity, degree: 1 }, { id: 'a', depth: Infinity, degree: 1 }, { id: 'c', depth: Infinity, degree: 3 }], 1);
    expect([...ring]).toEqual([['c', 1], ['a', 2], ['b', 2]]);
  });
});
