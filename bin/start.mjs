#!/usr/bin/env node
// `npm start` (after the build): the desktop app where Electron can run, otherwise web mode, said in one line.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** Why Electron cannot start here, or null when it may. */
function whyNoElectron() {
  let cli;
  try {
    cli = require.resolve('electron/cli.js');
  } catch {
    return { reason: 'the electron package is not installed; run npm install' };
  }
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return { reason: 'there is no display ($DISPLAY is not set)' };
  }
  return { cli };
}

function webMode(reason) {
  console.error(`Sailor Lab: Electron is not available here (${reason}); starting web mode instead.`);
  const child = spawn(process.execPath, [join(root, 'bin', 'sailor.mjs'), 'serve', ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
  const forward = (signal) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('exit', (code) => process.exit(code ?? 0));
}

const found = whyNoElectron();
if (found.reason) {
  webMode(found.reason);
} else {
  // The Electron binary is fetched on first launch. A launch that fails within the first seconds (no
  // network for the download, a broken binary) is summarised in one line and web mode starts instead;
  // until then Electron's stderr is held back so a failed download does not spill a stack trace.
  const GRACE_MS = 15_000;
  const app = spawn(process.execPath, [found.cli, root], { stdio: ['ignore', 'inherit', 'pipe'], cwd: root });
  let held = '';
  let holding = true;
  const release = setTimeout(() => {
    holding = false;
    process.stderr.write(held);
  }, GRACE_MS);
  app.stderr.on('data', (chunk) => {
    if (holding) held += chunk;
    else process.stderr.write(chunk);
  });
  app.on('exit', (code) => {
    clearTimeout(release);
    if (code !== 0 && holding) {
      const lines = held.split('\n').map((l) => l.trim()).filter(Boolean);
      const cause = lines.find((l) => /failed|error|cannot|unable/i.test(l) && !l.startsWith('at ')) ?? lines.at(-1) ?? `exit code ${code}`;
      webMode(`the desktop app did not start: ${cause.slice(0, 200)}`);
    } else process.exit(code ?? 0);
  });
}
