import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../main/lab/cli/index';
import { fixtureGraph } from '../support/fixture-graph';
import { readDataset } from '../../main/lab/synth/dataset';
import { chatComplete, factsToKeep, phraseQuestion, qualifiersToKeep, type LlmConfig } from '../../main/lab/synth/phrase';

// A real OpenAI-compatible chat endpoint on 127.0.0.1: the model name picks the behaviour.
//   rephrase -> a faithful rewrite;  leak -> a rewrite naming the answer;  broken -> HTTP 500;
//   drop -> a rewrite that loses a quoted fragment;  slow -> answers after 2 s;
//   widen -> "the early 1990s" becomes "the 1990s";  verbose -> a padded rewrite.
let server: Server;
let baseUrl = '';
const seen: { auth?: string; body: { model: string; messages: { role: string; content: string }[] } }[] = [];

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString()));
    req.on('end', () => resolve(data));
  });
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end('not found');
      return;
    }
    const body = JSON.parse(await readBody(req)) as (typeof seen)[number]['body'];
    seen.push({ auth: req.headers.authorization, body });
    const reply = (content: string): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }));
    };
    const q = body.messages.at(-1)!.content;
    switch (body.model) {
      case 'rephrase':
        reply(`  "${q.replace('What is the name of the company', 'Which company')}"  `);
        break;
      case 'leak':
        reply('Which company, FormFactor of course, was founded in the early 1990s in Delaware?');
        break;
      case 'drop':
        reply('Which company was founded in the early 1990s in Delaware?');
        break;
      case 'widen':
        reply(q.replace('in the early 1990s', 'in the 1990s'));
        break;
      case 'verbose':
        reply(`${q.replace(/\?$/, '')}, a company you may well have heard of in the news, which many people have written about at length?`);
        break;
      case 'prefix':
        reply(`Here is a puzzle. ${q}`);
        break;
      case 'slow':
        setTimeout(() => reply(q), 2000);
        break;
      default:
        res.writeHead(500, { 'content-type': 'text/plain' }).end('model exploded');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const question = 'What is the name of the company that was founded in the early 1990s, that is incorporated in Delaware and whose name begins with "F"?';
const input = { question, answer: 'FormFactor', aliases: ['FormFactor, Inc.'], keep: ['Delaware'] };
const cfg = (model: string, extra: Partial<LlmConfig> = {}): LlmConfig => ({ baseUrl, model, ...extra });

describe('LLM phrasing against a real HTTP endpoint', () => {
  it('takes a faithful rewrite, sending the template prose and the API key', async () => {
    const r = await phraseQuestion(cfg('rephrase', { apiKey: 'sk-test' }), input);
    expect(r.outcome).toBe('rewritten');
    expect(r.question).toBe('Which company that was founded in the early 1990s, that is incorporated in Delaware and whose name begins with "F"?');
    const last = seen.at(-1)!;
    expect(last.auth).toBe('Bearer sk-test');
    expect(last.body.model).toBe('rephrase');
    expect(last.body.messages[0]!.role).toBe('system');
    expect(last.body.messages[1]).toEqual({ role: 'user', content: question });
    expect(JSON.stringify(last.body)).not.toContain('FormFactor'); // the answer is never sent
  });

  it('keeps the template prose when the rewrite names the answer', async () => {
    const r = await phraseQuestion(cfg('leak'), input);
    expect(r).toMatchObject({ outcome: 'leaked_answer', question });
    expect(r.detail).toContain('FormFactor');
  });

  it('keeps the template prose when the rewrite drops a fact', async () => {
    const r = await phraseQuestion(cfg('drop'), input);
    expect(r).toMatchObject({ outcome: 'changed_facts', question });
    expect(r.detail).toContain('"F"');
    expect(r.detail).toBe('dropped "F"'); // the "f" of "founded" does not count
    expect(factsToKeep(question, ['Delaware'])).toEqual(['"F"', '1990', 'Delaware']);
  });

  it('refuses a rewrite that widens a period or pads the question, keeping the template and saying why', async () => {
    const widened = await phraseQuestion(cfg('widen'), input);
    expect(widened).toEqual({ question, outcome: 'changed_facts', detail: 'dropped early' });
    const padded = await phraseQuestion(cfg('verbose'), input);
    expect(padded.outcome).toBe('too_long');
    expect(padded.question).toBe(question);
    expect(padded.detail).toBe('44 words for 25 (at most 30)');
    expect(qualifiersToKeep('A city founded in the mid-1790s, south of 19°N, behind UTC-05:00, in the late 5th century')).toEqual(['mid', 'late', '19°N', 'UTC-05:00']);
  });

  it('reports an HTTP 500 clearly and keeps the template prose', async () => {
    const r = await phraseQuestion(cfg('broken'), input);
    expect(r.outcome).toBe('error');
    expect(r.question).toBe(question);
    expect(r.detail).toBe(`LLM ${baseUrl}/chat/completions: HTTP 500 Internal Server Error: "model exploded"`);
    await expect(chatComplete(cfg('broken'), [{ role: 'user', content: 'x' }])).rejects.toThrow(/HTTP 500/);
  });

  it('times out, and names an unreachable endpoint', async () => {
    const slow = await phraseQuestion(cfg('slow', { timeoutMs: 200 }), input);
    expect(slow).toMatchObject({ outcome: 'error', question });
    expect(slow.detail).toMatch(/no answer within 200 ms/);
    const down = await phraseQuestion({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', timeoutMs: 2000 }, input);
    expect(down.outcome).toBe('error');
    expect(down.detail).toMatch(/^LLM http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions: request failed/);
  });
});

describe('sailor synth --llm-url', () => {
  it('rephrases every question through the endpoint, or keeps the template when it fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'synth-llm-'));
    try {
      const graph = join(dir, 'g.json');
      writeFileSync(graph, JSON.stringify(fixtureGraph({ seed: 2, countries: 12 })));
      const io = { stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) };
      const read = (path: string) => readFileSync(path, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

      const good = join(dir, 'good.jsonl');
      expect(await runCli(['synth', '--graph', graph, '--count', '8', '--out', good, '--llm-url', baseUrl, '--llm-model', 'prefix'], io)).toBe(0);
      const [header, ...qas] = read(good);
      expect(header!.phrasing).toEqual({ rewritten: 8 });
      for (const qa of qas) expect(qa.question).toMatch(/^Here is a puzzle\. /);

      const bad = join(dir, 'bad.jsonl');
      expect(await runCli(['synth', '--graph', graph, '--count', '8', '--out', bad, '--llm-url', baseUrl, '--llm-model', 'broken'], io)).toBe(0);
      const [header2, ...qas2] = read(bad);
      expect(header2!.phrasing).toEqual({ error: 8 });
      expect(io.stderr).toMatch(/HTTP 500 Internal Server Error: "model exploded"/);
      // same seed, same synthesis: the template prose is kept where the endpoint failed
      expect(qas2.map((q) => q.question)).toEqual(qas.map((q) => (q.question as string).replace(/^Here is a puzzle\. /, '')));
      // Each QA records what the rewrite did; a refusal keeps its reason, and the dataset reader keeps both.
      expect(readDataset(good).qas.map((q) => q.phrasing)).toEqual(qas.map(() => ({ outcome: 'rewritten' })));
      for (const q of readDataset(bad).qas) expect(q.phrasing).toEqual({ outcome: 'error', detail: expect.stringMatching(/HTTP 500/) });
      // A rewrite about another question drops this one's facts: refused, with what it dropped recorded.
      const off = join(dir, 'off.jsonl');
      expect(await runCli(['synth', '--graph', graph, '--count', '4', '--out', off, '--llm-url', baseUrl, '--llm-model', 'leak'], io)).toBe(0);
      for (const q of readDataset(off).qas) {
        expect(q.phrasing).toEqual({ outcome: 'changed_facts', detail: expect.stringMatching(/^dropped /) }); // what it dropped
        expect(q.question).not.toContain('FormFactor of course'); // the rule text was kept
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
