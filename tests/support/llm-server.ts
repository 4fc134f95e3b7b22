// A real OpenAI-compatible server for the tests: Hugging Face Transformers' `transformers serve` on a loopback
// port, serving two tiny random-weight Llamas (2 layers, 32 wide, their own BPE tokenizer and chat template)
// that tests/support/tiny_llama.py builds offline with two seeds. The Python is .venv-llm (tests/setup-python.sh
// makes it from the machine's wheel store; SAILOR_LLM_PYTHON overrides). Stopped by its process id.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { freePort } from './free-port';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const LLM_PYTHON = process.env.SAILOR_LLM_PYTHON ?? join(process.cwd(), '.venv-llm', 'bin', 'python');

/** Why the server cannot start here, or undefined: a missing interpreter fails the test with what to run. */
export const llmServerMissing = (): string | undefined =>
  existsSync(LLM_PYTHON) ? undefined : `transformers serve needs ${LLM_PYTHON}: run bash tests/setup-python.sh (npm test's pretest does), or set SAILOR_LLM_PYTHON`;

export interface LlmServer {
  /** http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  /** The two models' names as the server lists them (repos in its offline hub cache). */
  models: [string, string];
  /** What the server printed, for a failing test's message. */
  log(): string;
  stop(): Promise<void>;
}

/** A child process run to its end without blocking the event loop (a test's own servers keep serving). */
function runToEnd(cmd: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** Builds the two models (seeds 1 and 2) and starts the server; resolves once it lists models. */
export async function startLlmServer(opts: { timeoutMs?: number } = {}): Promise<LlmServer> {
  const missing = llmServerMissing();
  if (missing) throw new Error(missing);
  const dir = mkdtempSync(join(tmpdir(), 'sailor-llm-'));
  const script = join(process.cwd(), 'tests', 'support', 'tiny_llama.py');
  const env = { ...process.env, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', HF_HOME: join(dir, 'hf'), TOKENIZERS_PARALLELISM: 'false', OMP_NUM_THREADS: '1' };
  const hub = join(dir, 'hf', 'hub');
  const models: [string, string] = ['sailor-test/tiny-llama-a', 'sailor-test/tiny-llama-b'];
  // The server starts while the models are built: it reads the hub cache only when asked, and each start is
  // mostly importing torch, which the two processes do side by side.
  const built = runToEnd(LLM_PYTHON, [script, hub, ...models.map((repo, i) => `${repo}=${i + 1}`)], env, 900_000);
  const port = await freePort();
  const cli = join(LLM_PYTHON, '..', 'transformers');
  const child: ChildProcess = spawn(cli, ['serve', '--host', '127.0.0.1', '--port', String(port)], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const build = await built;
  if (build.code !== 0) {
    await stop();
    throw new Error(`building the tiny models failed (${build.code}):\n${build.out}`);
  }
  const deadline = Date.now() + (opts.timeoutMs ?? 600_000);
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`transformers serve exited (${child.exitCode}):\n${log}`);
    }
    try {
      const r = await fetch(`${baseUrl}/models`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`transformers serve did not answer within ${(opts.timeoutMs ?? 600_000) / 1000} s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return { baseUrl, models, log: () => log, stop };
}
