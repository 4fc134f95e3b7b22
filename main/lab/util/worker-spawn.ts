// Starting a worker thread on a script that may be TypeScript source (CLI, tests, benches) or a bundled
// .js beside the built main process (the app).
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';

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
