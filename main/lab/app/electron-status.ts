// Is the Electron binary usable here? Answered without importing Electron (the core never does) and
// without `require('electron')`, which would start downloading the binary: the package records the
// binary's path in path.txt once it has been fetched.
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

export interface ElectronStatus {
  available: boolean;
  version?: string;
  binary?: string;
  detail: string;
}

export function electronStatus(): ElectronStatus {
  if (process.versions.electron) {
    return { available: true, version: process.versions.electron, detail: `running inside Electron ${process.versions.electron}` };
  }
  let pkgFile: string;
  try {
    pkgFile = require.resolve('electron/package.json');
  } catch {
    return { available: false, detail: 'the electron package is not installed (npm install); web mode works in any browser' };
  }
  const dir = dirname(pkgFile);
  const version = (JSON.parse(readFileSync(pkgFile, 'utf8')) as { version: string }).version;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const pathFile = join(dir, 'path.txt');
  const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
  const binary = override ? join(override, rel ?? 'electron') : rel ? join(dir, 'dist', rel) : undefined;
  if (binary && existsSync(binary)) {
    return { available: true, version, binary, detail: `electron ${version} at ${binary}` };
  }
  return {
    available: false,
    version,
    detail: `electron ${version} is installed but its binary is not downloaded yet (it is fetched on first launch and needs network access)`,
  };
}
