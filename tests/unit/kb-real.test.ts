// The one test on the real bundled KB. It keeps its cache in a fixed temp folder, so only the first
// run on a machine pays the build (a few seconds); later runs read the cache. Both times are logged.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Graph } from '../../main/lab/formats/index';
import { createKbIndex, KB_PACKAGES, kbCachePath, kbVersion, loadKnowledgeBase, readCachedKb, type KbIndex } from '../../main/lab/kb/index';
import { expandGraph } from '../../main/lab/kg/expand';
import { validateGraph } from '../../main/lab/kg/io';
import { graphStats } from '../../main/lab/kg/stats';

const home = join(tmpdir(), 'sailor-lab-test-kb');
const scratch = mkdtempSync(join(tmpdir(), 'sailor-kb-real-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let kb: Graph;
let index: KbIndex;
const messages: string[] = [];

beforeAll(async () => {
  const t0 = performance.now();
  kb = await loadKnowledgeBase({ home, onProgress: (_f, m) => messages.push(m) });
  const loadMs = performance.now() - t0;
  const cold = !messages.some((m) => m.includes('from cache'));
  console.info(`knowledge base ${cold ? 'built (cold)' : 'loaded from cache'} in ${Math.round(loadMs)} ms: ${kb.nodes.length} entities, ${kb.edges.length} relations`);
  index = createKbIndex(kb);
  edgeById = new Map(kb.edges.map((e) => [e.id, e]));
}, 120_000);

const edge = (id: string) => edgeById.get(id);
let edgeById: Map<string, Graph['edges'][number]>;

describe('bundled knowledge base', () => {
  it('is a valid sailor.graph/1 graph of tens of thousands of typed entities', () => {
    expect(() => validateGraph(kb, 'kb')).not.toThrow();
    const s = graphStats(kb);
    expect(s.nodes).toBeGreaterThan(30_000);
    expect(s.edges).toBeGreaterThan(40_000);
    expect(Object.keys(s.types).length).toBeGreaterThanOrEqual(20);
    for (const [type, min] of Object.entries({
      country: 190, city: 20_000, airport: 5000, person: 3000, river: 150, mountain: 80, battle: 50, chemical_element: 118, language: 300,
      currency: 200, time_zone: 300,
    })) {
      expect(s.types[type] ?? 0, type).toBeGreaterThanOrEqual(min);
    }
    for (const rel of ['capital_of', 'borders', 'located_in', 'official_language', 'uses_currency', 'used_currency', 'part_of_region', 'discovered_by', 'born_in', 'flows_through', 'serves_city', 'nationality', 'has_occupation'])
      expect(s.relations[rel] ?? 0, rel).toBeGreaterThan(0);
  });

  it('gives every node and edge its package, a kb:// address, and edges their evidence', () => {
    const packages = new Set<string>(KB_PACKAGES);
    // Collect offenders rather than expect() per item: 80k assertions would dominate the test time.
    const bad: string[] = [];
    for (const n of kb.nodes) {
      if (!packages.has(n.meta.source as string) || !String(n.meta.url).startsWith(`kb://${String(n.meta.source)}/`)) bad.push(n.id);
    }
    for (const e of kb.edges) {
      const evidence = e.meta.evidence;
      if (!packages.has(e.meta.source as string) || !String(e.meta.url).startsWith('kb://') || typeof evidence !== 'string' || evidence.length < 10) bad.push(e.id);
    }
    expect(bad.slice(0, 10)).toEqual([]);
  });

  it('has stable ids from source keys and the facts each package states', () => {
    expect(index.node('country:FRA')?.name).toBe('France');
    expect(index.node('country:FRA')?.attrs.population?.type).toBe('number');
    expect(edge('city:2988507>capital_of>country:FRA')).toBeDefined();
    expect(edge('element:1>discovered_by>person:wn10908153')?.meta.evidence).toContain('Henry Cavendish');
    expect(edge('person:wn10908153>nationality>country:GBR')).toBeDefined();
    expect(index.node('person:wn10969184')?.attrs).toMatchObject({ born: { type: 'date', value: '1847' }, died: { type: 'date', value: '1931' } });
    expect(edge('country:FRA>used_currency>currency:FRF')?.meta).toMatchObject({ from: '1960-01-01', to: '2002-02-17' });
    expect(edge('country:FRA>official_language>language:Q150')).toBeDefined();
    expect(edge('river:wn09208961>flows_through>country:CHE')).toBeDefined();
    expect(edge('airport:LFPG>serves_city>city:2988507')).toBeDefined();
    expect(index.node('airport:LFPG')?.attrs.elevation_m).toMatchObject({ type: 'number', unit: 'm' });
  });

  it('caches under cacheDir()/kb-<version>.json and rejects stale or torn caches', () => {
    const version = kbVersion();
    expect(version).toMatch(/^[0-9a-f]{12}$/);
    const path = kbCachePath(home);
    expect(path.endsWith(join('cache', `kb-${version}.json`))).toBe(true);
    expect(readCachedKb(path, version)?.nodes.length).toBe(kb.nodes.length);
    expect(readCachedKb(path, 'other-version')).toBeUndefined();
    const torn = join(scratch, 'torn.json');
    writeFileSync(torn, '{"format":"sailor.graph/1","nodes":[');
    expect(readCachedKb(torn, version)).toBeUndefined();
  });

  it('expands into a diverse, cyclic 400-edge graph, identically for the same rng', () => {
    const t0 = performance.now();
    const a = expandGraph(index, { rng: 7, maxEdges: 400 });
    const ms = performance.now() - t0;
    const b = expandGraph(index, { rng: 7, maxEdges: 400 });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const s = graphStats(a);
    console.info(`expansion to 400 edges: ${Math.round(ms)} ms, ${s.nodes} nodes, ${Object.keys(s.types).length} types, cycle rank ${s.cycle_rank}`);
    expect(s.edges).toBe(400);
    expect(s.components).toBe(1);
    expect(s.cycle_rank).toBeGreaterThan(0);
    expect(Object.keys(s.types).length).toBeGreaterThanOrEqual(5);
    for (const rng of [1, 2, 3]) {
      const other = graphStats(expandGraph(index, { rng, maxEdges: 400 }));
      expect(Object.keys(other.types).length, `rng ${rng}`).toBeGreaterThanOrEqual(5);
      expect(other.cycle_rank, `rng ${rng}`).toBeGreaterThan(0);
    }
    const seeded = expandGraph(index, { rng: 1, maxEdges: 50, seed: 'element:1' });
    expect(seeded.nodes[0]!.id).toBe('element:1');
  });
});
