import { describe, expect, it } from 'vitest';
import { GRAPH_FORMAT, type Graph, type GraphNode } from '../../main/lab/formats';
import { buildIndex } from '../../main/lab/graph/graph-index';
import { wlHash } from '../../main/lab/graph/wl';
import { topologyOf } from '../../main/lab/graph/topology';
import { makeQa, synthesize } from '../../main/lab/synth/build';
import { makeContext, makeInstance } from '../../main/lab/synth/draft';
import { resolveOptions } from '../../main/lab/synth/options';
import { OrbitBalancer, canonicalOrbits } from '../../main/lab/synth/orbits';
import { datasetEdges } from '../../main/lab/synth/splits';
import { checkDataset } from '../../main/lab/synth/dataset';
import { fixtureGraph } from '../support/fixture-graph';
import { mentionsAny, OBFUSCATION_KINDS } from '../../main/lab/synth/obfuscate';
import { createRng } from '../../main/lab/util/rng';

function node(id: string, type: string, name: string, attrs: GraphNode['attrs'] = {}): GraphNode {
  return { id, type, name, aliases: [], attrs, meta: {} };
}

describe('orbit balancing', () => {
  it('chooses the least used orbit of a shape, so every role gets its turn', () => {
    const b = new OrbitBalancer();
    const rng = createRng(1);
    const picks: number[] = [];
    for (let i = 0; i < 9; i++) {
      const o = b.choose('h', 3, rng);
      picks.push(o);
      b.record('h', o);
    }
    expect(b.countsOf('h', 3)).toEqual([3, 3, 3]);
    // each block of three picks is a permutation of the three orbits
    for (let i = 0; i < 9; i += 3) expect(new Set(picks.slice(i, i + 3))).toEqual(new Set([0, 1, 2]));
    expect(b.coverage()).toEqual({ hashes: 1, orbits: 3, covered: 3 });
  });

  it('numbers orbits canonically: the same role gets the same number in every instance of a shape', () => {
    // two disjoint copies of a star: hub country, two city leaves (one orbit), one river leaf
    const nodes = [
      node('k1', 'country', 'A'), node('c1', 'city', 'B'), node('c2', 'city', 'C'), node('r1', 'river', 'D'),
      node('zz', 'country', 'E'), node('aa', 'city', 'F'), node('ab', 'city', 'G'), node('ac', 'river', 'H'),
    ];
    const edges = [
      ['c1', 'k1', 'located_in'], ['c2', 'k1', 'located_in'], ['r1', 'k1', 'flows_through'],
      ['aa', 'zz', 'located_in'], ['ab', 'zz', 'located_in'], ['ac', 'zz', 'flows_through'],
    ].map(([s, t, r], i) => ({ id: `e${i}`, source: s!, target: t!, relation: r!, meta: {} }));
    const index = buildIndex({ format: GRAPH_FORMAT, nodes, edges });
    const a = canonicalOrbits(index, { nodes: ['k1', 'c1', 'c2', 'r1'], edges: ['e0', 'e1', 'e2'] });
    const b = canonicalOrbits(index, { nodes: ['ac', 'ab', 'zz', 'aa'], edges: ['e5', 'e4', 'e3'] });
    expect(a).toHaveLength(3);
    const role = (orbs: string[][], g: Graph['nodes']) => orbs.map((o) => `${o.length}:${g.find((n) => n.id === o[0])!.type}`);
    expect(role(b, nodes)).toEqual(role(a, nodes));
  });
});

describe('verify and tighten', () => {
  // Two countries, each with two cities; the answer is Lima in Peru. The bare first query
  // "a city located in a country" fits all four cities, so the builder must tighten.
  const graph: Graph = {
    format: GRAPH_FORMAT,
    nodes: [
      node('peru', 'country', 'Peru', { population: { type: 'number', value: 34_000_000, unit: 'people' } }),
      node('chile', 'country', 'Chile', { population: { type: 'number', value: 19_000_000, unit: 'people' } }),
      node('lima', 'city', 'Lima', { founded: { type: 'date', value: '1535' } }),
      node('cusco', 'city', 'Cusco', { founded: { type: 'date', value: '1100' } }),
      node('santiago', 'city', 'Santiago', { founded: { type: 'date', value: '1541' } }),
      node('valpo', 'city', 'Valparaiso', { founded: { type: 'date', value: '1536' } }),
    ],
    edges: [
      { id: 'e1', source: 'lima', target: 'peru', relation: 'located_in', meta: {} },
      { id: 'e2', source: 'cusco', target: 'peru', relation: 'located_in', meta: {} },
      { id: 'e3', source: 'santiago', target: 'chile', relation: 'located_in', meta: {} },
      { id: 'e4', source: 'valpo', target: 'chile', relation: 'located_in', meta: {} },
    ],
  };
  const index = buildIndex(graph);
  const sub = { nodes: ['lima', 'peru'], edges: ['e1'] };
  const inst = makeInstance(index, { ...sub, hash: wlHash(index, sub), topology: topologyOf(index, sub) });

  it('starts ambiguous, tightens, and publishes only a query with one candidate: the answer', () => {
    let tightened = 0;
    for (let seed = 1; seed <= 20; seed++) {
      // nothing injected up front (maxConstraints 0), so the first query is the bare structure
      const ctx = makeContext(graph, resolveOptions({ count: 1, kinds: ['vague_time', 'numeric_range', 'partial_name'], maxConstraints: 0, anchorProb: 0, maxTighten: 6 }));
      const made = makeQa(ctx, inst, 'lima', 0, createRng(seed));
      expect(made.ok).toBe(true);
      if (!made.ok) continue;
      tightened += made.tighten;
      expect(made.tighten).toBeGreaterThanOrEqual(1); // the untightened query had 4 candidates
      expect(checkDataset(graph, [{ id: 'q', ...made.qa }]).rows[0]).toMatchObject({ candidates: 1, match: true });
      expect(mentionsAny(made.qa.question, ['Lima'])).toBe(false);
    }
    expect(tightened).toBeGreaterThanOrEqual(20);
  });

  it('rejects as ambiguous without tightening, and as no_usable_attrs when nothing can be added', () => {
    // no kinds at the start and no tightening allowed: "a city located in a country" is ambiguous
    const strict = makeContext(graph, resolveOptions({ count: 1, kinds: [], anchorProb: 0, maxTighten: 0 }));
    expect(makeQa(strict, inst, 'lima', 0, createRng(1))).toEqual({ ok: false, reason: 'ambiguous' });
    // only distractors allowed: naming Peru still leaves Lima and Cusco, and nothing else can be added
    const stuck = makeContext(graph, resolveOptions({ count: 1, kinds: ['distractor'], anchorProb: 0, maxTighten: 6 }));
    expect(makeQa(stuck, inst, 'lima', 0, createRng(1))).toEqual({ ok: false, reason: 'no_usable_attrs' });
  });
});

describe('synthesize on a small world', () => {
  const graph = fixtureGraph({ seed: 3, countries: 20 });
  const first = synthesize(graph, { count: 60, rng: 9, graphName: 'fixture' });

  it('publishes the requested count, every QA unique and verified on the whole graph', () => {
    const { qas, stats } = first;
    expect(qas).toHaveLength(60);
    expect(stats.published).toBe(60);
    expect(qas.map((q) => q.id)).toEqual(Array.from({ length: 60 }, (_, i) => `qa-${String(i + 1).padStart(6, '0')}`));
    const report = checkDataset(graph, qas);
    expect(report.ok).toBe(60);
    for (const qa of qas) {
      expect(qa.candidates).toBe(1);
      expect(mentionsAny(qa.question, [qa.answer, ...qa.aliases])).toBe(false);
      expect([1, 2, 3]).toContain(qa.level);
      expect(qa.query.answer).toBe('?a');
      expect(qa.support).toEqual(expect.arrayContaining(qa.subgraph.edges));
    }
    expect(new Set(qas.map((q) => q.question)).size).toBe(60);
  });

  it('covers every orbit of every published shape, and the answer is not always the hub', () => {
    const index = buildIndex(graph);
    const byHash = new Map<string, Set<number>>();
    const orbitCount = new Map<string, number>();
    for (const qa of first.qas) {
      const set = byHash.get(qa.wl_hash) ?? new Set();
      set.add(qa.orbit);
      byHash.set(qa.wl_hash, set);
      orbitCount.set(qa.wl_hash, canonicalOrbits(index, qa.subgraph).length);
    }
    for (const [hash, seen] of byHash) expect(seen.size).toBe(orbitCount.get(hash));
    expect(first.stats.orbit_coverage.covered).toBe(first.stats.orbit_coverage.orbits);
    // The hub share of one 60-QA run swings with the seed (22 to 32 of 60 over seeds 1-9, before and after the
    // realiser changed which random draws a run makes), so it is judged over three runs: 180 QAs.
    const runs = [first, synthesize(graph, { count: 60, rng: 1, graphName: 'fixture' }), synthesize(graph, { count: 60, rng: 2, graphName: 'fixture' })];
    let hubAnswers = 0;
    let answers = 0;
    for (const qa of runs.flatMap((r) => r.qas)) {
      const degree = (id: string) => qa.subgraph.edges.filter((e) => index.edge(e)!.source === id || index.edge(e)!.target === id).length;
      if (qa.subgraph.nodes.every((id) => degree(qa.answer_id) >= degree(id))) hubAnswers++;
      answers++;
    }
    expect(hubAnswers).toBeLessThan(answers / 2);
  });

  it('spreads over topologies and uses every obfuscation kind', () => {
    expect(Object.keys(first.stats.topologies).length).toBeGreaterThanOrEqual(4);
    const kinds = new Set(first.qas.flatMap((q) => q.obfuscations.map((o) => o.kind)));
    expect(kinds).toEqual(new Set(OBFUSCATION_KINDS));
    expect(first.qas.some((q) => q.distractors.length > 0)).toBe(true);
    expect(Object.keys(first.stats.levels).sort()).toEqual(['1', '2', '3']);
  });

  it('is reproducible from its seed and honours the chosen kinds', () => {
    const again = synthesize(graph, { count: 60, rng: 9, graphName: 'fixture' });
    expect(again.qas).toEqual(first.qas);
    const onlyTime = synthesize(graph, { count: 12, rng: 2, kinds: ['vague_time', 'partial_name'] });
    for (const qa of onlyTime.qas) for (const o of qa.obfuscations) expect(['vague_time', 'partial_name']).toContain(o.kind);
  });
});

describe('lookups: the quick preset curriculum', () => {
  const graph = fixtureGraph({ seed: 3, countries: 20 });
  const lookup = { kinds: [], anchorProb: 1, maxConstraints: 0, minEdges: 1, maxEdges: 1, graphName: 'fixture' };

  it('one shape per hash yields few 1-edge questions; perShape lifts that cap with other entities of the same shapes', () => {
    const capped = synthesize(graph, { ...lookup, count: 80, rng: 4 });
    const many = synthesize(graph, { ...lookup, count: 80, rng: 4, perShape: 1000 });
    expect(many.qas.length).toBeGreaterThan(capped.qas.length);
    expect(many.qas.length).toBeGreaterThan(new Set(many.qas.map((q) => q.wl_hash)).size * 2);
    expect(checkDataset(graph, many.qas).ok).toBe(many.qas.length);
    for (const qa of many.qas) {
      expect(qa.obfuscations).toEqual([]);
      expect(qa.subgraph.edges).toHaveLength(1);
      // the other end of the edge is named in the question: a lookup
      const named = qa.subgraph.nodes.find((id) => id !== qa.answer_id)!;
      expect(qa.question).toContain(graph.nodes.find((n) => n.id === named)!.name);
    }
    expect(new Set(many.qas.map((q) => `${q.subgraph.edges.join()}>${q.answer_id}`)).size).toBe(many.qas.length); // no fact asked twice
  });

  it('excludeEdges keeps a second split off the first one’s facts', () => {
    const train = synthesize(graph, { ...lookup, count: 40, rng: 4, perShape: 1000 });
    const used = datasetEdges(train.qas);
    const held = synthesize(graph, { ...lookup, count: 20, rng: 5, perShape: 1000, excludeEdges: used });
    expect(held.qas.length).toBeGreaterThan(0);
    for (const qa of held.qas) for (const e of qa.subgraph.edges) expect(used.has(e)).toBe(false);
    expect(held.stats.rejections.excluded_edge).toBeGreaterThan(0);
    expect(() => resolveOptions({ count: 1, perShape: 0 })).toThrow(/perShape/);
  });

  it('a split near the end of the graph’s facts still gets its count: a round that finds nothing samples wider', () => {
    // The held-out and RL sets of the quick preset are made after a large training set: most draws hit used or
    // excluded edges. Stopping at the first empty round left such sets at ~90% of what was asked, and failed them.
    const world = fixtureGraph();
    const many = { ...lookup, perShape: 100_000 };
    const facts = synthesize(world, { ...many, count: 1000, rng: 1 }).qas.length;
    const train = synthesize(world, { ...many, count: Math.floor(facts * 0.7), rng: 1 });
    const used = datasetEdges(train.qas);
    const left = synthesize(world, { ...many, count: 1000, rng: 2, excludeEdges: used }).qas.length;
    const ask = Math.floor(left * 0.9);
    const held = synthesize(world, { ...many, count: ask, rng: 2, excludeEdges: used });
    expect(held.qas).toHaveLength(ask);
    for (const qa of held.qas) for (const e of qa.subgraph.edges) expect(used.has(e)).toBe(false);
  });
});
