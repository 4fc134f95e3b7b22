import { describe, expect, it } from 'vitest';
import type { Graph } from '../../main/lab/formats/index';
import { buildIndex, type GraphIndex, type Subgraph } from '../../main/lab/graph/graph-index';
import { wlHash } from '../../main/lab/graph/wl';
import { topologyOf } from '../../main/lab/graph/topology';
import { sampleDistinct, sampleSubgraph } from '../../main/lab/graph/sample';
import { createRng } from '../../main/lab/util/rng';

/** A random labelled multigraph: a random tree (connected) plus extra edges that close cycles. */
function randomGraph(seed: number, n: number, extra: number, labelled = true): Graph {
  const rng = createRng(seed);
  const types = labelled ? ['person', 'company', 'city', 'award'] : ['thing'];
  const rels = labelled ? ['founded', 'born_in', 'located_in', 'won', 'works_at'] : ['related'];
  const g: Graph = { format: 'sailor.graph/1', nodes: [], edges: [] };
  for (let i = 0; i < n; i++) g.nodes.push({ id: `n${i}`, type: rng.pick(types), name: `N${i}`, aliases: [], attrs: {}, meta: {} });
  const edge = (a: number, b: number): void => {
    const [s, t] = rng.next() < 0.5 ? [a, b] : [b, a];
    g.edges.push({ id: `e${g.edges.length}`, source: `n${s}`, target: `n${t}`, relation: rng.pick(rels), meta: {} });
  };
  // Preferential attachment gives hubs (for stars) and long branches.
  for (let i = 1; i < n; i++) edge(i, rng.next() < 0.3 ? 0 : rng.int(i));
  for (let k = 0; k < extra; k++) edge(rng.int(n), rng.int(n));
  return g;
}

function connected(idx: GraphIndex, sub: Subgraph): boolean {
  const nodes = new Set(sub.nodes);
  const adj = new Map<string, string[]>(sub.nodes.map((v) => [v, []]));
  for (const id of sub.edges) {
    const e = idx.edge(id)!;
    if (!nodes.has(e.source) || !nodes.has(e.target)) return false;
    adj.get(e.source)!.push(e.target);
    adj.get(e.target)!.push(e.source);
  }
  const seen = new Set([sub.nodes[0]!]);
  const stack = [sub.nodes[0]!];
  while (stack.length) {
    for (const u of adj.get(stack.pop()!)!) {
      if (!seen.has(u)) {
        seen.add(u);
        stack.push(u);
      }
    }
  }
  return seen.size === nodes.size;
}

const idx = buildIndex(randomGraph(7, 300, 120));

describe('sampleSubgraph', () => {
  it('is deterministic for a seed', () => {
    const a = sampleSubgraph(idx, createRng(42), { minEdges: 3, maxEdges: 8 });
    const b = sampleSubgraph(idx, createRng(42), { minEdges: 3, maxEdges: 8 });
    expect(a).not.toBeNull();
    expect(a).toEqual(b);
  });

  it('returns connected subgraphs with distinct ids and an edge count in range', () => {
    const rng = createRng(1);
    for (let i = 0; i < 200; i++) {
      const sub = sampleSubgraph(idx, rng, { minEdges: 2, maxEdges: 9, restartProb: rng.next(), cycleProb: rng.next() })!;
      expect(sub).not.toBeNull();
      expect(sub.edges.length).toBeGreaterThanOrEqual(2);
      expect(sub.edges.length).toBeLessThanOrEqual(9);
      expect(new Set(sub.edges).size).toBe(sub.edges.length);
      expect(new Set(sub.nodes).size).toBe(sub.nodes.length);
      expect(connected(idx, sub)).toBe(true);
    }
  });

  it('keeps to the start node, stays acyclic with cycleProb 0, and grows stars from the start', () => {
    const rng = createRng(3);
    for (let i = 0; i < 50; i++) {
      const sub = sampleSubgraph(idx, rng, { minEdges: 4, maxEdges: 8, start: 'n0', cycleProb: 0, restartProb: 0.5 })!;
      expect(sub.nodes[0]).toBe('n0');
      expect(['path', 'star', 'tree']).toContain(topologyOf(idx, sub));
    }
    const star = sampleSubgraph(idx, rng, { minEdges: 5, maxEdges: 5, start: 'n0', cycleProb: 0, restartProb: 1, restartTo: 'start' })!;
    expect(topologyOf(idx, star)).toBe('star');
    expect(star.edges.map((id) => idx.edge(id)!).every((e) => e.source === 'n0' || e.target === 'n0')).toBe(true);
  });

  it('closes cycles when asked and the graph has them', () => {
    const rng = createRng(5);
    const shapes = new Set<string>();
    for (let i = 0; i < 100; i++) shapes.add(topologyOf(idx, sampleSubgraph(idx, rng, { minEdges: 6, maxEdges: 12, cycleProb: 1 })!));
    expect(shapes.has('cycle') || shapes.has('dense')).toBe(true);
  });

  it('plants cycles on request: one gives a cycle, two give a dense shape', () => {
    const rng = createRng(8);
    for (const [cycles, want] of [[1, 'cycle'], [2, 'dense']] as const) {
      let got = 0;
      for (let i = 0; i < 40; i++) {
        const sub = sampleSubgraph(idx, rng, { minEdges: 6, maxEdges: 10, cycles, cycleProb: 0 });
        if (!sub) continue; // no short enough cycle near the random starts
        expect(topologyOf(idx, sub)).toBe(want);
        expect(connected(idx, sub)).toBe(true);
        got++;
      }
      expect(got).toBeGreaterThan(10);
    }
  });

  it('returns null when the component is too small, and rejects bad options', () => {
    const tiny: Graph = {
      format: 'sailor.graph/1',
      nodes: ['a', 'b', 'c'].map((id) => ({ id, type: 't', name: id, aliases: [], attrs: {}, meta: {} })),
      edges: [{ id: 'e0', source: 'a', target: 'b', relation: 'r', meta: {} }],
    };
    const t = buildIndex(tiny);
    expect(sampleSubgraph(t, createRng(1), { minEdges: 2, maxEdges: 3 })).toBeNull();
    expect(sampleSubgraph(t, createRng(1), { minEdges: 1, maxEdges: 1, start: 'c' })).toBeNull();
    expect(sampleSubgraph(t, createRng(1), { minEdges: 1, maxEdges: 3 })).toEqual({ nodes: expect.any(Array), edges: ['e0'] });
    expect(() => sampleSubgraph(t, createRng(1), { minEdges: 3, maxEdges: 2 })).toThrow(/maxEdges/);
    expect(() => sampleSubgraph(t, createRng(1), { minEdges: 1, maxEdges: 2, start: 'zz' })).toThrow(/unknown start/);
  });
});

describe('sampleDistinct', () => {
  it('keeps one subgraph per WL hash and covers every topology', () => {
    const { subgraphs, stats } = sampleDistinct(idx, createRng(11), { minEdges: 3, maxEdges: 8, count: 60, maxTries: 3000 });
    expect(subgraphs).toHaveLength(60);
    expect(new Set(subgraphs.map((s) => s.hash)).size).toBe(60);
    for (const s of subgraphs.slice(0, 10)) {
      expect(s.hash).toBe(wlHash(idx, s));
      expect(s.topology).toBe(topologyOf(idx, s));
    }
    for (const t of ['path', 'star', 'tree', 'cycle', 'dense']) expect(stats.byTopology[t]).toBeGreaterThanOrEqual(8);
    expect(stats.tried).toBeGreaterThanOrEqual(60);
  });

  it('is deterministic and honours a per-hash budget', () => {
    // Unlabelled, 1-2 edges: only a handful of shapes exist, so duplicates must show up.
    const plain = buildIndex(randomGraph(5, 100, 30, false));
    const opts = { minEdges: 1, maxEdges: 2, count: 40, maxTries: 400, perHash: 3, balance: false };
    const a = sampleDistinct(plain, createRng(9), opts);
    const b = sampleDistinct(plain, createRng(9), opts);
    expect(a).toEqual(b);
    expect(a.subgraphs.length).toBeLessThan(40);
    const perHash = new Map<string, number>();
    for (const s of a.subgraphs) perHash.set(s.hash, (perHash.get(s.hash) ?? 0) + 1);
    expect(Math.max(...perHash.values())).toBeLessThanOrEqual(3);
    expect(a.stats.duplicates).toBeGreaterThan(0);
  });

  it('only offers the shapes an acyclic graph has', () => {
    const tree = buildIndex(randomGraph(2, 200, 0));
    const { subgraphs, stats } = sampleDistinct(tree, createRng(4), { minEdges: 2, maxEdges: 7, count: 30, maxTries: 1000 });
    expect(subgraphs).toHaveLength(30);
    expect(stats.byTopology.cycle).toBe(0);
    expect(stats.byTopology.dense).toBe(0);
    expect(stats.byTopology.star).toBeGreaterThan(0);
  });
});
