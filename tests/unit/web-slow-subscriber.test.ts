// Web mode with a WebSocket subscriber that never reads (issue #44, item 9), on a real loopback server: while a
// followed verl run streams metrics, the silent subscriber is closed once what waits for it passes the outbox's
// limit, and a subscriber that reads gets every record. bench/speed/ws-slow-subscriber.ts measures the server's RSS
// over a minute of this.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { LabCore } from '../../main/lab/app/core';
import { startServer, type RunningServer } from '../../main/lab/server/http';
import { metricsLine, writeVerlRunFiles } from '../e2e/verl-fixture';

let dir: string;
let core: LabCore;
let server: RunningServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sailor-slowsub-'));
  const staticDir = join(dir, 'static');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Sailor Lab</title>');
  core = await LabCore.open({ home: join(dir, 'home'), detectBackend: false });
  server = await startServer({ core, staticDir });
});
afterAll(async () => {
  await server.close();
  await core.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A WebSocket upgrade on a raw socket that then reads nothing (its stream paused once the server said 101). */
function silentSubscriber(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const sock = connect(server.port, '127.0.0.1', () =>
      sock.write(
        `GET /events?token=${server.token} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ),
    );
    sock.once('data', (chunk: Buffer) => {
      sock.pause();
      if (chunk.toString('latin1').startsWith('HTTP/1.1 101')) resolve(sock);
      else reject(new Error(chunk.toString('latin1').split('\r\n')[0]));
    });
    sock.on('error', () => undefined); // a reset after the server closes it is the expected end
  });
}

/** Resolves when `check` holds, polled every 50 ms; rejects with `what` after `limitMs` (generous: a loaded machine). */
async function until(check: () => boolean, what: string, limitMs = 120_000): Promise<void> {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > limitMs) throw new Error(`after ${limitMs / 1000} s: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a WebSocket subscriber that never reads', () => {
  it('is closed once its backlog passes the limit, while one that reads receives every record', { timeout: 600_000 }, async () => {
    const verl = writeVerlRunFiles(join(dir, 'verl'), 1);
    const silent = await silentSubscriber();
    const reader = new WebSocket(`ws://127.0.0.1:${server.port}/events?token=${server.token}`);
    await new Promise((resolve, reject) => (reader.once('open', resolve), reader.once('error', reject)));
    let records = 0;
    let bytes = 0;
    reader.on('message', (m) => {
      bytes += String(m).length;
      const e = JSON.parse(String(m)) as { event: string; payload: { records?: unknown[] } };
      if (e.event === 'run.metrics') records += e.payload.records?.length ?? 0;
    });
    await core.call('runs.importVerl', { metrics: verl.metrics, follow: true });

    // About 16 MB of metric events in rounds of 3000 lines, each taken whole by the reader before the next:
    // well over what the loopback's socket buffers (about 4 MB here) and the outbox's 1 + 4 MiB hold.
    let step = 2;
    for (let round = 0; round < 12; round++) {
      let text = '';
      const end = step + 3000;
      while (step < end) text += metricsLine(step++);
      appendFileSync(verl.metrics, text);
      await until(() => records === step - 2, `the reading subscriber has ${records} of ${step - 2} records`);
    }
    expect(records).toBe(step - 2);

    // What reached the silent one's socket, read now: the server closed it after far less than the reader got.
    let silentBytes = 0;
    let closed = false;
    silent.on('data', (c: Buffer) => (silentBytes += c.length));
    silent.on('close', () => (closed = true));
    silent.resume();
    await until(() => closed, `the silent subscriber is still open after ${silentBytes} bytes (the reader got ${bytes})`);
    expect(silentBytes).toBeLessThan(bytes / 2);
    reader.close();
  });
});
