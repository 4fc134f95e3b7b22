// `sailor web serve`: the simulated web as a headless HTTP service for trainers on other machines (verl).
// POST /retrieve speaks Search-R1's retriever protocol (verl <= 0.7.1's SearchTool) and ASearcher's;
// POST /access returns whole pages; POST /search and /visit return the observations the lab's own agent
// reads (SimWeb.search and SimWeb.visit), so a policy trained elsewhere sees the lab's tools byte for byte.
// Loopback needs no key (verl's SearchTool sends none); any other address needs the bearer key.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { SimWeb } from '../agent/web';
import { accessPages, pageContents, retrieve } from '../agent/retrieval';
import { boundedMessage, errorMessage, LabError, type ErrorCode } from '../base/errors';
import { jsonTextTooDeep, MAX_JSON_DEPTH } from '../util/json-shape';
import { describeValue, isObj, type Obj } from '../util/fields';
import { bearerToken, MAX_BODY, readBody, sameToken, send, sendJson, STATUS_OF } from './http-util';

export interface WebServiceOptions {
  web: SimWeb;
  host?: string; // default 127.0.0.1
  port?: number; // 0 = any free port
  /** Required unless the host is loopback; requests then need `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Limits on slow clients and requests in flight (SLOW_CLIENT_LIMITS, SERVICE_LIMITS by default; tests shorten them). */
  limits?: Partial<typeof SLOW_CLIENT_LIMITS> & { maxInFlight?: number };
}

export interface RunningWebService {
  origin: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Per-request caps: a trainer batches, but one request must not hold the event loop for long nor make an answer
 * many times its size (512 queries x topk 100 was a 33 MB answer that blocked the service for a second).
 * `maxResults` bounds queries x topk, `maxResponseBytes` any answer, `maxInFlight` the requests read or answered
 * at once (the rest are told 503 at once, with Retry-After, rather than held in memory).
 */
export const SERVICE_LIMITS = { maxQueries: 512, maxTopk: 100, maxUrls: 512, maxQueryChars: 4096, maxResults: 4096, maxResponseBytes: 8 << 20, maxInFlight: 16 };

/**
 * What a slow client may hold: its headers must be in within `headersMs` and its whole request within `requestMs`
 * (Node answers 408 and closes), a socket with no traffic either way for `idleMs` is closed (a client that never
 * reads its answer), a connection is told to close after its first answer past `connectionMs`, and at most
 * `maxConnections` are open at once. A request counts against maxInFlight only once its body is in, so clients
 * that send headers and part of a body cannot take every slot.
 */
export const SLOW_CLIENT_LIMITS = { headersMs: 10_000, requestMs: 30_000, idleMs: 30_000, connectionMs: 5 * 60_000, maxConnections: 256, checkEveryMs: 1000 };

/** A request over a per-request cap: 413, naming the cap. */
function overCap(route: string, message: string): LabError {
  return new LabError('bad_request', `${route}: ${message}`, { status: 413 });
}

/** The least a bearer key must have: a key guessed in a few tries guards nothing on 0.0.0.0. */
export const KEY_RULES = { minLength: 16, minDistinct: 8, minBits: 64 };

/**
 * What is wrong with a bearer key, or null: blank, shorter than 16 characters, or too predictable (fewer than 8
 * distinct characters, or under 64 bits by length x log2(distinct characters), the most a key so made can hold).
 */
export function weakKeyReason(key: string): string | null {
  if (key.trim() === '') return 'it is blank';
  if (key.length < KEY_RULES.minLength) return `it has ${key.length} characters; use at least ${KEY_RULES.minLength}`;
  const distinct = new Set(key).size;
  if (distinct < KEY_RULES.minDistinct || key.length * Math.log2(distinct) < KEY_RULES.minBits) return `it is too predictable (${distinct} distinct characters); use a random one, such as the key printed when none is set`;
  return null;
}

export const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

export const isLoopback = (host: string): boolean => LOOPBACK_HOSTS.has(host) || host.startsWith('127.');

function badField(route: string, field: string, message: string): LabError {
  return new LabError('bad_request', `${route}: ${field}: ${message}`);
}

/** A list of strings (one string is a list of one, as the lab's tools accept); empty strings are allowed. */
function stringList(route: string, body: Obj, field: string, max: number, single = true): string[] {
  const v = body[field];
  const list = single && typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list)) throw badField(route, field, `expected a list of strings, got ${describeValue(v)}`);
  if (list.length > max) throw badField(route, field, `at most ${max} per request, got ${list.length}`);
  list.forEach((x, i) => {
    if (typeof x !== 'string') throw badField(route, `${field}[${i}]`, `expected a string, got ${describeValue(x)}`);
    if (x.length > SERVICE_LIMITS.maxQueryChars) throw badField(route, `${field}[${i}]`, `over ${SERVICE_LIMITS.maxQueryChars} characters`);
  });
  return list as string[];
}

function optionalInt(route: string, body: Obj, field: string, fallback: number, min: number, max: number): number {
  const v = body[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw badField(route, field, `expected a whole number from ${min} to ${max}, got ${describeValue(v)}`);
  return v;
}

function optionalBool(route: string, body: Obj, field: string, fallback: boolean): boolean {
  const v = body[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') throw badField(route, field, `expected true or false, got ${describeValue(v)}`);
  return v;
}

/** One route's answer for a parsed JSON body; throws LabError('bad_request') naming the field. */
export type RouteHandler = (web: SimWeb, body: Obj) => unknown;

export const ROUTES: Record<string, RouteHandler> = {
  '/retrieve': (web, body) => {
    const queries = stringList('/retrieve', body, 'queries', SERVICE_LIMITS.maxQueries, false);
    const topk = optionalInt('/retrieve', body, 'topk', 3, 1, SERVICE_LIMITS.maxTopk);
    if (queries.length * topk > SERVICE_LIMITS.maxResults) {
      throw overCap('/retrieve', `queries x topk = ${queries.length} x ${topk} = ${queries.length * topk}, over the ${SERVICE_LIMITS.maxResults} results one request may ask for: send fewer queries per request`);
    }
    const withScores = optionalBool('/retrieve', body, 'return_scores', false);
    return {
      result: queries.map((q) =>
        retrieve(web, q, topk).map(({ page, score }) =>
          withScores ? { document: { id: page.nodeId, contents: pageContents(page) }, score } : { contents: pageContents(page), url: page.url },
        ),
      ),
    };
  },
  '/access': (web, body) => ({ result: accessPages(web, stringList('/access', body, 'urls', SERVICE_LIMITS.maxUrls)) }),
  '/search': (web, body) => ({ result: web.search(stringList('/search', body, 'query', SERVICE_LIMITS.maxQueries)) }),
  '/visit': (web, body) => {
    const urls = stringList('/visit', body, 'url', SERVICE_LIMITS.maxUrls);
    const goal = body.goal;
    if (typeof goal !== 'string') throw badField('/visit', 'goal', `expected a string saying what to look for, got ${describeValue(goal)}`);
    return { result: web.visit(urls, goal) };
  },
};

/**
 * A Host header naming an IP address or localhost, with an optional port: what a client of a loopback service
 * sends (verl's retrieval_service_url is http://127.0.0.1:8000/retrieve, others write localhost or 0.0.0.0).
 * A DNS name is refused: a page that rebinds its own name to 127.0.0.1 would send that name.
 */
export function unforgeableHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.replace(/:\d+$/, '');
  return name === 'localhost' || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(name) || /^\[[0-9a-f:.]+\]$/i.test(name);
}

function sendError(res: ServerResponse, code: ErrorCode, message: string, status = STATUS_OF[code], headers: Record<string, string> = {}): void {
  send(res, status, JSON.stringify({ error: { code, message: boundedMessage(message) } }), 'application/json; charset=utf-8', headers);
}

/** A failed listen as a message the user can act on (a port in use, an address this machine does not have). */
export function listenError(err: NodeJS.ErrnoException, host: string, port: number): LabError {
  if (err.code === 'EADDRINUSE') return new LabError('bad_request', `port ${port} on ${host} is in use: pick another with --port`);
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return new LabError('bad_request', `cannot listen on '${host}': not an address of this machine`);
  if (err.code === 'EACCES') return new LabError('bad_request', `not allowed to listen on port ${port}: use a port above 1023`);
  return new LabError('internal', `cannot listen on ${host}:${port}: ${err.message}`);
}

/**
 * Who a lab HTTP service on `host` answers (the simulated web, a served policy): with a key, requests that
 * bear it; on loopback without one, requests with no browser Origin and a Host that no DNS rebinding can forge.
 * Refuses, before anything listens, a non-loopback host without a key and a weak key.
 */
export function serviceAccess(host: string, apiKey: string | undefined): (req: IncomingMessage) => boolean {
  if (!isLoopback(host) && !apiKey) throw new LabError('bad_request', `serving on ${host} (not loopback) needs an API key`);
  const weak = apiKey === undefined ? null : weakKeyReason(apiKey);
  if (weak) throw new LabError('bad_request', `the API key is too weak: ${weak}`);
  return (req) => (apiKey ? sameToken(bearerToken(req), apiKey) : req.headers.origin === undefined && unforgeableHost(req.headers.host));
}

export async function startWebService(opts: WebServiceOptions): Promise<RunningWebService> {
  const host = opts.host ?? '127.0.0.1';
  const trusted = serviceAccess(host, opts.apiKey);
  let inFlight = 0;

  async function answer(req: IncomingMessage, res: ServerResponse, route: string, handler: RouteHandler): Promise<void> {
    const body = await readBody(req);
    if ('tooLarge' in body) {
      res.setHeader('connection', 'close');
      sendError(res, 'bad_request', `${route}: the request body is over ${MAX_BODY} bytes`, 413);
      return;
    }
    // Counted from here, once the body is in, until the answer is sent or the client is gone.
    if (inFlight >= limits.maxInFlight) {
      res.setHeader('connection', 'close');
      sendError(res, 'busy', `${route}: ${inFlight} requests are in flight, the most this service takes at once (${limits.maxInFlight}): retry shortly`, 503, { 'retry-after': '1' });
      return;
    }
    inFlight++;
    res.once('close', () => inFlight--);
    if (jsonTextTooDeep(body.text)) {
      sendError(res, 'bad_request', `${route}: the request body nests deeper than ${MAX_JSON_DEPTH} levels`);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.text);
    } catch {
      sendError(res, 'bad_request', `${route}: the request body is not valid JSON`);
      return;
    }
    if (!isObj(parsed)) {
      sendError(res, 'bad_request', `${route}: the request body must be a JSON object, got ${describeValue(parsed)}`);
      return;
    }
    try {
      const text = JSON.stringify(handler(opts.web, parsed));
      if (text.length > SERVICE_LIMITS.maxResponseBytes) throw overCap(route, `the answer is ${text.length} bytes, over the ${SERVICE_LIMITS.maxResponseBytes}-byte cap on one answer: ask for fewer results per request`);
      send(res, 200, text, 'application/json; charset=utf-8');
    } catch (err) {
      const code: ErrorCode = err instanceof LabError ? err.code : 'internal';
      const status = err instanceof LabError && typeof err.details?.status === 'number' ? err.details.status : STATUS_OF[code];
      sendError(res, code, errorMessage(err), status);
    }
  }

  function route(req: IncomingMessage, res: ServerResponse): void {
    if (!trusted(req)) {
      if (opts.apiKey) send(res, 401, JSON.stringify({ error: { code: 'bad_request', message: 'send the key that `sailor web serve` printed as Authorization: Bearer <key>' } }), 'application/json; charset=utf-8', { 'www-authenticate': 'Bearer' });
      else sendError(res, 'bad_request', 'forbidden: wrong Host, or a browser Origin', 403);
      return;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/health' && (req.method === 'GET' || req.method === 'HEAD')) {
      sendJson(res, 200, { ok: true, pages: opts.web.pages.length });
      return;
    }
    const handler = Object.hasOwn(ROUTES, path) ? ROUTES[path] : undefined;
    if (!handler) {
      sendError(res, 'not_found', `no route ${path}: use POST ${Object.keys(ROUTES).join(', ')} or GET /health`);
      return;
    }
    if (req.method !== 'POST') {
      send(res, 405, JSON.stringify({ error: { code: 'bad_request', message: `${path}: use POST with a JSON body` } }), 'application/json; charset=utf-8', { allow: 'POST' });
      return;
    }
    const opened = openedAt.get(req.socket);
    if (opened !== undefined && Date.now() - opened > limits.connectionMs) res.setHeader('connection', 'close');
    answer(req, res, path, handler).catch(() => res.destroy());
  }

  const limits = { ...SLOW_CLIENT_LIMITS, maxInFlight: SERVICE_LIMITS.maxInFlight, ...opts.limits };
  const openedAt = new WeakMap<Socket, number>();
  const server: Server = createServer({ headersTimeout: limits.headersMs, requestTimeout: limits.requestMs, connectionsCheckingInterval: limits.checkEveryMs }, (req, res) => {
    try {
      route(req, res);
    } catch (err) {
      // Nothing a client sends may take the service down.
      if (!res.headersSent) sendError(res, 'internal', errorMessage(err));
      else res.destroy();
    }
  });
  server.keepAliveTimeout = 30_000;
  server.maxConnections = limits.maxConnections;
  server.setTimeout(limits.idleMs, (socket) => socket.destroy());
  server.on('connection', (socket: Socket) => openedAt.set(socket, Date.now()));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, host, opts.port ?? 0)));
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    origin: `http://${shown}:${port}`,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
