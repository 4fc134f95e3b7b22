// Locations inside the installed app (not the data directory): found by walking up from this module
// to the folder holding package.json, which works from source (tsx) and from the bundle (out/main).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | null = null;

export function appRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the app folder (package.json) above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  root = dir;
  return dir;
}

export const resourcesDir = (): string => join(appRoot(), 'resources');
export const rendererDistDir = (): string => join(appRoot(), 'out', 'renderer');
/** electron-vite's command line, which builds out/ (`npm run build`); run it with process.execPath. */
export const electronViteCli = (): string => join(appRoot(), 'node_modules', 'electron-vite', 'bin', 'electron-vite.js');

let version: string | null = null;

/** The app's version: package.json's, which the installers carry too. */
export function appVersion(): string {
  version ??= (JSON.parse(readFileSync(join(appRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
