// The second reliability probe's defects (issue #33), each as a regression test through the real parts: the
// CLI in-process or as a child, a real loopback service, real FIFOs, device links and sparse files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { runCli } from '../../main/lab/cli/index';
import { fixtureGraph } from '../support/fixture-graph';
import { LabCore } from '../../main/lab/app/core';
import { excerpt, jsonSyntaxMessage } from '../../main/lab/base/errors';
import { inputLines, readJsonl } from '../../main/lab/store/files';
import { jsonShapeIssue, jsonTextTooDeep } from '../../main/lab/util/json-shape';
import { startable, waitReason, ordinal, type JobLimits } from '../../main/lab/jobs/queue';
import { startWebService, weakKeyReason } from '../../main/lab/server/web-service';
import { SimWeb } from '../../main/lab/agent/web';
import { evaluate, sampleFromTrajectory } from '../../main/lab/agent/eval';
import { trajectorySummary } from '../../main/lab/agent/summary';
import { chatComplete } from '../../main/lab/synth/phrase';
import { loneSurrogate } from '../../main/lab/cli/export-verl';
import type { Trajectory } from '../../main/lab/formats/index';
import { writeVerlRunFiles } from '../e2e/verl-fixture';
import { tempDirs } from '../support/tmp-dirs';

const tmp = tempDirs();

async function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
  try {
    const code = await runCli(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, out: out.join(''), err: err.join('') };
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}

let data = '';
let graph = '';
let dataset = '';
beforeAll(async () => {
  data = tmp('sailor-rel-');
  graph = join(data, 'g.json');
  dataset = join(data, 'd.jsonl');
  writeFileSync(graph, JSON.stringify(fixtureGraph({ seed: 4, countries: 12 })));
  const r = await cli(['synth', '--graph', graph, '--count', '12', '--rng', '3', '--out', dataset]);
  expect(r.code, r.err).toBe(0);
}, 120_000);

describe('#1 the job queue (pure)', () => {
  const limits: JobLimits = { running: 3, perKind: { train: 2 }, defaultPerKind: 1, queued: 4, memoryBytes: 1000 };
  it('starts the oldest jobs the kind, total and memory limits allow, and says why the others wait', () => {
    expect(startable(limits, ['kg.build', 'kg.build', 'synth', 'train', 'train'], [], 0)).toEqual([0, 2, 3]);
    expect(startable(limits, ['train', 'train'], ['train'], 0)).toEqual([0]);
    expect(waitReason(limits, ['kg.build'], 0, 'kg.build')).toBe('1 kg.build job at a time');
    expect(waitReason(limits, ['synth', 'train', 'train'], 0, 'kg.build')).toBe('3 jobs at a time');
    expect(waitReason(limits, ['synth'], 2000, 'kg.build')).toMatch(/memory over the 0 MiB budget/);
    expect(waitReason(limits, [], 2000, 'kg.build')).toBeNull(); // one job may always run
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 101].map(ordinal)).toEqual(['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '101st']);
  });
});

describe('#2 #3 verl dump files that are not regular files', () => {
  let core: LabCore;
  beforeAll(async () => {
    core = await LabCore.open({ home: tmp('sailor-rel-home-'), detectBackend: false });
  });
  afterAll(async () => core.close());

  it('a FIFO among the dumps is refused by name at once, and the lab keeps answering', { timeout: 120_000 }, async () => {
    const f = writeVerlRunFiles(tmp('verl-fifo-'));
    expect(spawnSync('mkfifo', [join(f.rollouts, '4.jsonl')]).status).toBe(0);
    const other = core.call('app.info', {});
    await expect(core.call('runs.importVerl', { metrics: f.metrics, rollouts: f.rollouts })).rejects.toThrow(/4\.jsonl: is a FIFO \(named pipe\), expected a regular file/);
    await expect(other).resolves.toBeTruthy();
    expect(core.db.data.runs).toEqual([]);
  });

  it('a dump linked to /dev/zero is refused as a device before a byte is read', async () => {
    const f = writeVerlRunFiles(tmp('verl-zero-'));
    symlinkSync('/dev/zero', join(f.rollouts, '4.jsonl'));
    await expect(core.call('runs.importVerl', { metrics: f.metrics, rollouts: f.rollouts })).rejects.toThrow(/4\.jsonl: is a character device, expected a regular file/);
  });

  it('--metrics at a directory names it', async () => {
    const f = writeVerlRunFiles(tmp('verl-dir-'));
    await expect(core.call('runs.importVerl', { metrics: f.rollouts })).rejects.toThrow(/--metrics: .*rollouts: is a directory/);
  });
});

describe('#4 messages quote a short escaped excerpt, never the file', () => {
  let core: LabCore;
  beforeAll(async () => {
    core = await LabCore.open({ home: tmp('sailor-rel-home-'), detectBackend: false });
  });
  afterAll(async () => core.close());

  it('excerpt and jsonSyntaxMessage (pure)', () => {
    expect(excerpt('ab\u0000"')).toBe('"ab\\u0000\\""');
    expect(excerpt('x'.repeat(1000))).toBe(`"${'x'.repeat(80)}"… (1000 characters)`);
    let syntax: unknown;
    try {
      JSON.parse('SECRETKEY123456789');
    } catch (err) {
      syntax = err;
    }
    expect(jsonSyntaxMessage(syntax)).toBe("Unexpected token 'S'");
  });

  it('a 1 MB string in step, a secret in data or request_id: the message stays short', async () => {
    const cases: Array<[string, (f: ReturnType<typeof writeVerlRunFiles>) => void, RegExp]> = [
      ['step', (f) => writeFileSync(f.metrics, JSON.stringify({ step: 'S'.repeat(1 << 20), data: {} }) + '\n'), /step: expected a whole number >= 0, got "S{40}"… \(1048576 characters\)/],
      ['data', (f) => writeFileSync(f.metrics, JSON.stringify({ step: 1, data: 'SECRET'.repeat(1000) }) + '\n'), /data: expected an object of metrics, got "(SECRET){6}SECR"…/],
      ['request_id', (f) => writeFileSync(f.episodes, JSON.stringify({ request_id: { token: 'SECRET'.repeat(1000) }, turns: [] }) + '\n'), /request_id: not an episode file: expected a string, got an object$/],
      ['score', (f) => writeFileSync(join(f.rollouts, '1.jsonl'), JSON.stringify({ input: 'q', output: 'a', gts: null, score: 'SECRET'.repeat(1000), step: 1 }) + '\n'), /score: expected a number, got "(SECRET){6}SECR"… \(6000 characters\)$/],
      ['step 1e309', (f) => writeFileSync(f.metrics, '{"step": 1e309, "data": {}}\n'), /step: expected a whole number >= 0, got number Infinity/],
    ];
    for (const [what, write, message] of cases) {
      const f = writeVerlRunFiles(tmp('verl-echo-'));
      write(f);
      const err = await core.call('runs.importVerl', { metrics: f.metrics, rollouts: f.rollouts, episodes: f.episodes }).catch((e: Error) => e);
      expect(err, what).toBeInstanceOf(Error);
      expect((err as Error).message, what).toMatch(message);
      expect((err as Error).message.length, what).toBeLessThan(400);
    }
  });

  it('--metrics at a link to a file that is not JSON: no bytes of it beyond the one token', async () => {
    const d = tmp('verl-link-');
    writeFileSync(join(d, 'shadow'), 'SECRETKEY123456789:x:0:0\n');
    symlinkSync(join(d, 'shadow'), join(d, 'metrics.jsonl'));
    const r = await cli(['import', 'verl', '--metrics', join(d, 'metrics.jsonl'), '--home', tmp('sailor-rel-home-')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/metrics\.jsonl:1: not valid JSON \(Unexpected token 'S'\)/);
    expect(r.err).not.toContain('SECRETKEY');
  });
});

describe('#5 #9 JSON depth and __proto__', () => {
  it('jsonTextTooDeep and jsonShapeIssue (pure)', () => {
    expect(jsonTextTooDeep('['.repeat(65) + ']'.repeat(65))).toBe(true);
    expect(jsonTextTooDeep('['.repeat(64) + ']'.repeat(64))).toBe(false);
    expect(jsonTextTooDeep(JSON.stringify({ a: '[[[[[[[[[[\\"'.repeat(20) }))).toBe(false); // brackets in strings do not count
    expect(jsonShapeIssue(JSON.parse('{"params":{"__proto__":{"maxEdges":1}}}'))).toEqual({ path: 'params.__proto__', message: "unrecognized key '__proto__'" });
    expect(jsonShapeIssue(JSON.parse('['.repeat(100) + ']'.repeat(100)))?.message).toBe('nested deeper than 64 levels');
    expect(jsonShapeIssue({ constructor: 1, a: [{ b: 1 }] })).toBeNull();
  });

  it('a call with __proto__ in its params or a config is refused like any unknown key; a deep one is refused before any schema', async () => {
    const core = await LabCore.open({ home: tmp('sailor-rel-home-'), detectBackend: false });
    try {
      await expect(core.call('jobs.start', JSON.parse('{"kind":"kg.build","params":{"__proto__":{"maxEdges":99999999}}}'))).rejects.toThrow(/params\.__proto__: unrecognized key '__proto__'/);
      await expect(core.call('runs.start', JSON.parse('{"config":{"name":"x","__proto__":{"sft":{"steps":1}}}}'))).rejects.toThrow(/config\.__proto__: unrecognized key/);
      let deep: unknown = 1;
      for (let i = 0; i < 2100; i++) deep = { a: deep };
      await expect(core.call('jobs.start', { kind: 'demo', params: { records: 1, deep } })).rejects.toThrow(/nested deeper than 64 levels/);
      expect(core.jobs.list()).toEqual([]);
    } finally {
      await core.close();
    }
  });
});

describe('#6 web serve: caps on an answer and on requests in flight', () => {
  let service: Awaited<ReturnType<typeof startWebService>>;
  beforeAll(async () => {
    service = await startWebService({ web: new SimWeb(fixtureGraph({ seed: 4, countries: 12 })), port: 0 });
  });
  afterAll(async () => service.close());
  const post = (path: string, body: unknown): Promise<Response> => fetch(`${service.origin}${path}`, { method: 'POST', body: JSON.stringify(body) });

  it('512 queries x topk 100 is 413 naming queries x topk; within the cap it answers', async () => {
    const big = await post('/retrieve', { queries: Array.from({ length: 512 }, (_, i) => `country ${i}`), topk: 100 });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { message: string } }).error.message).toMatch(/queries x topk = 512 x 100 = 51200, over the 4096 results/);
    const ok = await post('/retrieve', { queries: ['country'], topk: 3 });
    expect(ok.status).toBe(200);
  });

  it('a request past the in-flight limit is 503 with Retry-After, naming the limit', async () => {
    // A request is in flight from when its body is in until its answer is sent (#44: clients still sending their
    // bodies no longer take the slots, web-slow-clients.test.ts); a service that takes none shows the refusal.
    const full = await startWebService({ web: new SimWeb(fixtureGraph({ seed: 4, countries: 12 })), port: 0, limits: { maxInFlight: 0 } });
    try {
      const busy = await fetch(`${full.origin}/retrieve`, { method: 'POST', body: JSON.stringify({ queries: ['x'] }) });
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('1');
      expect(((await busy.json()) as { error: { message: string } }).error.message).toMatch(/the most this service takes at once \(0\)/);
    } finally {
      await full.close();
    }
  });
});

describe('#7 a dataset of any size: streamed, capped, exit 2', () => {
  it('reads lines in chunks across multi-byte characters as a whole read would', () => {
    const d = tmp('sailor-lines-');
    const file = join(d, 'x.jsonl');
    const lines = ['{"a":"é😀ü"}', '', '{"b":[1,2,3]}', '{"c":"' + 'ß'.repeat(100) + '"}'];
    writeFileSync(file, lines.join('\n') + '\n{"torn":');
    const got = [...inputLines(file, { jsonBytes: 1 << 20, jsonlBytes: 1 << 20, lineBytes: 1 << 20 }, 7)];
    expect(got.map((l) => l.text)).toEqual([...lines, '{"torn":']);
    expect(got.at(-1)!.last).toBe(true);
    expect(readJsonl(file)).toEqual({ records: [{ line: 1, value: { a: 'é😀ü' } }, { line: 3, value: { b: [1, 2, 3] } }, { line: 4, value: { c: 'ß'.repeat(100) } }], tornTail: true });
  });

  it('a 1.5 GB (sparse) dataset: sailor check and export verl exit 2 naming the cap, no stack trace', async () => {
    const d = tmp('sailor-big-');
    const big = join(d, 'big.jsonl');
    writeFileSync(big, '');
    truncateSync(big, 1.5 * 2 ** 30);
    try {
      const check = await cli(['check', '--graph', graph, big]);
      expect([check.code, check.err]).toEqual([2, expect.stringMatching(/big\.jsonl: is 1\.5 GiB, over the 1 GiB the lab reads as JSON Lines \(set SAILOR_MAX_INPUT_BYTES/)]);
      const exp = await cli(['export', 'verl', '--dataset', big, '--out', join(d, 'out')]);
      expect([exp.code, exp.err]).toEqual([2, expect.stringMatching(/over the 1 GiB/)]);
      expect(exp.err).not.toMatch(/at .*\.ts:\d+/);
    } finally {
      rmSync(big, { force: true });
    }
  });

  it('with a lowered cap, a dataset over it is refused the same way', async () => {
    const r = await cli(['check', '--graph', graph, dataset], { SAILOR_MAX_INPUT_BYTES: '1000' });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/d\.jsonl: is \d+ bytes, over the 1000 bytes the lab reads as JSON Lines/);
    expect((await cli(['check', '--graph', graph, dataset])).code).toBe(0);
  });
});

describe('#8 #10 export verl: whole or absent; lone surrogates refused', () => {
  it('kill -9 during the export leaves no folder with some of the files', { timeout: 120_000 }, async () => {
    const d = tmp('sailor-kill-');
    const out = join(d, 'out');
    const child = spawn(process.execPath, ['bin/sailor.mjs', 'export', 'verl', '--dataset', dataset, '--out', out], { stdio: 'ignore' });
    const started = Date.now();
    // Kill it as soon as anything of the export appears on disk (its temporary folder, or the folder itself).
    while (readdirSync(d).length === 0 && Date.now() - started < 60_000 && child.exitCode === null) await new Promise((r) => setTimeout(r, 2));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    if (existsSync(out)) expect(readdirSync(out)).toHaveLength(10);
    // The export runs whole again, and replaces an earlier export whole.
    for (let i = 0; i < 2; i++) expect((await cli(['export', 'verl', '--dataset', dataset, '--out', out])).code).toBe(0);
    expect(readdirSync(out)).toHaveLength(10);
    expect(readdirSync(d)).toEqual(['out']); // what the killed export left beside it went with the next one
  });

  it('an --out folder holding other files is refused, untouched', async () => {
    const d = tmp('sailor-other-');
    writeFileSync(join(d, 'notes.txt'), 'mine');
    const r = await cli(['export', 'verl', '--dataset', dataset, '--out', d]);
    expect([r.code, r.err]).toEqual([2, expect.stringMatching(/holds files an export does not write \("notes\.txt"\): pick a new folder/)]);
    expect(readdirSync(d)).toEqual(['notes.txt']);
  });

  it('a lone surrogate in a question: exit 2 naming the row and the field, nothing written', async () => {
    const d = tmp('sailor-surrogate-');
    const lines = readFileSync(dataset, 'utf8').split('\n');
    const qa = JSON.parse(lines[3]!) as { question: string };
    lines[3] = JSON.stringify({ ...qa, question: `${qa.question} \ud800` });
    const bad = join(d, 'bad.jsonl');
    writeFileSync(bad, lines.join('\n'));
    const r = await cli(['export', 'verl', '--dataset', bad, '--out', join(d, 'out')]);
    expect([r.code, r.err]).toEqual([2, expect.stringMatching(/train row 3 \(qa "[^"]+"\): prompt\[1\]\.content: a lone surrogate \(U\+D800\) at character \d+/)]);
    expect(readdirSync(d)).toEqual(['bad.jsonl']);
    expect(loneSurrogate({ a: ['ok', 'x\udc00'] })).toEqual({ field: 'a[1]', at: 1, code: 'DC00' });
    expect(loneSurrogate({ a: '😀' })).toBeNull();
  });
});

describe('#11 the web key', () => {
  it('weakKeyReason (pure)', () => {
    expect(weakKeyReason('   ')).toBe('it is blank');
    expect(weakKeyReason('a')).toMatch(/1 characters; use at least 16/);
    expect(weakKeyReason('aaaaaaaaaaaaaaaaaaaa')).toMatch(/too predictable \(1 distinct/);
    expect(weakKeyReason('abababababababababab')).toMatch(/too predictable/);
    expect(weakKeyReason('Xq7vR2mK9pL4sT8w')).toBeNull();
  });

  it('sailor web serve on 0.0.0.0 refuses a weak or blank SAILOR_WEB_KEY at start (exit 2), before serving', async () => {
    for (const key of ['a', '   ']) {
      const r = await cli(['web', 'serve', '--graph', graph, '--host', '0.0.0.0', '--port', '0'], { SAILOR_WEB_KEY: key });
      expect([r.code, r.out], key).toEqual([2, '']);
      expect(r.err).toMatch(/SAILOR_WEB_KEY is refused: it (has 1 characters|is blank)/);
    }
    await expect(startWebService({ web: new SimWeb(fixtureGraph({ seed: 4, countries: 12 })), host: '0.0.0.0', apiKey: 'short' })).rejects.toThrow(/the API key is too weak/);
  });
});

describe('#12 infrastructure failures: out of every mean, counted apart', () => {
  const traj = (i: number, termination: Trajectory['termination'], answer: number): Trajectory => ({
    id: `q${i % 3}/${i}`,
    qa_id: `q${i % 3}`,
    policy: 'llm:x',
    steps: [],
    prediction: termination === 'answer' ? 'a' : null,
    termination,
    reward: { format: 1, answer, total: 0.1 + 0.9 * answer },
    tool_calls: 0,
    tokens: { generated: 0, observation: 0 },
  });
  // Three episodes that ran (reward 0.1 each) and five that the server dropped (reward 0).
  const trajs = [traj(0, 'answer', 0), traj(1, 'answer', 0), traj(2, 'answer', 0), ...[3, 4, 5, 6, 7].map((i) => ({ ...traj(i, 'policy_error', 0), reward: { format: 0, answer: 0, total: 0 } }))];

  it('the rollout summary: reward/mean 0.1, five infrastructure failures', () => {
    expect(trajectorySummary(trajs)).toMatchObject({ trajectories: 8, infrastructure_failures: 5, 'reward/mean': 0.1, 'reward/format': 1, termination: { answer: 3, policy_error: 5 } });
  });

  it('the eval report: pass@1 over the samples the model answered', () => {
    const solved = [traj(0, 'answer', 1), ...[1, 2, 3].map((i) => traj(i, 'tool_error', 0))];
    const report = evaluate(solved.map((t) => sampleFromTrajectory(t)), 1);
    expect([report['pass@1'], report.questions, report.infrastructure_failures, report.all.trajectories]).toEqual([1, 1, 3, 4]);
  });
});

describe('minor', () => {
  it('a CLI config without data.datasetFile names that key', async () => {
    const d = tmp('sailor-cfg-');
    writeFileSync(join(d, 'c.json'), JSON.stringify({ name: 'x', data: { graphFile: graph } }));
    const r = await cli(['train', '--config', join(d, 'c.json')], { SAILOR_HOME: tmp('sailor-rel-home-') });
    expect([r.code, r.err]).toEqual([2, expect.stringMatching(/c\.json: data\.datasetFile: missing: the training questions/)]);
  });

  it('an LLM that sends its headers and then stalls is named by URL', async () => {
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      await expect(chatComplete({ baseUrl: url, model: 'm', timeoutMs: 300 }, [{ role: 'user', content: 'q' }])).rejects.toThrow(`LLM ${url}/chat/completions: no answer within 300 ms`);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
