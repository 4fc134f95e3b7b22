import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readQaDataset, readTrajectories } from '../../main/lab/agent/data';
import { demoGraph, demoQAs } from '../../main/lab/agent/demo';
import { runCli } from '../../main/lab/cli/index';
import { agentCommands } from '../../main/lab/cli/commands/agent';

const dir = mkdtempSync(join(tmpdir(), 'sailor-agent-cli-'));
const graph = join(dir, 'g.json');
const dataset = join(dir, 'd.jsonl');
writeFileSync(graph, JSON.stringify(demoGraph()));
writeFileSync(dataset, [JSON.stringify({ format: 'sailor.qa/1' }), ...demoQAs().map((q) => JSON.stringify(q))].join('\n') + '\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t) }, agentCommands);
  return { code, out, err };
}

describe('sailor env', () => {
  it('search --json prints the results per query', async () => {
    const r = await run('env', 'search', '--graph', graph, 'founded by Igor Khandros', '--json');
    expect(r.code).toBe(0);
    const v = JSON.parse(r.out) as { query: string; results: { title: string; url: string; snippet: string }[] }[];
    expect(v[0]!.query).toBe('founded by Igor Khandros');
    expect(v[0]!.results[0]).toEqual({ title: 'Igor Khandros', url: 'sim://Igor_Khandros', snippet: 'FormFactor was founded by Igor Khandros.' });
    expect(r.err).toMatch(/indexed 10 pages/);
  });

  it('search without --json prints the observation the agent would see', async () => {
    const r = await run('env', 'search', '--graph', graph, 'Kazan');
    expect(r.out).toMatch(/^A search for 'Kazan' found/);
  });

  it('visit --json prints evidence and summary; an unknown URL exits 1', async () => {
    const r = await run('env', 'visit', '--graph', graph, 'sim://formfactor', '--goal', 'inception', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)[0]).toMatchObject({ url: 'sim://formfactor', found: true, evidence: ['The inception of FormFactor is 1 April 1993.'] });
    const missing = await run('env', 'visit', '--graph', graph, 'sim://nowhere', '--goal', 'x');
    expect(missing.code).toBe(1);
    expect(missing.out).toContain('could not be accessed');
  });

  it('visit needs --goal (exit 2)', async () => {
    const r = await run('env', 'visit', '--graph', graph, 'sim://formfactor');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--goal is required');
  });
});

describe('sailor rollout / eval / rft', () => {
  it('rollout writes a header and one trajectory per attempt', async () => {
    const out = join(dir, 't.jsonl');
    const r = await run('rollout', '--graph', graph, '--dataset', dataset, '--policy', 'oracle', '--out', out, '--n', '2', '--rng', '5', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ trajectories: 6, 'reward/mean': 1, termination: { answer: 6 } });
    const header = JSON.parse(readFileSync(out, 'utf8').split('\n')[0]!);
    expect(header).toMatchObject({ format: 'sailor.traj/1', policy: 'oracle', n: 2, rng: 5 });
    const trajs = readTrajectories(out);
    expect(trajs.map((t) => t.id)).toEqual(['qa-demo-1/0', 'qa-demo-1/1', 'qa-demo-2/0', 'qa-demo-2/1', 'qa-demo-3/0', 'qa-demo-3/1']);
    // Reproducible: the same seed gives the same file.
    const again = join(dir, 't2.jsonl');
    await run('rollout', '--graph', graph, '--dataset', dataset, '--policy', 'oracle', '--out', again, '--n', '2', '--rng', '5');
    const strip = (p: string) => readTrajectories(p).map((t) => ({ ...t, elapsed_ms: 0 }));
    expect(strip(again)).toEqual(strip(out));
  });

  it('eval --json reports pass@k and behaviour, from a policy or from a trajectory file', async () => {
    const r = await run('eval', '--policy', 'oracle', '--graph', graph, '--dataset', dataset, '--k', '2', '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report).toMatchObject({ questions: 3, samples: 6, k: 2, 'pass@1': 1, 'pass@k': 1, 'avg@k': 1, 'cons@k': 1 });
    expect(report.all.tool_calls_by_type.search).toBeGreaterThan(0);
    // Two samples a question: the headroom curve at k = 1, 2 and its sentence (the oracle leaves none).
    expect(report.curve).toEqual([{ k: 1, passAtK: 1 }, { k: 2, passAtK: 1 }]);
    expect(report.headroom).toBe('sampled pass@1 1.00, pass@2 1.00: +0.00 of these questions solved in 2 samples and not in one, the room RL has to sharpen the sampled pass@1 (no bound on the greedy evaluation)');
    // pass@1 by hops and by level over the 3 questions; the expert's ceiling only with --expert.
    const rows = (b: { hops: Array<{ questions: number; passAt1: number; expert: number | null }> }) => b.hops;
    expect(rows(report.levels).reduce((a, r) => a + r.questions, 0)).toBe(3);
    for (const r of rows(report.levels)) expect(r).toMatchObject({ passAt1: 1, expert: null });
    const withExpert = JSON.parse((await run('eval', '--policy', 'oracle', '--graph', graph, '--dataset', dataset, '--expert', '--json')).out);
    for (const r of [...withExpert.levels.hops, ...withExpert.levels.level]) {
      expect(r.expert).toBeGreaterThanOrEqual(0);
      expect(r.expert).toBeLessThanOrEqual(1);
    }
    expect(withExpert.levels.level.reduce((a: number, r: { questions: number }) => a + r.questions, 0)).toBe(3);
    const fromFile = await run('eval', '--trajectories', join(dir, 't.jsonl'), '--k', '2', '--json');
    expect(JSON.parse(fromFile.out)['pass@1']).toBe(1);
  });

  it('eval prints the failure breakdown: from a policy, and from a trajectory file given its dataset', async () => {
    // The oracle solves every question: the line says so in words.
    const r = await run('eval', '--policy', 'oracle', '--graph', graph, '--dataset', dataset);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^episodes 3: solved 3$/m);
    const json = JSON.parse((await run('eval', '--trajectories', join(dir, 't.jsonl'), '--dataset', dataset, '--k', '2', '--json')).out);
    expect(json.failures).toMatchObject({ solved: 6, repetition_loop: 0, never_saw_answer: 0 });
    // Without the questions there is nothing to classify a wrong answer by: no breakdown.
    expect(JSON.parse((await run('eval', '--trajectories', join(dir, 't.jsonl'), '--json')).out).failures).toBeUndefined();
  });

  it('rft keeps what passes the filters and reports the rest', async () => {
    const out = join(dir, 'rft.jsonl');
    const r = await run('rft', '--graph', graph, '--dataset', dataset, '--out', out, '--attempts', '2', '--min-tool-calls', '3', '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report.attempts).toBe(6);
    expect(report.kept + Object.values(report.removed as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(6);
    expect(report.removed.too_few_tool_calls).toBe(2); // qa-demo-1 takes 3 calls: not more than 3
    expect(readTrajectories(out)).toHaveLength(report.kept);
  });

  it('a checkpoint that does not exist: exit 2 naming it (the working path is in train-run.test.ts)', async () => {
    const r = await run('eval', '--checkpoint', 'run-1/40', '--graph', graph, '--dataset', dataset, '--json');
    expect(r.code).toBe(2);
    expect(r.err).toContain("no run 'run-1'");
    const bad = await run('eval', '--checkpoint', 'not a ref', '--graph', graph, '--dataset', dataset, '--json');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('is not of the form <run>/<step>');
  });
});

describe('QA dataset reader', () => {
  const write = (name: string, lines: unknown[]) => {
    const p = join(dir, name);
    writeFileSync(p, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    return p;
  };

  it('names file, line and field of the first problem', async () => {
    const [a, b] = demoQAs();
    const bad = { ...b!, query: { ...b!.query, patterns: [{ s: '?a', o: 'n1' }] } };
    const p = write('bad.jsonl', [{ format: 'sailor.qa/1' }, a, bad]);
    expect(() => readQaDataset(p)).toThrow(`${p}:3: query.patterns[0].rel:`);
    const r = await run('rollout', '--graph', graph, '--dataset', p, '--policy', 'oracle', '--out', join(dir, 'x.jsonl'));
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${p}:3: query.patterns[0].rel:`);
  });

  it('checks the header format, duplicate ids and filter ops', () => {
    const [a] = demoQAs();
    expect(() => readQaDataset(write('h.jsonl', [{ format: 'sailor.qa/9' }, a]))).toThrow(/:1: format: expected format "sailor.qa\/1"/);
    const header = { format: 'sailor.qa/1' };
    expect(() => readQaDataset(write('dup.jsonl', [header, a, a]))).toThrow(/:3: id: duplicate QA id 'qa-demo-1'/);
    const op = { ...a!, query: { ...a!.query, filters: [{ var: '?a', attr: 'name', op: 'like', value: 'F' }] } };
    expect(() => readQaDataset(write('op.jsonl', [header, op]))).toThrow(/:2: query\.filters\[0\]\.op:/);
    expect(readQaDataset(write('ok.jsonl', [header, a])).qas).toHaveLength(1);
  });

  it('refuses a dataset without its header line: exit 2 naming file and line', async () => {
    const p = write('headless.jsonl', demoQAs());
    expect(() => readQaDataset(p)).toThrow(`${p}:1: format: expected the header line`);
    const r = await run('rollout', '--graph', graph, '--dataset', p, '--policy', 'oracle', '--out', join(dir, 'y.jsonl'));
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${p}:1: format: expected the header line {"format": "sailor.qa/1", …} first`);
  });
});
