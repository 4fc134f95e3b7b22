// `kg build --kb wikidata:FILE` and `--kb rdf:FILE`: a Wikidata-shaped dump through the built-in wikidata
// mapping (labels, aliases, P31 types, dates and quantities with units come out typed), then `synth` and
// `sailor check` on the graph; and the errors a bad dump gets (file and line, or the truncation).
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../main/lab/cli/index';
import { loadMapping, openKbSource, parseKbSpec } from '../../main/lab/kbsource/index';
import { Mapper } from '../../main/lab/kbsource/mapping';
import { entityFacts } from '../../main/lab/kbsource/wikidata';
import { attrValue } from '../../main/lab/kbsource/source';
import { Prefixes, snakeLabel } from '../../main/lab/kbsource/terms';
import type { Graph } from '../../main/lab/formats/index';
import { wikidataDump, wikidataEntities } from '../support/wikidata-world';
import { worldTurtle } from '../support/rdf-world';

const dir = mkdtempSync(join(tmpdir(), 'sailor-kbsource-dumps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture(): { out(t: string): void; err(t: string): void; stdout: string; stderr: string } {
  const io = { stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) };
  return io;
}

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = capture();
  const code = await runCli(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('the pieces', () => {
  it('names types and relations in snake_case and maps prefixes both ways', () => {
    expect(snakeLabel('birthPlace')).toBe('birth_place');
    expect(snakeLabel('Q5')).toBe('q5');
    expect(snakeLabel('État souverain')).toBe('etat_souverain');
    expect(snakeLabel('2nd')).toBe('x_2nd');
    const p = new Prefixes({ wd: 'http://www.wikidata.org/entity/', wdt: 'http://www.wikidata.org/prop/direct/' });
    expect(p.compact('http://www.wikidata.org/entity/Q142')).toBe('wd:Q142');
    expect(p.expand('wdt:P31')).toBe('http://www.wikidata.org/prop/direct/P31');
    expect(p.expand('<http://x.org/a>')).toBe('http://x.org/a');
    expect(p.expand('nope:x')).toBeUndefined();
  });

  it('types a literal by the mapping, else by its datatype', () => {
    const attr = { kind: 'attribute' as const, name: 'a' };
    expect(attrValue({ value: '1867-11-07T00:00:00Z', datatype: 'http://www.w3.org/2001/XMLSchema#dateTime' }, attr, String)).toEqual({ type: 'date', value: '1867-11-07' });
    expect(attrValue({ value: '12.50', datatype: 'http://www.w3.org/2001/XMLSchema#decimal' }, { ...attr, unit: 'km' }, String)).toEqual({ type: 'number', value: 12.5, unit: 'km' });
    expect(attrValue({ value: '-0500' }, { ...attr, datatype: 'date' }, String)).toEqual({ type: 'string', value: '-0500' });
    expect(attrValue({ value: 'n/a' }, { ...attr, datatype: 'number' }, String)).toEqual({ type: 'string', value: 'n/a' });
  });

  it('refuses a mapping file naming the file and the field, and an unknown prefix naming the mapping', () => {
    const file = join(dir, 'bad-mapping.json');
    writeFileSync(file, JSON.stringify({ format: 'sailor.mapping/1', name: 'm', label: ['rdfs:label'], attributes: { 'ex:a': { datatype: 'money' } } }));
    expect(() => loadMapping(file)).toThrow(new RegExp(`^${file.replace(/[.]/g, '\\.')}: attributes\\.ex:a\\.datatype: `));
    writeFileSync(file, JSON.stringify({ format: 'sailor.mapping/1', name: 'm', label: ['rdfs:label'] }));
    expect(() => new Mapper(loadMapping(file))).toThrow("mapping m: label: 'rdfs:label' is neither an IRI nor a name with a known prefix");
    expect(loadMapping('wikidata').prefixes.wd).toBe('http://www.wikidata.org/entity/');
  });

  it('simplifies an entity to truthy facts: preferred over normal, deprecated dropped, units and precision kept', () => {
    const city = wikidataEntities(3).find((e) => (e.labels as { en: { value: string } }).en.value.endsWith('burg'))!;
    const facts = entityFacts(city as never, 'en');
    const pop = facts.filter((f) => f.p.endsWith('/P1082'));
    expect(pop).toHaveLength(1);
    expect(pop[0]!.o).toMatchObject({ datatype: 'http://www.w3.org/2001/XMLSchema#decimal' });
    expect(Number((pop[0]!.o as { value: string }).value)).toBeGreaterThan(1000);
    expect(facts.filter((f) => f.p.endsWith('/P17'))).toHaveLength(1); // the deprecated second country is gone
    expect(facts.find((f) => f.p.endsWith('/P2044'))!.o).toMatchObject({ unit: 'http://www.wikidata.org/entity/Q11573' });
    expect(facts.some((f) => 'lang' in f.o && f.o.lang === 'de')).toBe(false); // only the mapping's language is kept
  });
});

describe('kg build --kb wikidata:DUMP', () => {
  it('maps labels, aliases, P31 types, dates and quantities with units; synth then check verifies every question', { timeout: 600_000 }, async () => {
    const dump = join(dir, 'latest-all.json.gz');
    writeFileSync(dump, gzipSync(wikidataDump(wikidataEntities(8))));
    const g = join(dir, 'wd.json');
    const built = await cli(['kg', 'build', '--kb', `wikidata:${dump}`, '--seed', 'Q1000', '--max-edges', '120', '--rng', '5', '--out', g]);
    expect(built.code, built.stderr).toBe(0);
    const graph = JSON.parse(readFileSync(g, 'utf8')) as Graph;
    expect(graph.info!.kb).toMatchObject({ kind: 'wikidata', location: dump, mapping: 'wikidata', source: 'Wikidata', entities: 8 + 8 * 4 + 8 * 12 + 3 });
    expect(String((graph.info!.kb as { licence: string }).licence)).toMatch(/CC0/);
    const byType = (t: string) => graph.nodes.filter((n) => n.type === t);
    expect(byType('country').length).toBeGreaterThan(0);
    expect(byType('city').length).toBeGreaterThan(0);
    expect(byType('human').length).toBeGreaterThan(0);
    const country = graph.nodes.find((n) => n.id === 'wd:Q1000')!;
    expect(country.name).toBe('Arvelland');
    expect(country.aliases).toEqual(['Republic of Arvel']);
    expect(country.attrs).toMatchObject({
      population: { type: 'number', value: 1_000_000 },
      area: { type: 'number', value: 5000, unit: 'km2' },
      inception: { type: 'date', value: '1800' }, // year precision stays a year
      description: { type: 'string', value: 'country number 0' },
    });
    // Line 1 is '[', lines 2-4 the classes: Q1000 is on line 5; its in-links on the lines of the entities that name it.
    expect(country.meta.kb_query).toEqual([`${dump}:5`, expect.stringMatching(new RegExp(`^${dump.replace(/[.]/g, '\\.')}:\\d+(,\\d+)*$`))]);
    const city = byType('city')[0]!;
    expect(city.attrs.population).toMatchObject({ type: 'number' });
    expect((city.attrs.population as { value: number }).value).toBeGreaterThanOrEqual(50_000); // the preferred value
    expect(city.attrs.elevation).toMatchObject({ type: 'number', unit: 'm' });
    const human = byType('human')[0]!;
    expect(human.attrs.date_of_birth).toMatchObject({ type: 'date', value: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    expect(graph.edges.map((e) => e.relation)).toEqual(expect.arrayContaining(['country', 'place_of_birth', 'country_of_citizenship']));

    const qa = join(dir, 'wd.jsonl');
    const synth = await cli(['synth', '--graph', g, '--count', '30', '--rng', '1', '--out', qa]);
    expect(synth.code, synth.stderr).toBe(0);
    const check = await cli(['check', '--graph', g, qa, '--json']);
    const report = JSON.parse(check.stdout) as { ok: number; total: number };
    expect(report.total).toBe(30);
    expect(report.ok).toBe(30);
    expect(check.code).toBe(0);
  });

  it('names the file and line of a dump cut short, and writes no graph', { timeout: 120_000 }, async () => {
    const text = wikidataDump(wikidataEntities(2));
    const cut = join(dir, 'cut.json');
    writeFileSync(cut, text.slice(0, text.length - 200));
    const lines = text.slice(0, text.length - 200).split('\n').length;
    const out = join(dir, 'cut-graph.json');
    const r = await cli(['kg', 'build', '--kb', `wikidata:${cut}`, '--seed', 'Q1000', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${cut}:${lines}: not a whole JSON entity`);
    expect(existsSync(out)).toBe(false);
    const gz = join(dir, 'cut.json.gz');
    const zipped = gzipSync(text);
    writeFileSync(gz, zipped.subarray(0, zipped.length - 40));
    await expect(openKbSource(parseKbSpec(`wikidata:${gz}`))).rejects.toThrow(new RegExp(`^${gz.replace(/[.]/g, '\\.')}:\\d+: the gzip stream ends early: the dump is truncated`));
  });
});

describe('kg build --kb rdf:FILE', () => {
  it('names the file and line of malformed Turtle', { timeout: 120_000 }, async () => {
    const bad = join(dir, 'bad.ttl');
    const good = worldTurtle(20).split('\n');
    good.splice(5, 0, 'ex:e1 rdfs:label "unterminated .');
    writeFileSync(bad, good.join('\n'));
    const out = join(dir, 'bad-graph.json');
    const r = await cli(['kg', 'build', '--kb', `rdf:${bad}`, '--seed', 'http://example.org/e1', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`${bad.replace(/[.]/g, '\\.')}:6: malformed Turtle: `));
    expect(existsSync(out)).toBe(false);
  });

  it('reads N-Quads (graph names dropped) and gzipped dumps, and refuses an unknown extension or seed', { timeout: 120_000 }, async () => {
    const nq = join(dir, 'w.nq.gz');
    const lines = ['<http://x.org/a> <http://www.w3.org/2000/01/rdf-schema#label> "A" <http://g/1> .', '<http://x.org/b> <http://www.w3.org/2000/01/rdf-schema#label> "B" <http://g/2> .', '<http://x.org/a> <http://x.org/knows> <http://x.org/b> <http://g/1> .', '<http://x.org/a> <http://x.org/knows> <http://x.org/b> <http://g/2> .', '<http://x.org/a> <http://x.org/age> "41"^^<http://www.w3.org/2001/XMLSchema#integer> <http://g/1> .'];
    writeFileSync(nq, gzipSync(lines.join('\n') + '\n'));
    const out = join(dir, 'nq.json');
    const r = await cli(['kg', 'build', '--kb', `rdf:${nq}`, '--seed', '<http://x.org/a>', '--max-edges', '10', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const graph = JSON.parse(readFileSync(out, 'utf8')) as Graph;
    expect(graph.edges).toHaveLength(1); // the same fact in two graphs is one edge
    expect(graph.edges[0]).toMatchObject({ source: 'http://x.org/a', target: 'http://x.org/b', relation: 'knows' });
    expect(graph.nodes.find((n) => n.id === 'http://x.org/a')!.attrs.age).toEqual({ type: 'number', value: 41 });
    writeFileSync(join(dir, 'w.xml'), '<rdf:RDF/>');
    expect((await cli(['kg', 'build', '--kb', `rdf:${join(dir, 'w.xml')}`, '--seed', 'x', '--out', out])).stderr).toMatch(/name the format by the extension/);
    expect((await cli(['kg', 'build', '--kb', `rdf:${nq}`, '--seed', '<http://x.org/zzz>', '--out', out])).stderr).toMatch(/seed 'http:\/\/x\.org\/zzz' is not an entity of the knowledge base/);
  });

  it("records the dump's own licence and title, and --license/--source over them, as info.kb says and the Graph view shows", { timeout: 120_000 }, async () => {
    const ttl = join(dir, 'licensed.ttl');
    const head = '@prefix dct: <http://purl.org/dc/terms/> .\n<http://example.org/dataset> dct:license <https://creativecommons.org/licenses/by/4.0/> ; dct:title "Example world" .\n';
    writeFileSync(ttl, head + worldTurtle(30));
    const out = join(dir, 'licensed.json');
    const kbOf = async (extra: string[]): Promise<Record<string, unknown>> => {
      const r = await cli(['kg', 'build', '--kb', `rdf:${ttl}`, '--seed', 'http://example.org/e7', '--max-edges', '20', '--out', out, ...extra]);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(readFileSync(out, 'utf8')) as Graph).info!.kb as Record<string, unknown>;
    };
    expect(await kbOf([])).toMatchObject({ source: 'Example world', licence: 'https://creativecommons.org/licenses/by/4.0/', licence_from: 'dump' });
    expect(await kbOf(['--license', 'CC-BY-SA-4.0', '--source', 'My lab'])).toMatchObject({ source: 'My lab', licence: 'CC-BY-SA-4.0', licence_from: 'option' });
    // A dump that states nothing keeps the mapping's (the generic mapping states none; Wikidata's says CC0).
    writeFileSync(ttl, worldTurtle(30));
    const plain = await kbOf([]);
    expect(plain).toMatchObject({ source: 'rdf' });
    expect(plain.licence).toBeUndefined();
    const graph = JSON.parse(readFileSync(out, 'utf8')) as Graph;
    expect(graph.nodes.every((n) => n.meta.source === 'rdf')).toBe(true);
  });
});
