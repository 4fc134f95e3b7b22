// Web mode: the same contract as the desktop app, over HTTP (POST /api/<method>) and a WebSocket
// (/events), bound to loopback only and guarded by a random token. The token arrives once in the URL
// the terminal prints; the server then keeps it in an HttpOnly SameSite=Strict cookie, so the page's
// assets, API calls and event socket all authenticate without exposing it to scripts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { Outbox } from './outbox';
import { EVENT_NAMES, wireErrorOf, type WireError } from '../contract';
import type { LabCore } from '../app/core';
import { boundedMessage, errorMessage, LabError, type ErrorCode } from '../base/errors';
import { jsonTextTooDeep, MAX_JSON_DEPTH } from '../util/json-shape';
import { CSP } from './csp';
import { bearerToken, MAX_BODY, readBody, sameToken, send, sendJson, STATUS_OF } from './http-util';

export { CSP };

export interface ServerOptions {
  core: LabCore;
  port?: number; // 0 = any free port
  token?: string;
  staticDir: string;
}

export interface RunningServer {
  url: string; // with the token
  origin: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

export const HOST = '127.0.0.1';
const COOKIE = 'sailor_token';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

function cookieToken(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === COOKIE) return v.join('=');
  }
  return undefined;
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const token = opts.token ?? randomBytes(24).toString('base64url');
  let origin = '';
  const allowedHosts = new Set<string>();

  /** Rejects requests for another Host (DNS rebinding) and cross-site Origins (CSRF). */
  function trusted(req: IncomingMessage): boolean {
    if (!allowedHosts.has(req.headers.host ?? '')) return false;
    const o = req.headers.origin;
    return o === undefined || o === origin || o === origin.replace(HOST, 'localhost');
  }

  function authorised(req: IncomingMessage, url: URL): boolean {
    return sameToken(url.searchParams.get('token') ?? undefined, token) || sameToken(cookieToken(req), token) || sameToken(bearerToken(req), token);
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    if (req.method !== 'POST') {
      send(res, 405, 'use POST', 'text/plain; charset=utf-8', { allow: 'POST' });
      return;
    }
    try {
      const body = await readBody(req);
      if ('tooLarge' in body) {
        const error: WireError = { code: 'bad_request', message: `${method}: the request body is over ${MAX_BODY} bytes` };
        res.setHeader('connection', 'close');
        sendJson(res, 413, { ok: false, error });
        return;
      }
      const text = body.text;
      let params: unknown = {};
      if (text.trim() !== '') {
        if (jsonTextTooDeep(text)) throw new LabError('bad_request', `${method}: the request body nests deeper than ${MAX_JSON_DEPTH} levels`);
        try {
          params = JSON.parse(text);
        } catch {
          throw new LabError('bad_request', `${method}: the request body is not valid JSON`);
        }
      }
      const result = await opts.core.call(method, params);
      sendJson(res, 200, { ok: true, result: result ?? null });
    } catch (err) {
      const code: ErrorCode = err instanceof LabError ? err.code : 'internal';
      const error: WireError = wireErrorOf(code, boundedMessage(errorMessage(err)), err instanceof LabError ? err.details : undefined);
      sendJson(res, STATUS_OF[code], { ok: false, error });
    }
  }

  function serveStatic(res: ServerResponse, pathname: string, setCookie: boolean): void {
    const indexFile = join(opts.staticDir, 'index.html');
    if (!existsSync(indexFile)) {
      send(res, 503, "Sailor Lab's web app is not built yet: run `npm run build` (npm start does it for you).\n", 'text/plain; charset=utf-8');
      return;
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      send(res, 400, 'bad request: the path has invalid percent-encoding', 'text/plain; charset=utf-8');
      return;
    }
    const rel = normalize(decoded).replace(/^([/\\])+/, '');
    let file = join(opts.staticDir, rel);
    if (!file.startsWith(opts.staticDir + sep) && file !== opts.staticDir) {
      send(res, 403, 'forbidden', 'text/plain; charset=utf-8');
      return;
    }
    if (!existsSync(file) || statSync(file).isDirectory()) {
      // Unknown paths without an extension are app routes: serve the app; missing assets are 404s.
      if (extname(rel) !== '') {
        send(res, 404, 'not found', 'text/plain; charset=utf-8');
        return;
      }
      file = indexFile;
    }
    const headers: Record<string, string> = { 'content-security-policy': CSP, 'x-frame-options': 'DENY' };
    if (setCookie) headers['set-cookie'] = `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
    send(res, 200, readFileSync(file), CONTENT_TYPES[extname(file)] ?? 'application/octet-stream', headers);
  }

  /**
   * The request's URL, or null when its request line does not parse (a 400, never a crash). Only a path
   * (`/…`) or an absolute URL is a request target here: `*` and bare words would resolve to app routes.
   */
  const parseUrl = (req: IncomingMessage): URL | null => {
    const target = req.url ?? '/';
    if (!target.startsWith('/') && !/^https?:\/\//i.test(target)) return null;
    try {
      return new URL(target, origin || `http://${HOST}`);
    } catch {
      return null;
    }
  };

  const server: Server = createServer((req, res) => {
    try {
      route(req, res);
    } catch (err) {
      // Nothing a client sends may take the process (and the jobs running in it) down.
      if (!res.headersSent) sendJson(res, 500, { ok: false, error: { code: 'internal', message: errorMessage(err) } satisfies WireError });
      else res.destroy();
    }
  });

  function route(req: IncomingMessage, res: ServerResponse): void {
    if (!trusted(req)) {
      send(res, 403, 'forbidden: wrong Host or Origin', 'text/plain; charset=utf-8');
      return;
    }
    const url = parseUrl(req);
    if (!url) {
      send(res, 400, 'bad request: the request line does not parse as a URL', 'text/plain; charset=utf-8');
      return;
    }
    if (!authorised(req, url)) {
      send(res, 401, 'Sailor Lab needs its token: open the URL that `sailor serve` printed (it ends in ?token=…).\n', 'text/plain; charset=utf-8', {
        'www-authenticate': 'Bearer',
      });
      return;
    }
    if (url.pathname.startsWith('/api/')) {
      // handleApi answers its own errors; this catches one thrown while answering (the client gone, say).
      handleApi(req, res, url.pathname.slice('/api/'.length)).catch(() => res.destroy());
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'method not allowed', 'text/plain; charset=utf-8');
      return;
    }
    serveStatic(res, url.pathname, url.searchParams.has('token'));
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const sockets = new Set<WebSocket>();
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy()); // a broken upgrade closes that socket only
    const url = parseUrl(req);
    if (!url || url.pathname !== '/events' || !trusted(req) || !authorised(req, url)) {
      socket.write('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      // A bad frame (over maxPayload, unmasked, a reserved opcode, invalid UTF-8): ws has closed the socket
      // with the matching code; without a listener the error would be thrown and end the process.
      ws.on('error', () => ws.terminate());
    });
  });
  // Each subscriber's events go out as its socket takes them; a slow one's wait coalesced, a hopeless one closed.
  const outboxes = new WeakMap<WebSocket, Outbox>();
  const deliver = (ws: WebSocket, texts: string[] | 'hopeless'): void => {
    if (texts === 'hopeless') ws.terminate();
    else for (const text of texts) ws.send(text);
  };
  const unsubscribe = EVENT_NAMES.map((event) =>
    opts.core.on(event, (payload) => {
      for (const ws of sockets) {
        if (ws.readyState !== ws.OPEN) continue;
        let box = outboxes.get(ws);
        if (!box) outboxes.set(ws, (box = new Outbox()));
        deliver(ws, box.offer(event, payload, ws.bufferedAmount));
      }
    }),
  );
  const flusher = setInterval(() => {
    for (const ws of sockets) {
      const box = outboxes.get(ws);
      if (box?.waiting && ws.readyState === ws.OPEN) deliver(ws, box.flush(ws.bufferedAmount));
    }
  }, 250);
  flusher.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, HOST, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  origin = `http://${HOST}:${port}`;
  allowedHosts.add(`${HOST}:${port}`).add(`localhost:${port}`);

  return {
    url: `${origin}/?token=${token}`,
    origin,
    port,
    token,
    close: async () => {
      unsubscribe.forEach((off) => off());
      clearInterval(flusher);
      for (const ws of sockets) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
