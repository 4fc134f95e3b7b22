// Starting a worker thread on a script that may be TypeScript source (CLI, tests, benches) or a bundled
// .js beside the built main process (the app).
import { parentPort, Worker, workerData } from 'node:worker_threads';
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

export interface ThreadChannel<Init, In, Out> {
  init: Init;
  send: (msg: Out) => void;
  onMessage: (fn: (msg: In) => void) => void;
  /**
   * Stops listening, so the thread ends once its own work has: a message listener alone keeps a worker
   * alive forever. Messages already sent still arrive.
   */
  done: () => void;
}

/**
 * Inside a worker thread started by spawnWorker: its workerData (as the caller's init type), a sender of
 * typed messages to the parent, and a typed message listener. Throws on the main thread.
 */
export function threadChannel<Init, In, Out>(entry: string): ThreadChannel<Init, In, Out> {
  const port = parentPort;
  if (!port) throw new Error(`${entry} must run as a worker thread`);
  return {
    init: workerData as Init,
    send: (msg) => port.postMessage(msg),
    onMessage: (fn) => port.on('message', fn),
    done: () => {
      port.removeAllListeners('message');
      port.unref();
    },
  };
}
