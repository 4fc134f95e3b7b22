// The tool layer against real node:http servers on 127.0.0.1: slow answers, 500s, malformed JSON, a server
// that never answers, 404s. Timeouts are short (100-300 ms) so the whole file runs in about a second.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoGraph } from '../../main/lab/agent/demo';
import { httpToolset, simToolset } from '../../main/lab/agent/env';
import { runEpisode } from '../../main/lab/agent/runtime';
import {
  type Clock,
  LruCache,
  ManagedTool,
  TokenBucket,
  ToolError,
  backoffDelay,
  canonicalJson,
  chatFn,
  chatPolicy,
  chatTool,
  httpPageSource,
  httpSearchSource,
} from '../../main/lab/agent/tools';
import { SimWeb } from '../../main/lab/agent/web';

let server: Server;
let base = '';
const hits = new Map<string, number>();
const chatBodies: unknown[] = [];
const chatReplies: string[] = [];

function hit(key: string): number {
  const n = (hits.get(key) ?? 0) + 1;
  hits.set(key, n);
  return n;
}

const results = (q: string) => JSON.stringify({ data: { items: [{ name: `Result for ${q}`, text: `About ${q}.`, link: `http://x/${q}` }] } });

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const q = url.searchParams.get('q') ?? '';
  const path = url.pathname;
  const n = hit(`${path}?${q}`);
  const json = (status: number, body: string) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  };
  if (path === '/ok/search') return json(200, results(q));
  if (path === '/flaky/search') return n <= 2 ? json(500, '{"error":"busy"}') : json(200, results(q));
  if (path === '/slow/search') {
    setTimeout(() => json(200, results(q)), 250);
    return;
  }
  if (path === '/bad/search') return json(200, '{"data": {"items": [');
  if (path === '/hang/search') return; // never answers
  if (path === '/missing/search') return json(404, '{"error":"no such index"}');
  if (path === '/page') {
    const target = url.searchParams.get('url') ?? '';
    if (target.endsWith('/gone')) return json(404, '{}');
    return json(200, JSON.stringify({ title: 'Kazan', content: 'Kazan is a city. Anna Petrova was born in Kazan. Kazan is located in Russia.' }));
  }
  if (path === '/v1/chat/completions' && req.method === 'POST') {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      chatBodies.push(JSON.parse(body));
      const reply = chatReplies.shift();
      if (reply === undefined || reply === 'MALFORMED') return json(200, '{"choices": [');
      json(200, JSON.stringify({ choices: [{ message: { role: 'assistant', content: reply } }] }));
    });
    return;
  }
  json(404, '{}');
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections(); // the hanging requests
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const fields = { title: 'name', snippet: 'text', url: 'link' };
const search = (kind: string) => httpSearchSource({ name: kind, urlTemplate: `${base}/${kind}/search?q={query}`, resultsPath: 'data.items', fields });
// A generous timeout: a loaded machine can take over 150 ms to answer on loopback, which counted as a timeout.
// Only the hang test needs a short one, and sets its own.
const fast = { timeoutMs: 2000, retries: 1, backoffMs: 10 };

describe('building blocks', () => {
  it('token bucket: a burst passes, then callers wait 1/rate each (fake clock)', () => {
    let t = 0;
    const clock: Clock = { now: () => t, sleep: async () => {} };
    const b = new TokenBucket(2, 2, clock);
    expect([b.reserve(), b.reserve(), b.reserve(), b.reserve()]).toEqual([0, 0, 500, 1000]);
    t = 2000; // 2 s refill 4 tokens, capped at the burst of 2 after paying back the debt of 2
    expect(b.reserve()).toBe(0);
  });

  it('LRU evicts the least recently used, TTL expires', () => {
    let t = 0;
    const clock: Clock = { now: () => t, sleep: async () => {} };
    const c = new LruCache<number>(2, 100, clock);
    c.set('a', 1);
    c.set('b', 2);
    expect(c.get('a')).toBe(1);
    c.set('c', 3);
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBe(1);
    t = 200;
    expect(c.get('a')).toBeUndefined();
  });

  it('canonical JSON sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
  });

  it('exponential backoff with a cap', () => {
    const p = { backoffMs: 100, backoffFactor: 2, maxBackoffMs: 350 };
    expect([1, 2, 3, 4].map((r) => backoffDelay(r, p))).toEqual([100, 200, 350, 350]);
  });
});

describe('ManagedTool over HTTP', () => {
  it('retries 500s with backoff until the service answers', async () => {
    const tool = new ManagedTool('search', search('flaky'), { policy: { ...fast, retries: 3 } });
    const r = await tool.call({ query: 'moscow' });
    expect(r).toEqual([{ title: 'Result for moscow', snippet: 'About moscow.', url: 'http://x/moscow' }]);
    expect(tool.counters()).toEqual({ calls: 1, cache_hits: 0, attempts: 3, retries: 2, timeouts: 0, errors: 2, fallbacks: 0, failures: 0 });
  });

  it('times out a hanging service, retries, then falls back to the second source', async () => {
    const tool = new ManagedTool('search', search('hang'), { policy: { ...fast, timeoutMs: 100 }, fallback: search('ok') });
    const t0 = Date.now();
    const r = await tool.call({ query: 'kazan' });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(r[0]!.title).toBe('Result for kazan');
    expect(tool.counters()).toMatchObject({ calls: 1, attempts: 3, timeouts: 2, retries: 1, fallbacks: 1, failures: 0, errors: 0 });
  });

  it('a slow service: timeout below its latency fails, above it succeeds', async () => {
    const tight = new ManagedTool('search', search('slow'), { policy: { timeoutMs: 100, retries: 0 } });
    await expect(tight.call({ query: 'a' })).rejects.toMatchObject({ kind: 'timeout' });
    expect(tight.counters()).toMatchObject({ attempts: 1, timeouts: 1, failures: 1 });
    const loose = new ManagedTool('search', search('slow'), { policy: { timeoutMs: 600, retries: 0 } });
    expect((await loose.call({ query: 'a' }))[0]!.title).toBe('Result for a');
    expect(loose.counters()).toMatchObject({ attempts: 1, timeouts: 0, failures: 0 });
  });

  it('malformed JSON is retried, then reported as a failure', async () => {
    const tool = new ManagedTool('search', search('bad'), { policy: fast });
    const err = await tool.call({ query: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).kind).toBe('malformed');
    expect(tool.counters()).toMatchObject({ calls: 1, attempts: 2, retries: 1, errors: 2, failures: 1 });
  });

  it('a 404 is not retried (not transient) but still falls back', async () => {
    const tool = new ManagedTool('search', search('missing'), { policy: fast, fallback: search('ok') });
    expect((await tool.call({ query: 'y' }))[0]!.title).toBe('Result for y');
    expect(tool.counters()).toMatchObject({ attempts: 2, retries: 0, errors: 1, fallbacks: 1, failures: 0 });
  });

  it('caches by canonical arguments: the service is hit once', async () => {
    const src = httpPageSource({ urlTemplate: `${base}/page?url={url}&q={url}`, textPath: 'content', titlePath: 'title' });
    const tool = new ManagedTool<Record<string, string>, { title: string; text: string }>('page', {
      name: 'page',
      call: (a, s) => src.call({ url: a.url! }, s),
    });
    const key = 'http://cache-test/1';
    await tool.call({ url: key, lang: 'en' });
    await tool.call({ lang: 'en', url: key });
    expect(hits.get(`/page?${key}`)).toBe(1);
    expect(tool.counters()).toMatchObject({ calls: 2, cache_hits: 1, attempts: 1 });
  });

  it('enforces the QPS limit per tool', async () => {
    const tool = new ManagedTool('search', search('ok'), { policy: { ...fast, qps: 10, burst: 1 } });
    const t0 = Date.now();
    await Promise.all(['q1', 'q2', 'q3', 'q4'].map((q) => tool.call({ query: `qps-${q}` })));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(270); // 3 waits of 100 ms after the first token
    expect(tool.counters()).toMatchObject({ calls: 4, attempts: 4 });
  });
});

describe('chat adapter', () => {
  it('POSTs to {baseUrl}/chat/completions, retries a malformed reply, caches only greedy calls', async () => {
    chatReplies.push('MALFORMED', 'correct');
    const tool = chatTool({ baseUrl: `${base}/v1/`, model: 'judge-1', apiKey: 'k' }, { policy: fast });
    const chat = chatFn(tool);
    expect(await chat([{ role: 'user', content: 'is it?' }])).toBe('correct');
    expect(await chat([{ role: 'user', content: 'is it?' }])).toBe('correct'); // temperature 0: cached
    expect(tool.counters()).toMatchObject({ calls: 2, cache_hits: 1, attempts: 2, retries: 1, errors: 1 });
    expect(chatBodies.at(-1)).toMatchObject({ model: 'judge-1', temperature: 0, messages: [{ role: 'user', content: 'is it?' }] });
  });

  it('drives a ReAct episode as a policy (messages in Qwen-Agent layout)', async () => {
    chatBodies.length = 0;
    chatReplies.push(
      '<think>search it</think>\n<tool_call>\n{"name": "search", "arguments": {"query": ["born in Kazan"]}}\n</tool_call>',
      '<think>found</think>\n<answer>Anna Petrova</answer>',
    );
    const policy = chatPolicy(chatTool({ baseUrl: `${base}/v1`, model: 'm' }, { policy: fast }), 'llm:m');
    const t = await runEpisode({ id: 'x', qaId: 'q', question: 'Who was born in Kazan?', policy, tools: simToolset(new SimWeb(demoGraph())) });
    expect(t.prediction).toBe('Anna Petrova');
    expect(t.policy).toBe('llm:m');
    const second = chatBodies[1] as { messages: { role: string; content: string }[]; stop: string[]; temperature: number };
    expect(second.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(second.messages[3]!.content).toMatch(/^<tool_response>\nA search for 'born in Kazan'/);
    expect(second.stop).toEqual(['<tool_response>']);
    expect(second.temperature).toBe(1);
  });
});

describe('HTTP toolset', () => {
  // Built lazily: `base` is known only once the server listens.
  const pageTool = () => new ManagedTool('page', httpPageSource({ urlTemplate: `${base}/page?url={url}`, textPath: 'content' }), { policy: fast });

  it('search degrades to an observation when both sources fail', async () => {
    const failing = new ManagedTool('search', search('bad'), { policy: { ...fast, retries: 0 }, fallback: search('missing') });
    const tools = httpToolset({ search: failing, page: pageTool() });
    const obs = await tools.execute({ name: 'search', arguments: { query: ['q'] } });
    expect(obs).toMatch(/^\[search\] The search for 'q' failed: missing: HTTP 404/);
    expect(failing.counters()).toMatchObject({ fallbacks: 1, failures: 1 });
  });

  it('visit extracts evidence from fetched text and reports unreachable pages', async () => {
    const tools = httpToolset({ search: new ManagedTool('search', search('ok')), page: pageTool() });
    const obs = await tools.execute({ name: 'visit', arguments: { url: ['http://site/kazan', 'http://site/gone'], goal: 'who was born there' } });
    const [ok, gone] = obs.split('\n=======\n');
    expect(ok).toContain('Evidence in page: \nAnna Petrova was born in Kazan.');
    expect(gone).toContain('The provided webpage content could not be accessed.');
  });
});
