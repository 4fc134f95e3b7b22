// Helpers for the verl interop tests: the Python interpreter with pyarrow, requests and pyyaml (.ci/run makes
// .venv; SAILOR_PYTHON overrides), a script run with JSON in and out, and `sailor web serve` in a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The interpreter; a missing one fails the test with what to run (never a silent skip). */
export function pythonBin(): string {
  const bin = process.env.SAILOR_PYTHON ?? join(process.cwd(), '.venv', 'bin', 'python');
  if (!existsSync(bin)) {
    throw new Error(
      `the verl interop tests need Python with pyarrow, requests and pyyaml at ${bin}: ` +
        'run `python3 -m venv .venv && .venv/bin/pip install pyarrow requests pyyaml` (.ci/run does) or set SAILOR_PYTHON',
    );
  }
  return bin;
}

/** Runs `script` with `input` as JSON on stdin; resolves the JSON it prints last. Asynchronous, so an in-process server keeps serving. */
export function runPython(script: string, input: unknown, opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(pythonBin(), ['-c', script], { env: { ...process.env, ...opts.env }, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`python exited ${code}:\n${err}\n${out}`));
      const last = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(last));
      } catch {
        reject(new Error(`python printed no JSON:\n${out}\n${err}`));
      }
    });
    child.stdin.end(JSON.stringify(input));
  });
}

export interface ServedWeb {
  child: ChildProcess;
  origin: string;
  stop(): Promise<void>;
}

/** `sailor web serve --graph G --port 0 [more]` in a child process, once it prints its address. */
export function serveWeb(graph: string, more: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<ServedWeb & { stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/sailor.mjs', 'web', 'serve', '--graph', graph, '--port', '0', ...more], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`web serve did not start:\n${stderr}`)), 60_000);
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      const m = /sailor web serve: (http:\/\/\S+) /.exec(stdout);
      if (m && (!more.includes('--host') || stdout.includes('API key'))) {
        clearTimeout(timer);
        const stop = (): Promise<void> => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', () => r()), child.kill('SIGTERM'))));
        resolve({ child, origin: m[1]!, stdout, stop });
      }
    });
    child.on('exit', (code) => reject(new Error(`web serve exited ${code}:\n${stderr}`)));
  });
}
