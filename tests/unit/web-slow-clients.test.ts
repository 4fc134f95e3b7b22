// `sailor web serve` against slow clients (issue #44, item 5), with real sockets on a real loopback service:
// clients that send headers and part of a body no longer hold the in-flight slots, their requests end with 408
// once the request timeout passes, a client stuck in its headers is cut off, and a keep-alive connection past its
// time is told to close. The limits are shortened here; SLOW_CLIENT_LIMITS in web-service.ts holds the service's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { startWebService, type RunningWebService } from '../../main/lab/server/web-service';
import { SimWeb } from '../../main/lab/agent/web';
import { fixtureGraph } from '../support/fixture-graph';

const web = new SimWeb(fixtureGraph({ seed: 4, countries: 12 }));
let service: RunningWebService;
const LIMITS = { headersMs: 1500, requestMs: 2500, checkEveryMs: 250, connectionMs: 2000 };
beforeAll(async () => {
  service = await startWebService({ web, port: 0, limits: LIMITS });
});
afterAll(async () => service.close());

interface RawClient {
  socket: Socket;
  received: () => string;
  closed: Promise<number>;
}

/** A socket to the service that writes `text` and keeps what comes back; `closed` resolves to ms until it closed. */
async function raw(text: string): Promise<RawClient> {
  const socket = connect(service.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const t0 = Date.now();
  let got = '';
  socket.on('data', (c: Buffer) => (got += c.toString()));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - t0)));
  socket.write(text);
  return { socket, received: () => got, closed };
}

const BODY = JSON.stringify({ queries: ['country'], topk: 2 });
const request = (body: string, declared = Buffer.byteLength(body)): string =>
  `POST /retrieve HTTP/1.1\r\nHost: 127.0.0.1:${service.port}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n${body}`;
const retrieve = (): Promise<Response> => fetch(`${service.origin}/retrieve`, { method: 'POST', body: BODY });

/** Resolves within `ms` or rejects saying what was awaited. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms))]);
}

describe('web serve: slow clients', () => {
  it('20 clients holding headers and part of a body leave the service answering others; each gets 408 and is closed', async () => {
    const slow = await Promise.all(Array.from({ length: 20 }, () => raw(request('{"queries": ["coun', 200))));
    // The partial requests reach the service in their own time (a loaded machine): ask several times meanwhile.
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 150));
      const r = await retrieve();
      expect(r.status, await r.text()).toBe(200);
    }
    // A generous limit for a loaded machine: the request timeout (2.5 s), checked every 250 ms.
    const ms = await within(Promise.all(slow.map((c) => c.closed)), 30_000, 'the slow clients closed');
    for (const c of slow) expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(Math.max(...ms)).toBeGreaterThanOrEqual(LIMITS.requestMs - 100);
  }, 60_000);

  it('a client that never finishes its headers is cut off after the headers timeout', async () => {
    const c = await raw(`POST /retrieve HTTP/1.1\r\nHost: 127.0.0.1:${service.port}\r\nContent-Ty`);
    const ms = await within(c.closed, 30_000, 'the client stuck in its headers closed');
    expect(ms).toBeGreaterThanOrEqual(LIMITS.headersMs - 100);
    expect(c.received()).toMatch(/^(HTTP\/1\.1 408 |$)/);
  }, 40_000);

  it('a keep-alive connection past its time gets its answer with Connection: close, then is closed', async () => {
    const c = await raw(request(BODY));
    await within(new Promise<void>((resolve) => {
      const t = setInterval(() => c.received().includes('"result"') && (clearInterval(t), resolve()), 20);
    }), 20_000, 'the first answer');
    expect(c.received()).toMatch(/^HTTP\/1\.1 200 [^]*connection: keep-alive/i);
    const first = c.received().length;
    await new Promise((r) => setTimeout(r, LIMITS.connectionMs + 200));
    c.socket.write(request(BODY));
    await within(c.closed, 20_000, 'the connection closed after its second answer');
    const second = c.received().slice(first);
    expect(second).toMatch(/^HTTP\/1\.1 200 [^]*connection: close[^]*"result"/i);
  }, 60_000);
});
