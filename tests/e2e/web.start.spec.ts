// `npm start` as a user runs it (the build, then bin/start.mjs, which falls back to web mode without a display),
// with the app open in a browser; then a stop: SIGTERM to the npm process only (a service manager, `kill`), or
// SIGINT to its whole process group (Ctrl+C in a terminal). Nothing it started may be left: no shell, no start
// script, no `sailor serve`, no listening port.
import { expect, test } from '@playwright/test';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Every live process's parent, from /proc (Linux). */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Fields after the command name (which may hold spaces or parentheses): state, ppid, …
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      out.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // it exited while we read
    }
  }
  return out;
}

function descendants(root: number): number[] {
  const ppid = parents();
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const [pid, parent] of ppid) {
      if (parent === p) {
        out.push(pid);
        walk(pid);
      }
    }
  };
  walk(root);
  return out;
}

/** The command line of a process, or null once it is gone (a zombie counts as gone). */
function commandOf(pid: number): string | null {
  try {
    if (/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) return null;
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return null;
  }
}

const STOPS = [
  { signal: 'SIGTERM', to: 'the npm process' },
  { signal: 'SIGINT', to: 'its process group (Ctrl+C)' },
] as const;

for (const { signal, to } of STOPS) {
  test(`${signal} to ${to} stops everything npm start started`, async ({ page }) => {
    test.skip(process.platform !== 'linux', 'reads the process tree from /proc');
    test.setTimeout(300_000);
    const home = mkdtempSync(join(tmpdir(), 'sailor-start-'));
    const env: NodeJS.ProcessEnv = { ...process.env, SAILOR_HOME: home };
    delete env.DISPLAY;
    delete env.WAYLAND_DISPLAY;
    // detached: npm leads a process group of its own, as in a terminal.
    const npm = spawn('npm', ['start', '--', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start printed no URL in 240 s:\n${out}`)), 240_000);
      const read = (c: Buffer): void => {
        out += c.toString();
        const m = /Sailor Lab web mode: (\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      };
      npm.stdout!.on('data', read);
      npm.stderr!.on('data', read);
      npm.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${out}`)));
    });
    // A connected page holds a WebSocket open, as a user's browser would.
    await page.goto(url);
    await expect(page.getByTestId('status-transport')).toContainText('web');

    const started = descendants(npm.pid!).map((pid) => ({ pid, cmd: commandOf(pid) ?? '' }));
    expect(started.some((p) => p.cmd.includes('start.mjs'))).toBe(true);
    expect(started.some((p) => p.cmd.includes('sailor.mjs serve'))).toBe(true);

    if (signal === 'SIGINT') process.kill(-npm.pid!, signal);
    else npm.kill(signal);
    await exited;
    await expect.poll(() => started.filter((p) => commandOf(p.pid) === p.cmd).map((p) => p.cmd), { timeout: 60_000 }).toEqual([]);
    const origin = new URL(url).origin;
    await expect.poll(async () => fetch(`${origin}/`).then(() => 'answering', () => 'closed'), { timeout: 30_000 }).toBe('closed');
  });
}
