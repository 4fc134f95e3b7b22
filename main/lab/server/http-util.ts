// HTTP plumbing both servers share (web mode in http.ts, the simulated-web service in web-service.ts): JSON
// and text replies with the same safety headers, a size-capped body reader, bearer tokens compared in
// constant time, and the HTTP status of each error code.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { ErrorCode } from '../base/errors';

export const MAX_BODY = 1 << 20;
const DRAIN_LIMIT = 64 << 20;

export const STATUS_OF: Record<ErrorCode, number> = {
  bad_request: 400,
  bad_input: 400,
  not_found: 404,
  conflict: 409,
  corrupt: 409,
  unsupported: 409,
  cancelled: 409,
  busy: 429,
  no_space: 507,
  internal: 500,
};

export function sameToken(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  return h?.startsWith('Bearer ') ? h.slice(7) : undefined;
}

export function send(res: ServerResponse, status: number, body: string | Buffer, type: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    ...extra,
  });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, JSON.stringify(value), 'application/json; charset=utf-8');
}

/** A request body, or `tooLarge` once it passes MAX_BODY (the rest is drained, never buffered). */
export type Body = { text: string } | { tooLarge: true };

export function readBody(req: IncomingMessage): Promise<Body> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY) {
      drain(req);
      resolve({ tooLarge: true });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= MAX_BODY) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData);
      chunks.length = 0;
      drain(req);
      resolve({ tooLarge: true });
    };
    req.on('data', onData);
    req.on('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', reject);
  });
}

/**
 * Reads and drops the rest of an oversize body so the client, still sending, reads our 413 rather than a
 * reset; a client that keeps sending past DRAIN_LIMIT is cut off.
 */
function drain(req: IncomingMessage): void {
  let dropped = 0;
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_LIMIT) req.socket.destroy();
  });
  req.resume();
}
