// The renderer's stores against a real lab: a LabCore behind the real web server on a loopback port, and
// the browser globals the web transport (renderer/src/api/web.ts) and the stores reach for. The token goes
// on every request and on the event socket, as the browser's HttpOnly cookie would carry it; everything
// else (HTTP calls, the WebSocket event stream, the stores' reactions) is the code the app runs.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { LabCore } from '../../main/lab/app/core';
import { startServer, type RunningServer } from '../../main/lab/server/http';

export interface UiLab {
  core: LabCore;
  server: RunningServer;
  close(): Promise<void>;
}

/** localStorage as the runs store uses it (settings only). */
class MemoryStorage {
  private readonly items = new Map<string, string>();
  getItem(k: string): string | null {
    return this.items.get(k) ?? null;
  }

  setItem(k: string, v: string): void {
    this.items.set(k, String(v));
  }

  removeItem(k: string): void {
    this.items.delete(k);
  }
}

/** The event sockets the renderer's transport opened: events sent before one is open are not seen. */
const sockets: WebSocket[] = [];
export const eventsOpen = (): boolean => sockets.some((s) => s.readyState === WebSocket.OPEN);

function installBrowserGlobals(server: RunningServer): void {
  const g = globalThis as Record<string, unknown>;
  g.window = {
    location: { origin: server.origin, hash: '', search: '', pathname: '/' },
    addEventListener: () => undefined,
    history: { replaceState: () => undefined },
  };
  g.localStorage = new MemoryStorage();
  // The browser's WebSocket, with the token the cookie would carry; a refused reconnect after the server
  // has stopped must not end the test process (ws throws an 'error' nobody listens to).
  g.WebSocket = class extends WebSocket {
    constructor(url: string) {
      super(`${url}?token=${server.token}`);
      this.on('error', () => undefined);
      sockets.push(this);
    }
  };
  const plain = globalThis.fetch;
  globalThis.fetch = (input, init = {}) => plain(input, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${server.token}` } });
}

export async function startUiLab(): Promise<UiLab> {
  const home = mkdtempSync(join(tmpdir(), 'sailor-ui-'));
  const core = await LabCore.open({ home, detectBackend: false });
  const server = await startServer({ core, staticDir: join(home, 'static') });
  installBrowserGlobals(server);
  return {
    core,
    server,
    close: async () => {
      await server.close();
      await core.close();
    },
  };
}

/** Waits for a condition the lab reaches by itself (a job finishing, an event arriving). */
export async function until<T>(what: string, probe: () => T | null | undefined | false, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
