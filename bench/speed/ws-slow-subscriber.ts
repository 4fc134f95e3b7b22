// Web mode's memory with a WebSocket subscriber that never reads (issue #44, item 9): the real `sailor serve` in a
// child process follows a verl run (`runs.importVerl` with follow) whose metrics file this script appends to at
// `--rate` lines a second for `--seconds`, so the server streams `run.metrics` events all along. Two subscribers:
// a raw socket that upgrades and then never reads (its stream paused: the kernel's buffers fill, then the
// server's), and a `ws` client that reads everything. The server's RSS (/proc/<pid>/status) is sampled every
// 250 ms; prints start / peak / end, what the fast subscriber received, and whether the server closed the slow one
// (read after the stream stops). The target: the peak within 100 MB of the start. `--silent 0` is the control:
// the same stream with only the reading subscriber.
// Run: npx tsx bench/speed/ws-slow-subscriber.ts [--seconds 60] [--rate 2000] [--silent 1] [--json]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { metricsLine, writeVerlRunFiles } from '../../tests/e2e/verl-fixture';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '60' }, rate: { type: 'string', default: '2000' }, silent: { type: 'string', default: '1' }, json: { type: 'boolean', default: false } } });
const seconds = Number(values.seconds);
const rate = Number(values.rate);
const silentCount = Number(values.silent);
const log = (...xs: unknown[]): void => console.error(...xs);
const MB = 1e6;
const load = (): string => loadavg().map((x) => x.toFixed(1)).join(' ');

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** A WebSocket upgrade on a raw socket that then reads nothing: resolves once the server answered 101. */
function slowSubscriber(port: number, token: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1', () => {
      sock.write(
        `GET /events?token=${token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
    sock.once('data', (chunk: Buffer) => {
      if (!chunk.toString('latin1').startsWith('HTTP/1.1 101')) reject(new Error(`upgrade refused: ${chunk.toString('latin1').split('\r\n')[0]}`));
      sock.pause(); // from here on nothing is read
      resolve(sock);
    });
    sock.on('error', reject);
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-ws-'));
  const home = join(dir, 'home');
  const verl = writeVerlRunFiles(join(dir, 'verl'), 1);
  const token = randomBytes(24).toString('hex');
  const child = spawn(process.execPath, ['bin/sailor.mjs', 'serve', '--home', home, '--port', '0', '--token', token], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const origin = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /web mode: (http:\/\/[^/\s]+)\//.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`sailor serve exited ${code}`)));
    });
    const port = Number(new URL(origin).port);
    const pid = child.pid!;
    const api = async (method: string, params: unknown): Promise<unknown> => {
      const res = await fetch(`${origin}/api/${method}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify(params) });
      const body = (await res.json()) as { ok: boolean; result: unknown; error?: { message: string } };
      if (!body.ok) throw new Error(`${method}: ${body.error?.message}`);
      return body.result;
    };

    const slows = await Promise.all(Array.from({ length: silentCount }, () => slowSubscriber(port, token)));
    let slowClosed = 0;
    for (const slow of slows) {
      slow.on('close', () => slowClosed++);
      slow.on('error', () => undefined);
    }
    const fast = new WebSocket(`ws://127.0.0.1:${port}/events?token=${token}`);
    await new Promise((resolve, reject) => (fast.once('open', resolve), fast.once('error', reject)));
    const got = { events: 0, records: 0, bytes: 0 };
    fast.on('message', (m) => {
      const text = String(m);
      got.events++;
      got.bytes += text.length;
      const e = JSON.parse(text) as { event: string; payload: { records?: unknown[] } };
      if (e.event === 'run.metrics') got.records += e.payload.records?.length ?? 0;
    });
    await api('runs.importVerl', { metrics: verl.metrics, follow: true });

    const start = rssBytes(pid);
    let peak = start;
    const loadBefore = load();
    log(`server pid ${pid}: RSS at start ${(start / MB).toFixed(1)} MB (load ${loadBefore}); appending ${rate} metric lines/s for ${seconds} s`);
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 250);
    let step = 2;
    const t0 = performance.now();
    // Lines go in every 50 ms, as many as the rate asks for by then (a loaded machine's late ticks catch up).
    while (performance.now() - t0 < seconds * 1000) {
      const due = Math.floor(((performance.now() - t0) / 1000) * rate) + 2;
      let text = '';
      for (; step < due; step++) text += metricsLine(step);
      if (text) appendFileSync(verl.metrics, text);
      await new Promise((r) => setTimeout(r, 50));
    }
    const appended = step - 2;
    // Let the follower read the tail and the fast subscriber take it.
    const settle = performance.now();
    while (got.records < appended && performance.now() - settle < 30_000) await new Promise((r) => setTimeout(r, 100));
    clearInterval(sampler);
    const end = rssBytes(pid);
    peak = Math.max(peak, end);
    // Now read what the slow subscriber was sent: a closed one ends after its buffered bytes.
    let slowBytes = 0;
    for (const slow of slows) {
      slow.on('data', (c: Buffer) => (slowBytes += c.length));
      slow.resume();
    }
    const drain = performance.now();
    while (slowClosed < slows.length && performance.now() - drain < 10_000) await new Promise((r) => setTimeout(r, 100));
    fast.close();
    for (const slow of slows) slow.destroy();

    const result = {
      seconds,
      rate,
      appendedLines: appended,
      rssMB: { start: +(start / MB).toFixed(1), peak: +(peak / MB).toFixed(1), end: +(end / MB).toFixed(1), peakOverStart: +((peak - start) / MB).toFixed(1) },
      fast: { events: got.events, records: got.records, MB: +(got.bytes / MB).toFixed(1) },
      silent: { count: slows.length, closedByServer: slowClosed, MBDelivered: +(slowBytes / MB).toFixed(1) },
      load: `${loadBefore} -> ${load()}`,
      target: 'peak within 100 MB of start',
      holds: peak - start <= 100 * MB,
    };
    if (values.json) console.log(JSON.stringify(result));
    else {
      console.log(`server RSS: start ${result.rssMB.start} MB, peak ${result.rssMB.peak} MB (+${result.rssMB.peakOverStart}), end ${result.rssMB.end} MB: ${result.holds ? 'within' : 'NOT within'} 100 MB of the start`);
      console.log(`fast subscriber: ${got.records} of ${appended} metric records in ${got.events} events (${result.fast.MB} MB)`);
      console.log(`silent subscribers: ${slowClosed} of ${slows.length} closed by the server; ${result.silent.MBDelivered} MB had reached their sockets`);
      console.log(`load average: ${result.load}`);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
