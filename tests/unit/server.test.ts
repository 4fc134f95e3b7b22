// The web mode server on a real loopback port: token gate, host/origin checks, API, events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { connect } from 'node:net';
import WebSocket from 'ws';
import { LabCore } from '../../main/lab/app/core';
import { startServer, type RunningServer } from '../../main/lab/server/http';

let core: LabCore;
let server: RunningServer;

beforeAll(async () => {
  const home = mkdtempSync(join(tmpdir(), 'sailor-server-'));
  const staticDir = join(home, 'static');
  mkdirSync(join(staticDir, 'assets'), { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Sailor Lab</title>');
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  core = await LabCore.open({ home, detectBackend: false });
  server = await startServer({ core, staticDir });
});
afterAll(async () => {
  await server.close();
  await core.close();
});

/** A raw request, so Host and Origin can be set freely (fetch forbids that). */
function raw(
  path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (opts.body) req.write(opts.body);
    req.end();
  });
}

const auth = (): Record<string, string> => ({ authorization: `Bearer ${server.token}` });

describe('web mode server', () => {
  it('binds to 127.0.0.1 only, with a long random token', () => {
    expect(server.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.token.length).toBeGreaterThanOrEqual(32);
    expect(server.url).toBe(`${server.origin}/?token=${server.token}`);
  });

  it('answers 401 without the token, for pages and for the API', async () => {
    expect((await raw('/')).status).toBe(401);
    expect((await raw('/assets/app.js')).status).toBe(401);
    expect((await raw('/api/app.info', { method: 'POST', body: '{}' })).status).toBe(401);
    expect((await raw('/?token=wrong')).status).toBe(401);
  });

  it('serves the app with the token, sets an HttpOnly cookie and a CSP', async () => {
    const res = await raw(`/?token=${server.token}`);
    expect(res.status).toBe(200);
    expect(res.body).toContain('Sailor Lab');
    expect(String(res.headers['set-cookie'])).toMatch(/sailor_token=.+; HttpOnly; SameSite=Strict/);
    expect(String(res.headers['content-security-policy'])).toContain("default-src 'self'");
    const cookie = String(res.headers['set-cookie']).split(';')[0]!;
    expect((await raw('/assets/app.js', { headers: { cookie } })).status).toBe(200);
    expect((await raw('/assets/missing.js', { headers: { cookie } })).status).toBe(404);
    expect((await raw('/some/route', { headers: { cookie } })).body).toContain('Sailor Lab');
  });

  it('refuses other Hosts (DNS rebinding) and cross-site Origins', async () => {
    expect((await raw(`/?token=${server.token}`, { headers: { host: `evil.example:${server.port}` } })).status).toBe(403);
    const res = await raw('/api/app.info', { method: 'POST', body: '{}', headers: { ...auth(), origin: 'http://evil.example' } });
    expect(res.status).toBe(403);
  });

  it('does not serve files outside the app folder', async () => {
    const res = await raw('/..%2f..%2fdb.json', { headers: auth() });
    expect([403, 404]).toContain(res.status);
    expect(res.body).not.toContain('sailor.store');
  });

  it('runs contract calls and reports validation errors with their field', async () => {
    const ok = await raw('/api/app.info', { method: 'POST', headers: auth(), body: '{}' });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ ok: true, result: { name: 'Sailor Lab' } });
    const bad = await raw('/api/jobs.stream', { method: 'POST', headers: auth(), body: '{"id": 5}' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.message).toContain('id:');
    const notJson = await raw('/api/app.info', { method: 'POST', headers: auth(), body: '{' });
    expect(notJson.status).toBe(400);
    expect((await raw('/api/nope', { method: 'POST', headers: auth(), body: '{}' })).status).toBe(400);
    expect((await raw('/api/app.info', { method: 'GET', headers: auth() })).status).toBe(405);
    expect((await raw('/api/jobs.get', { method: 'POST', headers: auth(), body: '{"id":"x"}' })).status).toBe(404);
  });

  it('streams events over an authenticated WebSocket and refuses one without the token', async () => {
    const refused = new WebSocket(`ws://127.0.0.1:${server.port}/events`);
    const refusal = await new Promise<string>((resolve) => {
      refused.on('error', (e) => resolve(e.message));
      refused.on('open', () => resolve('opened'));
    });
    expect(refusal).toContain('401');

    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/events?token=${server.token}`);
    await new Promise((resolve, reject) => {
      ws.on('open', resolve);
      ws.on('error', reject);
    });
    const events: Array<{ event: string; payload: { status: string } }> = [];
    ws.on('message', (m) => events.push(JSON.parse(String(m)) as (typeof events)[number]));
    await raw('/api/jobs.start', { method: 'POST', headers: auth(), body: JSON.stringify({ kind: 'demo', params: { records: 3, intervalMs: 10 } }) });
    const deadline = Date.now() + 120_000; // a worker starting on a loaded machine
    while (!events.some((e) => e.payload.status === 'succeeded') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    ws.close();
    expect(events[0]?.event).toBe('job.updated');
    expect(events.map((e) => e.payload.status)).toContain('succeeded');
  });

  it('survives requests it cannot parse: a bad request line before authentication, bad percent-encoding after it', async () => {
    // Raw bytes: node's client would refuse to send these. Each gets its answer and the server stays up.
    const rawLine = (line: string): Promise<string> => rawRequest(`${line}\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${server.token}\r\n\r\n`);
    expect(await rawLine('GET //[ HTTP/1.1')).toMatch(/^HTTP\/1\.1 400/);
    expect(await rawLine('GET /%ff HTTP/1.1')).toMatch(/^HTTP\/1\.1 400/);
    expect(await rawLine('GET /assets/%E0%A4%A HTTP/1.1')).toMatch(/^HTTP\/1\.1 400/);
    expect((await raw('/api/app.info', { method: 'POST', body: '{}', headers: auth() })).status).toBe(200);
  });

  it('closes a WebSocket that sends bad frames (oversize, unmasked, a reserved opcode) and stays up', async () => {
    const frames = [
      Buffer.concat([Buffer.from([0x81, 0xff, 0, 0, 0, 0, 0, 2, 0, 0, 1, 2, 3, 4]), Buffer.alloc(131072)]), // 128 KiB text frame, over the 64 KiB limit
      Buffer.from([0x81, 0x02, 0x68, 0x69]), // unmasked client frame
      Buffer.from([0x83, 0x80, 1, 2, 3, 4]), // reserved opcode 3
      maskedFrame(0x81, Buffer.from([0xc3, 0x28])), // text frame with invalid UTF-8
    ];
    for (const frame of frames) {
      const ws = new WebSocket(`ws://127.0.0.1:${server.port}/events?token=${server.token}`);
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
      ws.on('error', () => {}); // the server's close is the expected outcome
      (ws as unknown as { _socket: { write(b: Buffer): void } })._socket.write(frame);
      await closed;
    }
    expect((await raw('/api/app.info', { method: 'POST', body: '{}', headers: auth() })).status).toBe(200);
  });

  it('answers a body over the limit with 413, whether declared up front or found while reading', async () => {
    const big = 'x'.repeat((1 << 20) + 10);
    const streamed = await raw('/api/app.info', { method: 'POST', headers: auth(), body: `"${big}"` });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).error.message).toContain('over 1048576 bytes');
    const declared = await rawRequest(`POST /api/app.info HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${server.token}\r\nContent-Length: 999999999\r\n\r\n{}`);
    expect(declared).toMatch(/^HTTP\/1\.1 413/);
    expect((await raw('/api/app.info', { method: 'POST', body: '{}', headers: auth() })).status).toBe(200);
  });

  it('refuses a request line that does not parse with any Host, before authentication', async () => {
    expect(await rawRequest('GET //[ HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 4\d\d/);
    expect(await rawRequest('GET //[ HTTP/1.1\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 4\d\d/);
    expect(await rawRequest(`GET //[ HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400/);
    expect(await rawRequest(`GET /%ff HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nCookie: sailor_token=${server.token}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400/);
    expect((await raw('/api/app.info', { method: 'POST', body: '{}', headers: auth() })).status).toBe(200);
  });

  it('treats prototype names as unknown methods and job kinds (400, not 500)', async () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const method = await raw(`/api/${name}`, { method: 'POST', headers: auth(), body: '{}' });
      expect(method.status, name).toBe(400);
      expect(JSON.parse(method.body).error.message).toContain('unknown method');
      const job = await raw('/api/jobs.start', { method: 'POST', headers: auth(), body: JSON.stringify({ kind: name, params: {} }) });
      expect(job.status, name).toBe(400);
    }
  });
});

/** True once `got` holds a whole HTTP response: its headers and as many body bytes as its Content-Length says. */
function wholeResponse(got: string): boolean {
  const end = got.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const length = /\r\ncontent-length: *(\d+)/i.exec(got.slice(0, end));
  return Buffer.byteLength(got.slice(end + 4)) >= Number(length?.[1] ?? 0);
}

/**
 * Writes `text` on a fresh socket and returns what the server sent: once a whole response is in, or the server
 * closed (no wall-clock wait: a loaded machine answers late). 60 s bounds a hang.
 */
function rawRequest(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(server.port, '127.0.0.1', () => sock.write(text));
    let got = '';
    const done = (): void => {
      clearTimeout(timer);
      sock.destroy();
      resolve(got);
    };
    const timer = setTimeout(done, 60_000);
    sock.on('data', (c: Buffer) => {
      got += c.toString();
      if (wholeResponse(got)) done();
    });
    sock.on('close', done);
    sock.on('error', reject);
  });
}

/** A client frame (FIN set) with a zero mask, as the protocol requires of clients. */
function maskedFrame(firstByte: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([firstByte, 0x80 | payload.length, 0, 0, 0, 0]), payload]);
}
