// Starting a worker thread on a script that may be TypeScript source (CLI, tests, benches) or a bundled
// .js beside the built main process (the app).
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * A worker on `file`. On Node 20, loader flags in a worker's execArgv do not reach its entry module, so a
 * TypeScript entry is started by a small shim that registers tsx inside the worker first.
 */
export function spawnWorker(file: string, workerData: unknown): Worker {
  if (!file.endsWith('.ts')) return new Worker(file, { workerData });
  const tsxApi = import.meta.resolve('tsx/esm/api'); // the ESM entry (require.resolve would give the CJS one)
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(pathToFileURL(file).href)}); });`;
  return new Worker(boot, { eval: true, workerData });
}

/**
 * A worker script that belongs beside the calling module (`moduleUrl`: its import.meta.url): `source` next to
 * it when running from TypeScript, else `bundled` (an entry of electron.vite.config.ts) beside the bundle
 * or the folder above it (a module bundled into a shared chunk lives in out/main/chunks).
 */
export function scriptBeside(moduleUrl: string, source: string, bundled: string): string {
  const here = dirname(fileURLToPath(moduleUrl));
  if (moduleUrl.endsWith('.ts')) return join(here, source);
  const found = [join(here, bundled), join(here, '..', bundled)].find((f) => existsSync(f));
  if (!found) throw new Error(`${bundled} is missing beside ${here}: rebuild the app (npm run build)`);
  return found;
}
