import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LabError } from '../../main/lab/base/errors';
import type { Graph } from '../../main/lab/formats/index';
import { createKbIndex } from '../../main/lab/kb/kb-index';
import { chooseSeed, expandGraph, seedCandidates } from '../../main/lab/kg/expand';
import { writeGraphFile } from '../../main/lab/kg/io';
import { graphStats } from '../../main/lab/kg/stats';
import { createRng } from '../../main/lab/util/rng';

const dir = mkdtempSync(join(tmpdir(), 'sailor-kg-expand-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A tiny KB in the shape the real one has: every node and edge with source, url and evidence. */
function kb(nodes: string[], edges: [string, string, string][]): Graph {
  return {
    format: 'sailor.graph/1',
    nodes: nodes.map((s) => {
      const [id, type] = s.split('=') as [string, string];
      return {
        id,
        type,
        name: id.toUpperCase(),
        aliases: [],
        attrs: { size: { type: 'number', value: id.length, unit: 'chars' }, label: { type: 'string', value: id } },
        meta: { source: 'test-kb', url: `kb://test-kb/${id}` },
      };
    }),
    edges: edges.map(([source, relation, target]) => ({
      id: `${source}>${relation}>${target}`,
      source,
      target,
      relation,
      meta: { source: 'test-kb', url: `kb://test-kb/${source}`, evidence: `${source} ${relation} ${target}` },
    })),
  };
}

// Two countries sharing a language and a river, a capital, a person, a mountain, a chain of cities.
const world = kb(
  ['fr=country', 'de=country', 'paris=city', 'lyon=city', 'bonn=city', 'curie=person', 'fr_lang=language', 'rhine=river', 'alps=mountain', 'pole=country'],
  [
    ['curie', 'nationality', 'fr'],
    ['curie', 'born_in', 'paris'],
    ['paris', 'located_in', 'fr'],
    ['paris', 'capital_of', 'fr'],
    ['lyon', 'located_in', 'fr'],
    ['bonn', 'located_in', 'de'],
    ['de', 'borders', 'fr'],
    ['de', 'borders', 'pole'],
    ['fr', 'official_language', 'fr_lang'],
    ['rhine', 'flows_through', 'fr'],
    ['rhine', 'flows_through', 'de'],
    ['alps', 'located_in', 'fr'],
    ['alps', 'located_in', 'de'],
  ],
);

describe('expandGraph', () => {
  it('is deterministic: same seed and options give byte-identical files', () => {
    const index = createKbIndex(world);
    const a = join(dir, 'a.json');
    const b = join(dir, 'b.json');
    writeGraphFile(a, expandGraph(index, { rng: 5, maxEdges: 8 }));
    writeGraphFile(b, expandGraph(createKbIndex(world), { rng: 5, maxEdges: 8 }));
    expect(readFileSync(a)).toEqual(readFileSync(b));
    const outputs = new Set([1, 2, 3, 4, 6, 7].map((rng) => JSON.stringify(expandGraph(index, { rng, maxEdges: 8 }))));
    expect(outputs.size).toBeGreaterThan(1); // and the rng does matter
  });

  it('stops at the edge budget and keeps process metadata on every node and edge', () => {
    const g = expandGraph(createKbIndex(world), { rng: 3, maxEdges: 7, seed: 'curie' });
    expect(g.edges).toHaveLength(7);
    expect(g.info).toMatchObject({ seed: 'curie', rng: 3, max_edges: 7, stop_reason: 'max_edges' });
    expect(g.nodes[0]!.id).toBe('curie');
    expect(g.nodes[0]!.meta).toMatchObject({ found_at_step: 0, found_from: null, query: 'seed', source: 'test-kb' });
    const ids = new Set(g.nodes.map((n) => n.id));
    for (const n of g.nodes) {
      expect(n.meta).toMatchObject({ source: 'test-kb', url: `kb://test-kb/${n.id}` });
      expect(typeof n.meta.found_at_step).toBe('number');
      expect(n.meta.seen as number).toBeGreaterThanOrEqual(1);
      expect(typeof n.meta.evidence).toBe('string');
      expect(n.attrs).toEqual(world.nodes.find((k) => k.id === n.id)!.attrs); // facts gathered
      if (n.id !== 'curie') expect(ids.has(n.meta.found_from as string)).toBe(true);
    }
    for (const e of g.edges) {
      expect(ids.has(e.source) && ids.has(e.target)).toBe(true);
      expect(e.meta).toMatchObject({ source: 'test-kb', evidence: `${e.source} ${e.relation} ${e.target}` });
      expect(typeof e.meta.url).toBe('string');
      expect(typeof e.meta.closes_cycle).toBe('boolean');
      expect(typeof e.meta.found_at_step).toBe('number');
      expect(ids.has(e.meta.found_from as string)).toBe(true);
      expect(e.meta.seen as number).toBeGreaterThanOrEqual(1);
    }
  });

  it('closes cycles: a ring KB is rebuilt as the ring, the last edge marked closes_cycle', () => {
    const n = 8;
    const ring = kb(
      Array.from({ length: n }, (_, i) => `r${i}=station`),
      Array.from({ length: n }, (_, i) => [`r${i}`, 'next', `r${(i + 1) % n}`] as [string, string, string]),
    );
    for (const rng of [1, 2, 3]) {
      const g = expandGraph(createKbIndex(ring), { rng, maxEdges: n, seed: 'r0' });
      expect(graphStats(g)).toMatchObject({ nodes: n, edges: n, components: 1, cycle_rank: 1 });
      expect(g.edges.filter((e) => e.meta.closes_cycle)).toHaveLength(1);
      expect(g.edges.at(-1)!.meta.closes_cycle).toBe(true);
    }
  });

  it('every cycle comes from a closing edge: closes_cycle count equals the cycle rank', () => {
    for (const rng of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const g = expandGraph(createKbIndex(world), { rng, maxEdges: 13 });
      const s = graphStats(g);
      expect(s.components).toBe(1);
      expect(g.edges.filter((e) => e.meta.closes_cycle).length).toBe(s.cycle_rank);
    }
  });

  it('prefers adding a KB edge between two entities already in the graph', () => {
    // s is linked to u and v, which are linked to each other, and to eight leaves.
    const leaves = Array.from({ length: 8 }, (_, i) => `leaf${i}`);
    const g = kb(['s=hub', 'u=thing', 'v=thing', ...leaves.map((l) => `${l}=thing`)], [
      ['s', 'has', 'u'],
      ['s', 'has', 'v'],
      ['u', 'knows', 'v'],
      ...leaves.map((l) => ['s', 'has', l] as [string, string, string]),
    ]);
    const index = createKbIndex(g);
    const triangles = (cycleBonus: number): number =>
      Array.from({ length: 40 }, (_, rng) => expandGraph(index, { rng, seed: 's', maxEdges: 4, cycleBonus, expandProb: 0 })).filter(
        (out) => graphStats(out).cycle_rank > 0,
      ).length;
    const withBonus = triangles(4);
    expect(withBonus).toBeGreaterThan(triangles(0));
    // Whenever u and v are both in, the u-v edge is there (closed at once, within the budget).
    for (let rng = 0; rng < 20; rng++) {
      const out = expandGraph(index, { rng, seed: 's', maxEdges: 5 });
      const ids = new Set(out.nodes.map((x) => x.id));
      if (ids.has('u') && ids.has('v') && out.edges.length < 5) expect(out.edges.some((e) => e.relation === 'knows')).toBe(true);
    }
  });

  it('stops when the KB component is exhausted', () => {
    const g = expandGraph(createKbIndex(world), { rng: 1, maxEdges: 1000 });
    expect(g.edges).toHaveLength(world.edges.length);
    expect(g.info?.stop_reason).toBe('exhausted');
  });

  it('rejects unknown or isolated seeds and bad options with clear messages', () => {
    const index = createKbIndex(kb(['a=x', 'b=x', 'lonely=x'], [['a', 'r', 'b']]));
    expect(() => expandGraph(index, { rng: 1, maxEdges: 3, seed: 'zzz' })).toThrow(/seed 'zzz' is not an entity of the knowledge base/);
    expect(() => expandGraph(index, { rng: 1, maxEdges: 3, seed: 'x:lonely' })).toThrow(/did you mean lonely \(LONELY\)/);
    expect(() => expandGraph(index, { rng: 1, maxEdges: 3, seed: 'lonely' })).toThrow(/has no relations/);
    expect(() => expandGraph(index, { rng: 1, maxEdges: 0 })).toThrow(LabError);
    expect(() => expandGraph(index, { rng: 1, maxEdges: 3, seed: 'a', expandProb: 1.5 })).toThrow(/expandProb/);
  });
});

describe('seed choice', () => {
  it('picks rare entities: 2-4 relations, two neighbour types, main component', () => {
    const index = createKbIndex(world);
    const candidates = seedCandidates(index);
    // fr is a hub; rhine has 2 relations but both reach countries: no variety to branch into.
    expect(candidates).toEqual(['paris', 'curie']);
    for (const id of candidates) {
      expect(index.degree(id)).toBeGreaterThanOrEqual(2);
      expect(index.degree(id)).toBeLessThanOrEqual(4);
    }
    const picks = new Set(Array.from({ length: 20 }, (_, i) => chooseSeed(index, createRng(i))));
    for (const p of picks) expect(candidates).toContain(p);
  });
});
