// Is the Electron binary usable here? Answered without importing Electron (the core never does):
// the `electron` package, when installed, exports the path of its binary.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';

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
  let version: string | undefined;
  try {
    version = (require('electron/package.json') as { version: string }).version;
  } catch {
    return {
      available: false,
      detail:
        'the optional electron package is not installed (Electron 42+ needs Node >= 22.12 to install; ' +
        `this is Node ${process.versions.node}); web mode works in any browser`,
    };
  }
  let binary: string;
  try {
    binary = require('electron') as string;
  } catch (err) {
    return { available: false, version, detail: `electron ${version} is installed but its binary is not: ${(err as Error).message.split('\n')[0]}` };
  }
  if (typeof binary === 'string' && existsSync(binary)) {
    return { available: true, version, binary, detail: `electron ${version} at ${binary}` };
  }
  return {
    available: false,
    version,
    detail: `electron ${version} is installed; its binary is fetched on first launch and needs network access`,
  };
}
