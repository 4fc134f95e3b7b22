// Starts the real `sailor serve` (the same command a user runs) on a free loopback port with its own
// data directory, and hands the test its URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Served {
  url: string; // with token
  origin: string;
  token: string;
  home: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function serve(home = mkdtempSync(join(tmpdir(), 'sailor-e2e-'))): Promise<Served> {
  const child = spawn(process.execPath, ['bin/sailor.mjs', 'serve', '--port', '0'], {
    env: { ...process.env, SAILOR_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`sailor serve did not print its URL in 150 s; stderr:\n${stderr}`)), 150_000); // generous for a loaded machine: the URL line is the event waited on
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /Sailor Lab web mode: (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`sailor serve exited with ${code}; stderr:\n${stderr}`)));
  });
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token')!,
    home,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
