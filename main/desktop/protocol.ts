// Serves the built renderer on app://sailor/ (see app-protocol.ts for why not file://).
import { protocol } from 'electron';
import { readFile } from 'node:fs/promises';
import { CSP } from '../lab/server/csp';
import { APP_SCHEME, mimeType, resolveAppPath } from './app-protocol';

/** Must run before the app is ready: a standard, secure scheme gets an origin, fetch and a CSP 'self'. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true } }]);
}

/** Answers app:// requests with files under `root` only; everything else is a 4xx, never a file elsewhere. */
export function serveApp(root: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const target = resolveAppPath(request.url, root);
    if (!target.ok) return new Response(target.reason, { status: target.status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    try {
      const body = await readFile(target.file);
      return new Response(body, {
        headers: { 'content-type': mimeType(target.file), 'content-security-policy': CSP, 'x-content-type-options': 'nosniff' },
      });
    } catch {
      return new Response('not found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    }
  });
}
