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

// What this script started, stopped with it. npm passes SIGINT and SIGTERM to the shell it runs the script in,
// not to us: on SIGTERM the shell dies and we are reparented, so a changed parent counts as a stop too.
// Children run in their own process group, so Ctrl+C in a terminal (SIGINT to the whole foreground group)
// reaches them once, through us, and not twice. A child that has not exited GRACE_STOP_MS after the signal is killed.
const GRACE_STOP_MS = 10_000;
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let current = null;
let stopping = false;
const parentAtStart = process.ppid;

function stop(signal) {
  if (stopping) return;
  stopping = true;
  if (!current || current.exitCode !== null || current.signalCode !== null) process.exit(0);
  // The children stop on SIGINT and SIGTERM; a hang-up (the terminal closed) asks them to stop too.
  current.kill(signal === 'SIGHUP' ? 'SIGTERM' : signal);
  setTimeout(() => current.kill('SIGKILL'), GRACE_STOP_MS).unref();
}
for (const signal of STOP_SIGNALS) process.on(signal, () => stop(signal));
setInterval(() => {
  if (process.ppid !== parentAtStart) stop('SIGTERM');
}, 500).unref();

/** Spawns the process this script runs now; a stop signal already received reaches it at once. */
function supervise(args, options) {
  // On Windows a detached child would get a console window of its own.
  current = spawn(process.execPath, args, { ...options, detached: process.platform !== 'win32' });
  if (stopping) current.kill('SIGTERM');
  return current;
}

function webMode(reason) {
  console.error(`Sailor Lab: Electron is not available here (${reason}); starting web mode instead.`);
  const child = supervise([join(root, 'bin', 'sailor.mjs'), 'serve', ...process.argv.slice(2)], { stdio: ['ignore', 'inherit', 'inherit'], cwd: root });
  child.on('exit', (code) => process.exit(stopping ? 0 : (code ?? 0)));
}

const found = whyNoElectron();
if (found.reason) {
  webMode(found.reason);
} else {
  // The Electron binary is fetched on first launch. A launch that fails within the first seconds (no
  // network for the download, a broken binary) is summarised in one line and web mode starts instead;
  // until then Electron's stderr is held back so a failed download does not spill a stack trace.
  const GRACE_MS = 15_000;
  const app = supervise([found.cli, root], { stdio: ['ignore', 'inherit', 'pipe'], cwd: root });
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
    if (code !== 0 && holding && !stopping) {
      const lines = held.split('\n').map((l) => l.trim()).filter(Boolean);
      const cause = lines.find((l) => /failed|error|cannot|unable/i.test(l) && !l.startsWith('at ')) ?? lines.at(-1) ?? `exit code ${code}`;
      webMode(`the desktop app did not start: ${cause.slice(0, 200)}`);
    } else process.exit(code ?? 0);
  });
}
