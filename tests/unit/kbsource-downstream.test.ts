// Everything downstream of an imported knowledge base (issue #48, item 5), through the CLI on real files (in this
// process; the training run in a child, as a user runs it): a dump
// in the shape of Wikidata's truthy N-Triples (gzipped) becomes a graph with the wikidata mapping, whose
// licence is the dump's own; synth makes questions and `check` verifies them; the simulated web serves the
// entities' pages; the expert answers on it; and a few steps of `sailor train` run to the end on it.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Graph } from '../../main/lab/formats/index';
import { runCli } from '../../main/lab/cli/index';
import { sailor } from '../support/cli-helpers';
import { TINY_RUN } from '../support/tiny-run';
import { wdIri, wikidataClassTriples, wikidataEntityTriples } from '../support/wikidata-truthy';

const dir = mkdtempSync(join(tmpdir(), 'sailor-kb-downstream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { ...process.env, SAILOR_HOME: join(dir, 'home') };

/** `sailor ARGS` in this process (no store involved), expected to succeed; its stdout. */
async function ok(args: string[]): Promise<string> {
  const io = { stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) };
  const code = await runCli(args, io);
  expect(code, `sailor ${args.join(' ')}\n${io.stderr}`).toBe(0);
  return io.stdout;
}

describe('a graph from a Wikidata-shaped RDF dump', () => {
  it('goes through synth, check, the simulated web, the expert and a short training run', { timeout: 1_200_000 }, async () => {
    const size = 900;
    const lines = [...wikidataClassTriples()];
    for (let i = 0; i < size; i++) lines.push(...wikidataEntityTriples(i, size));
    const dump = join(dir, 'latest-truthy.nt.gz');
    writeFileSync(dump, gzipSync(lines.join('\n') + '\n'));
    const g = join(dir, 'g.json');
    const seed = wdIri(3).replace('http://www.wikidata.org/entity/', ''); // a country, as a bare Q-id
    await ok(['kg', 'build', '--kb', `rdf:${dump}`, '--mapping', 'wikidata', '--seed', seed, '--max-edges', '300', '--rng', '7', '--out', g]);
    const graph = JSON.parse(readFileSync(g, 'utf8')) as Graph;
    expect(graph.edges.length).toBeGreaterThanOrEqual(200);
    // The licence the dump states (wikibase:Dump cc:license), recorded for the UI; the source from the mapping.
    expect(graph.info!.kb).toMatchObject({ kind: 'rdf', mapping: 'wikidata', source: 'Wikidata', licence: 'http://creativecommons.org/publicdomain/zero/1.0/', licence_from: 'dump', triples: lines.length });
    // The occupations (wdt:P106 objects, labelled classes with no P31 of their own) are of the default type.
    expect(new Set(graph.nodes.map((n) => n.type))).toEqual(new Set(['human', 'city', 'country', 'business', 'entity']));
    expect(graph.nodes.filter((n) => n.type === 'entity').every((n) => ['politician', 'writer', 'actor', 'painter', 'scientist', 'association football player'].includes(n.name))).toBe(true);
    const country = graph.nodes.find((n) => n.id === `wd:${seed}`)!;
    expect(country.attrs).toMatchObject({ population: { type: 'number' }, inception: { type: 'date' } });

    const train = join(dir, 'train.jsonl');
    const held = join(dir, 'held.jsonl');
    await ok(['synth', '--graph', g, '--count', '16', '--rng', '1', '--out', train]);
    await ok(['synth', '--graph', g, '--count', '6', '--rng', '2', '--out', held, '--exclude', train]);
    const check = JSON.parse(await ok(['check', '--graph', g, train, '--json'])) as { ok: number; total: number };
    expect(check).toMatchObject({ ok: 16, total: 16 });

    // The simulated web: the country's page is found by its name and shows its facts.
    const found = JSON.parse(await ok(['env', 'search', '--graph', g, country.name, '--json'])) as { results: { title: string; url: string }[] }[];
    const hit = found[0]!.results.find((r) => r.title.includes(country.name));
    expect(hit, JSON.stringify(found[0]!.results.slice(0, 3))).toBeDefined();
    const visited = JSON.parse(await ok(['env', 'visit', '--graph', g, hit!.url, '--goal', `population of ${country.name}`, '--json'])) as { found: boolean; evidence: string[] }[];
    expect(visited[0]!.found).toBe(true);
    expect(visited[0]!.evidence.join(' ')).toMatch(/population/i);

    // The expert plays the questions on the simulated web: it solves them.
    const expert = JSON.parse(await ok(['eval', '--policy', 'oracle', '--graph', g, '--dataset', train, '--json'])) as { questions: number; 'pass@1': number };
    expect(expert.questions).toBe(16);
    expect(expert['pass@1']).toBeGreaterThanOrEqual(0.75);

    // A few SFT steps on the expert's demonstrations, with an evaluation on the held-out questions, to the end.
    const steps = 3;
    writeFileSync(
      join(dir, 'run.json'),
      JSON.stringify({ ...TINY_RUN, data: { graphFile: 'g.json', datasetFile: 'train.jsonl', heldOutFile: 'held.jsonl' }, sft: { steps, batchSize: 2, warmupSteps: 1 }, eval: { every: steps, questions: 2 }, checkpoint: { every: steps } }),
    );
    // In a child process, as a user runs it, with a data directory of its own.
    const trained = sailor(['train', '--config', join(dir, 'run.json'), '--json'], env, 1_000_000);
    expect(trained.status, trained.stderr).toBe(0);
    const run = JSON.parse(trained.stdout) as { status: string; lastStep: number };
    expect(run).toMatchObject({ status: 'finished', lastStep: steps });
  });
});
