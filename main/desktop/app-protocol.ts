// The desktop window loads the renderer from app://sailor/ rather than file://: a standard, secure origin of
// its own, so 'self' in the CSP means the app's files only and no page gets file:// reach to the disk.
// Pure path logic here (no Electron import) so it is unit-tested; main/desktop/protocol.ts wires it up.
import { extname, isAbsolute, join, normalize, relative } from 'node:path';

export const APP_SCHEME = 'app';
export const APP_HOST = 'sailor';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_INDEX_URL = `${APP_ORIGIN}/index.html`;

const MIME_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm', // WebAssembly.instantiateStreaming refuses any other type
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The Content-Type of a file by its extension; unknown types are opaque bytes (never sniffed as script). */
export function mimeType(file: string): string {
  const ext = extname(file).toLowerCase();
  return Object.hasOwn(MIME_TYPES, ext) ? MIME_TYPES[ext]! : 'application/octet-stream';
}

export type AppPath = { ok: true; file: string } | { ok: false; status: 400 | 403 | 404; reason: string };

/**
 * The file under `root` that an app:// URL names, or why there is none: another scheme or host (404), a
 * path that does not decode (400), one with an encoded `..`, a NUL byte or a way out of `root` (403). `/` is index.html; a
 * path without an extension is an app route and gets index.html too, as in web mode.
 */
export function resolveAppPath(url: string, root: string): AppPath {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, status: 400, reason: 'not a URL' };
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST) return { ok: false, status: 404, reason: 'not an app:// URL of this app' };
  let path: string;
  try {
    path = decodeURIComponent(parsed.pathname);
  } catch {
    return { ok: false, status: 400, reason: 'invalid percent-encoding' };
  }
  if (path.includes('\0')) return { ok: false, status: 403, reason: 'NUL byte in the path' };
  // The URL parser has resolved literal `..`; one that was percent-encoded (`..%2f`) is an attempt to leave root.
  if (path.split(/[/\\]/).includes('..')) return { ok: false, status: 403, reason: 'a .. segment' };
  const rel = normalize(path).replace(/^[/\\]+/, '');
  const file = join(root, rel === '' ? 'index.html' : rel);
  if (!isInside(root, file)) return { ok: false, status: 403, reason: 'outside the app folder' };
  return { ok: true, file: extname(file) === '' ? join(root, 'index.html') : file };
}

/** True when `file` is `root` itself or below it (after `..` is resolved). */
function isInside(root: string, file: string): boolean {
  const rel = relative(root, file);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Navigation and IPC are trusted from the app's own origin, and from the dev server while developing. */
export function isAppUrl(url: string, devServer?: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === `${APP_SCHEME}:`) return parsed.host === APP_HOST && parsed.username === '' && parsed.password === '';
  return devServer !== undefined && parsed.origin === new URL(devServer).origin;
}
