// The desktop app's app:// origin (URL -> file, traversal refused, MIME types, trusted URLs) and the
// Electron fuses of the packaged app. Electron itself cannot run here: these check the logic and the config.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FuseV1Options, FuseVersion } from '@electron/fuses';
import { APP_INDEX_URL, isAppUrl, mimeType, resolveAppPath } from '../../main/desktop/app-protocol';
import { FUSE_CONFIG, packagedBinary } from '../../main/desktop/fuses';

const root = join('/opt', 'sailor', 'renderer');

describe('app:// paths', () => {
  it('maps app URLs to files under the renderer folder', () => {
    expect(resolveAppPath(APP_INDEX_URL, root)).toEqual({ ok: true, file: join(root, 'index.html') });
    expect(resolveAppPath('app://sailor/', root)).toEqual({ ok: true, file: join(root, 'index.html') });
    expect(resolveAppPath('app://sailor/assets/index-abc.js?x=1#y', root)).toEqual({ ok: true, file: join(root, 'assets', 'index-abc.js') });
    expect(resolveAppPath('app://sailor/assets/a%20b.css', root)).toEqual({ ok: true, file: join(root, 'assets', 'a b.css') });
    expect(resolveAppPath('app://sailor/runs/123', root)).toEqual({ ok: true, file: join(root, 'index.html') }); // an app route
  });

  it('refuses traversal, bad encoding, NUL bytes and other origins', () => {
    const refused = (url: string): number | null => {
      const r = resolveAppPath(url, root);
      return r.ok ? null : r.status;
    };
    expect(refused('app://sailor/..%2f..%2fetc%2fpasswd')).toBe(403);
    expect(refused('app://sailor/assets/..%5c..%5c..%5csecret.txt')).toBe(403);
    // Literal and %2e dot segments are resolved by the URL parser itself, inside the origin: they stay under root.
    expect(resolveAppPath('app://sailor/../../etc/hosts.txt', root)).toEqual({ ok: true, file: join(root, 'etc', 'hosts.txt') });
    expect(resolveAppPath('app://sailor/%2e%2e/%2e%2e/db.json', root)).toEqual({ ok: true, file: join(root, 'db.json') });
    expect(refused('app://sailor/%ff')).toBe(400);
    expect(refused('app://sailor/a%00.js')).toBe(403);
    expect(refused('app://evil/index.html')).toBe(404);
    expect(refused('app://sailor@evil/index.html')).toBe(404);
    expect(refused('file:///etc/passwd')).toBe(404);
    expect(refused('not a url')).toBe(400);
  });

  it('names the MIME type by extension, opaque bytes for the rest', () => {
    const expected = {
      'a/index.html': 'text/html; charset=utf-8', 'a/x.JS': 'text/javascript; charset=utf-8', 'a/tfjs.wasm': 'application/wasm',
      'a/font.woff2': 'font/woff2', 'a/x.exe': 'application/octet-stream', 'a/constructor': 'application/octet-stream',
    };
    for (const [path, type] of Object.entries(expected)) expect(mimeType(path), path).toBe(type);
  });

  it('trusts the app origin and the dev server only', () => {
    expect(isAppUrl('app://sailor/index.html#/runs')).toBe(true);
    expect(isAppUrl('app://sailor/')).toBe(true);
    expect(isAppUrl('app://evil/index.html')).toBe(false);
    expect(isAppUrl('app://sailor@evil/index.html')).toBe(false);
    expect(isAppUrl('app://sailor.evil/index.html')).toBe(false);
    expect(isAppUrl('file:///opt/sailor/renderer/index.html')).toBe(false);
    expect(isAppUrl('https://example.com/')).toBe(false);
    expect(isAppUrl('http://localhost:5173/src/x.ts', 'http://localhost:5173')).toBe(true);
    expect(isAppUrl('http://localhost:5174/', 'http://localhost:5173')).toBe(false);
    expect(isAppUrl('http://localhost:5173/')).toBe(false);
    expect(isAppUrl('garbage')).toBe(false);
  });
});

describe('Electron fuses of the packaged app', () => {
  it('turns off Node entry points and turns on cookie encryption and ASAR integrity', () => {
    expect(FUSE_CONFIG.version).toBe(FuseVersion.V1);
    expect(FUSE_CONFIG[FuseV1Options.RunAsNode]).toBe(false);
    expect(FUSE_CONFIG[FuseV1Options.EnableCookieEncryption]).toBe(true);
    expect(FUSE_CONFIG[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(false);
    expect(FUSE_CONFIG[FuseV1Options.EnableNodeCliInspectArguments]).toBe(false);
    expect(FUSE_CONFIG[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(true);
    expect(FUSE_CONFIG[FuseV1Options.OnlyLoadAppFromAsar]).toBe(true);
    expect(FUSE_CONFIG[FuseV1Options.GrantFileProtocolExtraPrivileges]).toBe(false);
  });

  it('decides every fuse the installed @electron/fuses knows, so a new one fails here first', () => {
    expect(FUSE_CONFIG.strictlyRequireAllFuses).toBe(true);
    const known = Object.values(FuseV1Options).filter((v): v is number => typeof v === 'number');
    for (const fuse of known) expect(typeof (FUSE_CONFIG as Record<number, unknown>)[fuse], FuseV1Options[fuse]).toBe('boolean');
  });

  it('finds the binary in a packaged folder', () => {
    expect(packagedBinary('/out', 'linux', 'Sailor Lab', 'sailor-lab')).toBe(join('/out', 'sailor-lab'));
    expect(packagedBinary('/out', 'win32', 'Sailor Lab')).toBe(join('/out', 'Sailor Lab.exe'));
    expect(packagedBinary('/out', 'darwin', 'Sailor Lab')).toBe(join('/out', 'Sailor Lab.app', 'Contents', 'MacOS', 'Sailor Lab'));
  });
});
