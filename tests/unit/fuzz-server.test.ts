// Fuzzing web mode through a real loopback server: property-based calls to every contract method (taken
// from the contract module, so a new method is fuzzed without editing this file), malformed raw HTTP
// requests and bad WebSocket frames after a real upgrade. Whatever a client sends, the server answers it
// (a 4xx for anything malformed, never a 5xx) or closes that socket, and afterwards it still serves,
// db.json holds the same records and memory stays within twice its start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { LabCore } from '../../main/lab/app/core';
import { startServer, type RunningServer } from '../../main/lab/server/http';
import { METHOD_NAMES, isJobKind, methods, validateParams, type JobRecord, type MethodName } from '../../main/lab/contract';
import { jobSpecs } from '../../main/lab/jobs/specs';
import { importArtefact } from '../../main/lab/cli/import';
import { fixtureGraph } from '../support/fixture-graph';

const API_CALLS = 1200;
const RAW_REQUESTS = 240;
const WS_FRAMES = 120;
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_421);

let home = '';
let core: LabCore;
let server: RunningServer;
let dbBefore: unknown;
let rssBefore = 0;
let heapBefore = 0;
/** Ids that exist in the store, so some generated calls reach real records. */
const knownIds: string[] = [];

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'sailor-fuzz-'));
  const staticDir = join(home, 'static');
  mkdirSync(staticDir, { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Sailor Lab</title>');
  core = await LabCore.open({ home, detectBackend: false });
  const graphFile = join(home, 'g.json');
  writeFileSync(graphFile, JSON.stringify(fixtureGraph({ seed: 2, countries: 6 })));
  knownIds.push((await importArtefact(core.db, home, 'graphs', graphFile)).id);
  const job = await core.jobs.start('demo', { records: 3, intervalMs: 0 });
  knownIds.push(job.id);
  while (core.jobs.get(job.id).status === 'running') await new Promise((r) => setTimeout(r, 20));
  server = await startServer({ core, staticDir });
  dbBefore = readDb();
  global.gc?.();
  ({ rss: rssBefore, heapUsed: heapBefore } = process.memoryUsage());
});

afterAll(async () => {
  await server?.close();
  await core?.close();
});

const readDb = (): unknown => JSON.parse(readFileSync(join(home, 'db.json'), 'utf8')) as unknown;

// ---------- generated contract calls ----------

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];
const NASTY_STRINGS = ['', ' ', '../../db.json', '..\\..\\db.json', '%ff', '\u0000', 'a'.repeat(5000), '😀', 'x/../..', 'sim://x', 'g1/last', '-1'];

const scalar = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.string(),
    fc.constantFrom(...NASTY_STRINGS, ...PROTOTYPE_NAMES),
    fc.constantFrom(...knownIds),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(0, -1, 2 ** 53, 1e308, -0),
    fc.boolean(),
    fc.constant(null),
  );

/** Values of any JSON shape, scalars weighted up. */
const value = (): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 5, arbitrary: scalar() }, { weight: 1, arbitrary: fc.array(scalar(), { maxLength: 4 }) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) });

/** The field names a method's params schema declares (none for methods without params). */
function fieldsOf(method: MethodName): string[] {
  const schema: unknown = methods[method].params;
  return schema instanceof z.ZodObject ? Object.keys(schema.shape as Record<string, unknown>) : [];
}

/** A request body for one method: its own fields with wild values, stray fields, any JSON, or no JSON at all. */
function bodyFor(method: MethodName): fc.Arbitrary<string> {
  const keys = [...fieldsOf(method), ...PROTOTYPE_NAMES, 'extra'];
  const shaped = fc.dictionary(fc.constantFrom(...keys), value(), { maxKeys: 4 }).map((o) => JSON.stringify(o));
  const jobLike = fc.record({
    kind: fc.oneof(fc.constantFrom(...Object.keys(jobSpecs), ...PROTOTYPE_NAMES), fc.string()),
    params: fc.oneof(fc.dictionary(fc.string(), value()), value()),
  }).map((o) => JSON.stringify(o));
  const protoLiteral = fc.constantFrom(...PROTOTYPE_NAMES).map((k) => `{"${k}": {"id": "x"}, "id": "${k}"}`);
  const notJson = fc.oneof(fc.string(), fc.constantFrom('{', '[1,', '{"id":', 'null', '"x"', '1e999', '{"a":1}{"b":2}', '\u0000'));
  return fc.oneof(
    { weight: 4, arbitrary: shaped },
    { weight: method === 'jobs.start' ? 4 : 0, arbitrary: jobLike },
    { weight: 1, arbitrary: value().map((v) => JSON.stringify(v) ?? '') },
    { weight: 1, arbitrary: protoLiteral },
    { weight: 1, arbitrary: notJson },
  );
}

/**
 * Calls that would start real work are left out: a `jobs.start` whose kind and params are valid spawns a
 * worker running that job (a training run, a graph build), which is the job system's business, not a
 * malformed request. `runs.start` cannot launch here (the store has a graph but no datasets) and
 * `runs.resume` finds no run, so both are fuzzed in full.
 */
function startsWork(method: MethodName, body: string): boolean {
  if (method !== 'jobs.start') return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return false;
  }
  const checked = validateParams('jobs.start', parsed);
  if (!checked.ok) return false;
  const { kind, params } = checked.value;
  return isJobKind(kind) && jobSpecs[kind].params.safeParse(params).success;
}

const callArb = fc.constantFrom(...METHOD_NAMES).chain((method) => fc.record({ method: fc.constant(method), body: bodyFor(method) }));

async function post(method: string, body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${server.origin}/api/${method}`, { method: 'POST', headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body });
  return { status: res.status, text: await res.text() };
}

// ---------- raw HTTP requests ----------

const BAD_TARGETS = ['//[', '/%ff', '/%', '/%zz', '/assets/%E0%A4%A', '/api/%ff', '/api/%', '/api/%00', '/..%2f..%2fdb.json', '/%2e%2e/%2e%2e/db.json', 'http://[::1', '*', '/\u0080', `/${'a'.repeat(20_000)}%`];

/**
 * One HTTP request with at least one defect: a request line that is no URL, bad percent-encoding, an
 * oversize body, a malformed header, a broken chunked body, a wrong Host or no token.
 */
const rawRequestArb = fc
  .record({
    defect: fc.constantFrom('target', 'method', 'version', 'oversize', 'declared', 'header', 'chunked', 'host', 'token'),
    target: fc.oneof(fc.constantFrom(...BAD_TARGETS), fc.string({ maxLength: 30 }).map((s) => `/${s.replace(/[#?\s]/g, '')}%${'gz'.repeat(1 + (s.length % 2))}`)),
    api: fc.constantFrom('app.info', 'jobs.list', 'jobs.get', 'nope', ...PROTOTYPE_NAMES),
    junk: fc.string({ minLength: 1, maxLength: 20 }),
  })
  .map(({ defect, target, api, junk }) => rawRequestText(defect, target, api, junk));

/** One body over the 1 MiB limit, shared by every oversize request. */
const OVERSIZE_BODY = Buffer.alloc((1 << 20) + 64, 0x20);

/** The request's bytes, in one or more pieces written in turn. */
type RawRequest = Buffer | Buffer[];

function rawRequestText(defect: string, target: string, api: string, junk: string): RawRequest {
  const host = `Host: 127.0.0.1:${server.port}`;
  const auth = `Authorization: Bearer ${server.token}`;
  const head = (line: string, headers: string[]): string => `${line}\r\n${[...headers, 'Connection: close'].join('\r\n')}\r\n\r\n`;
  switch (defect) {
    case 'target':
      return Buffer.from(head(`GET ${target} HTTP/1.1`, [host, auth]));
    case 'method':
      return Buffer.from(head(`${junk.replace(/[\r\n]/g, '')} G ET /api/${api} HTTP/1.1`, [host, auth]));
    case 'version':
      return Buffer.from(head(`GET /api/${api} HTTP/${junk.replace(/[\r\n]/g, '')}x`, [host, auth]));
    case 'oversize': {
      const body = OVERSIZE_BODY.subarray(0, OVERSIZE_BODY.length - junk.length); // a view: no 1 MB copy per request
      return [Buffer.from(head(`POST /api/${api} HTTP/1.1`, [host, auth, `Content-Length: ${body.length}`])), body];
    }
    case 'declared':
      return Buffer.from(head(`POST /api/${api} HTTP/1.1`, [host, auth, `Content-Length: ${(1 << 21) + junk.length}`]));
    case 'header':
      return Buffer.from(head(`GET /api/${api} HTTP/1.1`, [host, auth, `${junk.replace(/[\r\n:]/g, '')} no colon here`, 'Content-Length: 1', 'Content-Length: 2']));
    case 'chunked':
      return Buffer.from(`${head(`POST /api/${api} HTTP/1.1`, [host, auth, 'Transfer-Encoding: chunked'])}zz${junk.length}\r\n{}\r\n0\r\n\r\n`);
    case 'host':
      return Buffer.from(head(`GET ${target} HTTP/1.1`, [`Host: ${junk.replace(/[\r\n]/g, '')}.evil.example`, auth]));
    default:
      return Buffer.from(head(`POST /api/${api} HTTP/1.1`, [host, `Authorization: Bearer ${junk.replace(/[\r\n]/g, '')}`, 'Content-Length: 2']) + '{}');
  }
}

/** Sends raw bytes; resolves with what came back once the server closed the socket (or after 3 s). */
function sendRaw(request: RawRequest): Promise<{ text: string; closed: boolean }> {
  const pieces = Array.isArray(request) ? request : [request];
  return new Promise((resolve) => {
    const sock = connect(server.port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      sock.destroy();
      resolve({ text, closed: false });
    }, 3000);
    sock.on('connect', () => pieces.forEach((p) => sock.write(p)));
    sock.on('data', (c: Buffer) => (text += c.toString('latin1')));
    sock.on('error', () => {}); // a reset after the answer still counts as closed
    sock.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
  });
}

// ---------- WebSocket frames ----------

/** A real upgrade over a raw socket; resolves with the socket once the server answered 101. */
function upgrade(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const sock = connect(server.port, '127.0.0.1');
    const key = randomBytes(16).toString('base64');
    sock.on('connect', () =>
      sock.write(
        `GET /events HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${server.token}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ),
    );
    sock.once('data', (c: Buffer) => (c.toString().startsWith('HTTP/1.1 101') ? resolve(sock) : reject(new Error(`upgrade refused: ${c.toString().split('\r\n')[0]}`))));
    sock.on('error', reject);
  });
}

function frame(opts: { fin?: boolean; rsv?: number; opcode: number; masked?: boolean; payload: Buffer; declared?: bigint }): Buffer {
  const first = (opts.fin === false ? 0 : 0x80) | ((opts.rsv ?? 0) << 4) | opts.opcode;
  const length = opts.declared ?? BigInt(opts.payload.length);
  const mask = opts.masked === false ? 0 : 0x80;
  let header: Buffer;
  if (length < 126n) header = Buffer.from([first, mask | Number(length)]);
  else if (length < 65536n) header = Buffer.from([first, mask | 126, Number(length >> 8n), Number(length & 0xffn)]);
  else {
    header = Buffer.alloc(10);
    header[0] = first;
    header[1] = mask | 127;
    header.writeBigUInt64BE(length, 2);
  }
  const key = opts.masked === false ? Buffer.alloc(0) : Buffer.from([0, 0, 0, 0]); // a zero mask leaves the payload as is
  return Buffer.concat([header, key, opts.payload]);
}

const INVALID_UTF8 = [Buffer.from([0xc3, 0x28]), Buffer.from([0xff]), Buffer.from([0xe2, 0x82]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80])];

/** One frame a server must refuse: each case breaks a rule of the protocol. */
const badFrameArb = fc.oneof(
  fc.record({
    opcode: fc.constantFrom(1, 2, 9), payload: fc.uint8Array({ maxLength: 50 }),
  }).map(({ opcode, payload }) => frame({ opcode, masked: false, payload: Buffer.from(payload) })),
  fc.record({
    opcode: fc.constantFrom(3, 4, 5, 6, 7, 11, 12, 13, 14, 15), payload: fc.uint8Array({ maxLength: 20 }),
  }).map(({ opcode, payload }) => frame({ opcode, payload: Buffer.from(payload) })),
  fc.record({ rsv: fc.integer({ min: 1, max: 7 }), opcode: fc.constantFrom(1, 2) }).map(({ rsv, opcode }) => frame({ rsv, opcode, payload: Buffer.from('hi') })),
  fc.record({
    bad: fc.constantFrom(...INVALID_UTF8), prefix: fc.string({ maxLength: 10 }),
  }).map(({ bad, prefix }) => frame({ opcode: 1, payload: Buffer.concat([Buffer.from(prefix), bad]) })),
  fc.bigInt({ min: 65537n, max: 2n ** 63n - 1n }).map((declared) => frame({ opcode: 2, payload: Buffer.alloc(16), declared })),
  fc.integer({ min: 126, max: 400 }).map((n) => frame({ opcode: 9, payload: Buffer.alloc(n) })), // control frame over 125 bytes
  fc.constantFrom(8, 9, 10).map((opcode) => frame({ opcode, fin: false, payload: Buffer.alloc(2) })), // fragmented control frame
  fc.uint8Array({ minLength: 1, maxLength: 20 }).map((p) => frame({ opcode: 0, payload: Buffer.from(p) })), // continuation with nothing to continue
  fc.constantFrom(0, 999, 1004, 1005, 1006, 1015, 5000).map((code) => frame({ opcode: 8, payload: Buffer.from([code >> 8, code & 0xff]) })), // invalid close codes
  fc.constant(frame({ opcode: 8, payload: Buffer.from([3]) })), // a close frame of one byte
);

/** Resolves true once the server closed the socket after the frame (ws may send a close frame first). */
function closedAfter(sock: Socket, bytes: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      sock.destroy();
      resolve(false);
    }, 3000);
    sock.on('error', () => {});
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
    sock.write(bytes);
  });
}

// ---------- the suite ----------

describe('fuzzing web mode', () => {
  const counts = { apiCalls: 0, api4xx: 0, api2xx: 0, skippedStartsWork: 0, rawRequests: 0, raw4xx: 0, rawClosedSilently: 0, wsFrames: 0 };

  it(`answers ${API_CALLS} generated calls across every contract method with 2xx or 4xx, never 5xx`, async () => {
    const perMethod = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(callArb, async ({ method, body }) => {
        if (startsWork(method, body)) {
          counts.skippedStartsWork++;
          return;
        }
        const { status, text } = await post(method, body);
        counts.apiCalls++;
        perMethod.set(method, (perMethod.get(method) ?? 0) + 1);
        if (status >= 400) counts.api4xx++;
        else counts.api2xx++;
        expect(status, `${method} ${body.slice(0, 200)}: ${text.slice(0, 300)}`).toBeLessThan(500);
        const reply = JSON.parse(text) as { ok: boolean; error?: { code: string; message: string } };
        if (!reply.ok) {
          expect(reply.error?.message, text).toMatch(/\S/);
          expect(reply.error?.message, text).not.toMatch(/undefined undefined/);
        }
      }),
      { numRuns: API_CALLS, seed: SEED, endOnFailure: true },
    );
    expect([...perMethod.keys()].sort()).toEqual([...METHOD_NAMES].sort());
  });

  it(`answers ${RAW_REQUESTS} malformed raw HTTP requests with a 4xx or a closed socket`, async () => {
    await fc.assert(
      fc.asyncProperty(rawRequestArb, async (request) => {
        const { text, closed } = await sendRaw(request);
        const bytes = Array.isArray(request) ? request[0]! : request;
        counts.rawRequests++;
        const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1];
        if (status) counts.raw4xx++;
        else counts.rawClosedSilently++;
        expect(closed, bytes.subarray(0, 200).toString('latin1')).toBe(true);
        if (text !== '') expect(status, `${bytes.subarray(0, 200).toString('latin1')} -> ${text.slice(0, 200)}`).toMatch(/^4\d\d$/);
      }),
      { numRuns: RAW_REQUESTS, seed: SEED, endOnFailure: true },
    );
  });

  it(`closes the socket of each of ${WS_FRAMES} bad WebSocket frames`, async () => {
    await fc.assert(
      fc.asyncProperty(badFrameArb, async (bytes) => {
        const sock = await upgrade();
        counts.wsFrames++;
        expect(await closedAfter(sock, bytes), bytes.subarray(0, 16).toString('hex')).toBe(true);
      }),
      { numRuns: WS_FRAMES, seed: SEED, endOnFailure: true },
    );
  });

  it('is alive afterwards, with db.json intact and memory within twice its start', async () => {
    const info = await post('app.info', '{}');
    expect(info.status).toBe(200);
    expect(readDb()).toEqual(dbBefore);
    global.gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    console.log(
      `fuzz (seed ${SEED}): ${counts.apiCalls} API calls (${counts.api4xx} 4xx, ${counts.api2xx} 2xx, ${counts.skippedStartsWork} valid job starts left out), ` +
        `${counts.rawRequests} raw HTTP requests (${counts.raw4xx} answered 4xx, ${counts.rawClosedSilently} closed without an answer), ${counts.wsFrames} bad WebSocket frames; ` +
        `RSS ${mb(rssBefore)} -> ${mb(rss)} MB, heap ${mb(heapBefore)} -> ${mb(heapUsed)} MB`,
    );
    expect(counts.apiCalls).toBeGreaterThanOrEqual(1000);
    expect(counts.rawRequests).toBeGreaterThanOrEqual(200);
    expect(counts.wsFrames).toBeGreaterThanOrEqual(100);
    expect(rss).toBeLessThan(2 * rssBefore);
  });
});

const mb = (bytes: number): number => Math.round(bytes / 2 ** 20);

// ---------- work started at once (after the suite above: these add jobs to db.json) ----------

/** What web mode may take while twenty graph builds are asked for at once: one runs, the rest wait. */
const JOB_BURST_RSS_BUDGET = 1.5 * 2 ** 30;

describe('jobs started at once through web mode', () => {
  const start = async (kind: string, params: unknown): Promise<{ status: number; job?: JobRecord; message?: string }> => {
    const { status, text } = await post('jobs.start', JSON.stringify({ kind, params }));
    const reply = JSON.parse(text) as { ok: boolean; result?: JobRecord; error?: { message: string } };
    return { status, job: reply.result, message: reply.error?.message };
  };
  const settled = (id: string): Promise<JobRecord> =>
    new Promise((resolve) => {
      const poll = (): void => {
        const job = core.jobs.get(id);
        if (job.status === 'running' || job.status === 'queued') setTimeout(poll, 50);
        else resolve(job);
      };
      poll();
    });

  it(`twenty kg.build at once: one runs, nineteen wait in line, a full queue is 429, RSS stays under ${mb(JOB_BURST_RSS_BUDGET)} MB`, { timeout: 240_000 }, async () => {
    let peak = process.memoryUsage.rss();
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 25);
    try {
      const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => start('kg.build', { maxEdges: 30, rng: i })));
      expect(burst.map((b) => b.status)).toEqual(Array(20).fill(200));
      const jobs = burst.map((b) => core.jobs.get(b.job!.id));
      expect(jobs.filter((j) => j.status === 'running')).toHaveLength(1);
      const waiting = jobs.filter((j) => j.status === 'queued');
      expect(waiting.map((j) => j.queue?.position).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 19 }, (_, i) => i + 1));
      expect(waiting[0]!.progress.message).toMatch(/^queued: \d+(st|nd|rd|th) in line \(1 kg\.build job at a time\)$/);
      // The queue holds 64: the 65th waiting job is refused, naming the limit.
      const more = await Promise.all(Array.from({ length: 46 }, (_, i) => start('kg.build', { maxEdges: 30, rng: 100 + i })));
      expect(more.filter((m) => m.status === 200)).toHaveLength(45);
      const refused = more.find((m) => m.status !== 200)!;
      expect([refused.status, refused.message]).toEqual([429, expect.stringMatching(/64 jobs are already waiting \(the limit is 64\)/)]);
      // Cancelling a waiting job takes it out of line; the one running finishes.
      const all = [...burst, ...more].flatMap((b) => (b.job ? [b.job.id] : []));
      const running = all.find((id) => core.jobs.get(id).status === 'running')!;
      for (const id of all) if (id !== running) expect((await post('jobs.cancel', JSON.stringify({ id }))).status).toBe(200);
      expect(all.filter((id) => id !== running).map((id) => core.jobs.get(id).status)).toEqual(Array(all.length - 1).fill('cancelled'));
      expect((await settled(running)).status).toBe('succeeded');
    } finally {
      clearInterval(sampler);
    }
    console.log(`jobs burst: RSS ${mb(rssBefore)} MB before, ${mb(peak)} MB at most`);
    expect(peak).toBeLessThan(JOB_BURST_RSS_BUDGET);
  });

  it('params nested 2,100 levels or holding __proto__ are 400 naming it, and jobs.list still answers', async () => {
    const deep = `{"kind":"demo","params":{"records":1,"x":${'['.repeat(2100)}${']'.repeat(2100)}}}`;
    const r = await post('jobs.start', deep);
    expect([r.status, (JSON.parse(r.text) as { error: { message: string } }).error.message]).toEqual([400, 'jobs.start: the request body nests deeper than 64 levels']);
    const proto = await post('jobs.start', '{"kind":"kg.build","params":{"__proto__":{"maxEdges":99999999}}}');
    expect([proto.status, proto.text]).toEqual([400, expect.stringContaining("params.__proto__: unrecognized key '__proto__'")]);
    expect((await post('jobs.list', '{}')).status).toBe(200);
    expect(() => JSON.parse(readFileSync(join(home, 'db.json'), 'utf8'))).not.toThrow();
  });
});
