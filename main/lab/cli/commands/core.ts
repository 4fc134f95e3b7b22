// Commands about the lab itself: the web mode server and the environment report.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { CliCommand, CliIO } from '../command';
import { optInt, optString, printResult, sharedOptions, untilSignal } from '../command';
import { LabCore } from '../../app/core';
import { defaultHome } from '../../base/home';
import { appRoot, appVersion, electronViteCli, rendererDistDir } from '../../base/paths';
import { startServer } from '../../server/http';
import { electronStatus } from '../../app/electron-status';
import { selectBackend } from '../../model/backend';
import { openStoreDb } from '../../store/db';
import { errorMessage, LabError } from '../../base/errors';

const require = createRequire(import.meta.url);

/** Builds the app (renderer included) when it has not been built yet, so `sailor serve` works right after install. */
function ensureRendererBuilt(io: CliIO): void {
  if (existsSync(join(rendererDistDir(), 'index.html'))) return;
  io.err('sailor serve: the web app is not built yet; building it now (one time, about a minute)…\n');
  const run = spawnSync(process.execPath, [electronViteCli(), 'build'], { cwd: appRoot(), stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.status !== 0 || !existsSync(join(rendererDistDir(), 'index.html'))) {
    throw new LabError('internal', 'building the web app failed (see above); try `npm run build`');
  }
}

const serve: CliCommand = {
  path: ['serve'],
  summary: 'Run the app in web mode on 127.0.0.1 and print its URL with the access token',
  usage: 'serve [--port P] [--home DIR]',
  options: {
    ...sharedOptions.port(0),
    ...sharedOptions.home(),
    token: { type: 'string', description: 'use this access token instead of a random one' },
  },
  async run(ctx) {
    const port = optInt(ctx, 'port', 0, { min: 0, max: 65535 });
    const home = optString(ctx, 'home') ?? defaultHome();
    ensureRendererBuilt(ctx.io);
    const core = await LabCore.open({ home });
    const server = await startServer({ core, port, staticDir: rendererDistDir(), ...(optString(ctx, 'token') ? { token: optString(ctx, 'token') } : {}) });
    ctx.io.out(`Sailor Lab web mode: ${server.url}\n`);
    ctx.io.err(`data directory: ${home}\nlistening on ${server.origin} only (loopback); open the URL above in a browser. Ctrl+C stops.\n`);
    await untilSignal();
    await server.close();
    await core.close();
  },
};

function packageVersion(name: string): string | null {
  try {
    return (require(`${name}/package.json`) as { version: string }).version;
  } catch {
    return null;
  }
}

const doctor: CliCommand = {
  path: ['doctor'],
  summary: 'Report the environment: Electron, TensorFlow.js backends (chosen and why not others), data directory, versions',
  usage: 'doctor [--json]',
  options: { ...sharedOptions.json('the report') },
  async run(ctx) {
    const home = defaultHome();
    let store: string;
    try {
      if (existsSync(home)) {
        const db = await openStoreDb(home);
        store = `ok (${db.data.runs.length} runs, ${db.data.datasets.length} datasets, ${db.data.jobs.length} jobs)`;
      } else store = 'not created yet (made on first use)';
    } catch (err) {
      store = `PROBLEM: ${errorMessage(err)}`;
    }
    const { report } = await selectBackend();
    const electron = electronStatus();
    const versions: Record<string, string | null> = {
      'sailor-lab': appVersion(),
      node: process.versions.node,
      '@tensorflow/tfjs': packageVersion('@tensorflow/tfjs'),
      '@tensorflow/tfjs-backend-wasm': packageVersion('@tensorflow/tfjs-backend-wasm'),
      '@tensorflow/tfjs-node-gpu': packageVersion('@tensorflow/tfjs-node-gpu'),
      electron: packageVersion('electron'),
      vue: packageVersion('vue'),
    };
    const result = {
      platform: `${process.platform}-${process.arch}`,
      cpus: availableParallelism(),
      memory_gib: Math.round(totalmem() / 2 ** 30),
      data_dir: home,
      store,
      electron,
      backend: report,
      renderer_built: existsSync(join(rendererDistDir(), 'index.html')),
      versions,
    };
    printResult(ctx, result, () =>
      [
        'Sailor Lab doctor',
        `  platform      ${result.platform}, ${result.cpus} cores, ${result.memory_gib} GiB`,
        `  data dir      ${home}`,
        `  store         ${store}`,
        `  electron      ${electron.available ? 'available' : 'not available'}: ${electron.detail}`,
        `  app build     ${result.renderer_built ? 'built (out/)' : 'not built yet (npm run build, or npm start)'}`,
        `  tfjs backend  ${report.chosen} (chosen)`,
        ...report.attempts.map((a) => `    ${a.ok ? 'ok  ' : 'no  '} ${a.name.padEnd(15)} ${a.detail}`),
        `  versions      ${Object.entries(versions)
          .map(([k, v]) => `${k} ${v ?? '-'}`)
          .join(', ')}`,
      ].join('\n'),
    );
  },
};

export const coreCommands: CliCommand[] = [serve, doctor];
