import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../main/lab/cli/index';
import type { CliIO } from '../../main/lab/cli/command';
import { fixtureGraph } from '../support/fixture-graph';
import { QA_FORMAT } from '../../main/lab/formats';

function capture(): CliIO & { stdout: string; stderr: string } {
  const io = { stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) };
  return io;
}

let dir = '';
let graphPath = '';
let dataPath = '';
let lines: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'synth-cli-'));
  graphPath = join(dir, 'g.json');
  dataPath = join(dir, 'd.jsonl');
  writeFileSync(graphPath, JSON.stringify(fixtureGraph({ seed: 4, countries: 16 })));
  const io = capture();
  const code = await runCli(['synth', '--graph', graphPath, '--count', '30', '--rng', '3', '--out', dataPath, '--json'], io);
  expect(io.stderr).toContain('synth: 30/30 QAs');
  expect(code).toBe(0);
  lines = readFileSync(dataPath, 'utf8').trimEnd().split('\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a variant of the dataset with line `n` (1-based) replaced, and returns its path. */
function variant(name: string, n: number, edit: (record: Record<string, unknown>) => unknown): string {
  const copy = [...lines];
  copy[n - 1] = JSON.stringify(edit(JSON.parse(copy[n - 1]!) as Record<string, unknown>));
  const path = join(dir, name);
  writeFileSync(path, copy.join('\n') + '\n');
  return path;
}

describe('sailor synth', () => {
  it('writes a header line with the run, then one QA per line with sequential ids', () => {
    expect(lines).toHaveLength(31);
    const header = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(header).toMatchObject({ format: QA_FORMAT, graph: 'g.json', rng: 3, counts: { requested: 30, published: 30 } });
    for (const key of ['options', 'rejections', 'topologies', 'kinds', 'levels', 'orbit_coverage']) expect(header).toHaveProperty(key);
    expect((JSON.parse(lines[1]!) as { id: string }).id).toBe('qa-000001');
    expect((JSON.parse(lines[30]!) as { id: string }).id).toBe('qa-000030');
  });

  it('exits 2 on bad options before doing any work', async () => {
    const cases: [string[], RegExp][] = [
      [['synth', '--graph', graphPath, '--count', '0', '--out', dataPath], /--count: must be at least 1/],
      [['synth', '--graph', graphPath, '--out', dataPath, '--min-edges', '60'], /--min-edges: must be at most 50/],
      [['synth', '--graph', graphPath, '--count', '5', '--out', dataPath, '--kinds', 'vague_time,bogus'], /--kinds: unknown kind 'bogus'/],
      [['synth', '--graph', graphPath, '--count', '5', '--out', dataPath, '--probs', 'distractor=2'], /--probs: distractor needs a probability in \[0, 1\], got '2'/],
      [['synth', '--graph', join(dir, 'missing.json'), '--count', '5', '--out', dataPath], /missing\.json: no such file/],
    ];
    for (const [argv, message] of cases) {
      const io = capture();
      expect(await runCli(argv, io)).toBe(2);
      expect(io.stderr).toMatch(message);
    }
  });

  it('--exclude keeps a held-out split off the training edges, and refuses a dataset of another graph', async () => {
    const heldPath = join(dir, 'held.jsonl');
    const io = capture();
    expect(await runCli(['synth', '--graph', graphPath, '--count', '10', '--rng', '4', '--out', heldPath, '--exclude', dataPath], io)).toBe(0);
    const edgesOf = (path: string) => readFileSync(path, 'utf8').trimEnd().split('\n').slice(1).flatMap((l) => (JSON.parse(l) as { subgraph: { edges: string[] } }).subgraph.edges);
    const trainEdges = new Set(edgesOf(dataPath));
    expect(edgesOf(heldPath).filter((e) => trainEdges.has(e))).toEqual([]);

    const otherGraph = join(dir, 'other.json');
    writeFileSync(otherGraph, JSON.stringify({ ...fixtureGraph({ seed: 4, countries: 16 }), edges: [] }));
    const other = capture();
    const otherOut = join(dir, 'other.jsonl');
    expect(await runCli(['synth', '--graph', otherGraph, '--count', '1', '--out', otherOut, '--exclude', dataPath], other)).toBe(2);
    expect(other.stderr).toMatch(/--exclude .*d\.jsonl .*shares no edge with the graph/);
    expect(() => readFileSync(otherOut)).toThrow();
  });
});

describe('sailor check', () => {
  it('finds exactly one candidate, the answer, for every QA and exits 0', async () => {
    const io = capture();
    expect(await runCli(['check', '--graph', graphPath, dataPath, '--json'], io)).toBe(0);
    const report = JSON.parse(io.stdout) as { total: number; ok: number; rows: { candidates: number; match: boolean }[] };
    expect(report.total).toBe(30);
    expect(report.ok).toBe(30);
    expect(report.rows.every((r) => r.candidates === 1 && r.match)).toBe(true);
  });

  it('exits 1 and reports the QA when a query no longer pins its answer', async () => {
    const loose = variant('loose.jsonl', 2, (qa) => {
      const q = qa.query as { filters: unknown[]; patterns: unknown[] };
      return { ...qa, query: { ...q, patterns: [], filters: [] } };
    });
    const io = capture();
    expect(await runCli(['check', '--graph', graphPath, loose], io)).toBe(1);
    expect(io.stdout).toMatch(/^qa-000001: \d+ candidate\(s\) \[.*\], expected \S+$/m);
    expect(io.stdout).toMatch(/29\/30 ok \(1 ambiguous/);
    const wrong = variant('wrong.jsonl', 3, (qa) => ({ ...qa, answer_id: 'n1' }));
    const io2 = capture();
    expect(await runCli(['check', '--graph', graphPath, wrong, '--json'], io2)).toBe(1);
    expect((JSON.parse(io2.stdout) as { mismatched: number }).mismatched).toBe(1);
  });

  it('exits 2 on a malformed dataset, naming file, line and field', async () => {
    const cases: [string, RegExp][] = [
      [
        variant('rel.jsonl', 7, (qa) => ({ ...qa, query: { ...(qa.query as object), patterns: [{ s: '?a', rel: 5, o: '?b' }] } })),
        /rel\.jsonl:7: query\.patterns\[0\]\.rel: expected a string, got number 5/,
      ],
      [variant('op.jsonl', 4, (qa) => ({ ...qa, query: { ...(qa.query as object), filters: [{ var: '?a', attr: 'x', op: 'near', value: 1 }] } })), /op\.jsonl:4: query\.filters\[0\]\.op: expected one of eq, lt, gt, between, prefix, contains/],
      [variant('between.jsonl', 5, (qa) => ({ ...qa, query: { ...(qa.query as object), filters: [{ var: '?a', attr: 'x', op: 'between', value: [9, 1] }] } })), /between\.jsonl:5: query\.filters\[0\]\.value: expected lo <= hi, got \[9, 1\]/],
      [variant('answer.jsonl', 6, (qa) => ({ ...qa, answer_id: undefined })), /answer\.jsonl:6: answer_id: expected a string, got nothing \(the field is missing\)$/m],
      [variant('var.jsonl', 8, (qa) => ({ ...qa, query: { ...(qa.query as object), answer: 'a' } })), /var\.jsonl:8: query\.answer: expected a variable starting with '\?'/],
      [variant('header.jsonl', 1, () => ({ format: 'sailor.qa/0' })), /header\.jsonl:1: format: expected format "sailor\.qa\/1", got "sailor\.qa\/0"/],
      [variant('dup.jsonl', 3, (qa) => ({ ...qa, id: 'qa-000001' })), /dup\.jsonl:3: id: duplicate QA id 'qa-000001'/],
    ];
    const headless = join(dir, 'headless.jsonl');
    writeFileSync(headless, lines.slice(1).join('\n') + '\n');
    cases.push([headless, /headless\.jsonl:1: format: expected the header line \{"format": "sailor\.qa\/1", …\} first/]);
    const broken = join(dir, 'broken.jsonl');
    writeFileSync(broken, [lines[0], lines[1], '{"id": ', lines[2]].join('\n') + '\n');
    cases.push([broken, /broken\.jsonl:3: not valid JSON/]);
    for (const [path, message] of cases) {
      const io = capture();
      expect(await runCli(['check', '--graph', graphPath, path], io)).toBe(2);
      expect(io.stderr).toMatch(message);
    }
  });
});
