// The lab's own OpenAI-compatible server for the tests: the real `sailor policy serve` command (a lab model over
// /v1/chat/completions with per-token log-probabilities) on a free loopback port, stopped by its process id.
import { spawn } from 'node:child_process';

export interface PolicyServer {
  /** http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  /** The model name it serves. */
  model: string;
  log(): string;
  stop(): Promise<void>;
}

/** Starts `sailor policy serve --policy <spec>`; resolves once it prints its URL (the model is loaded by then). */
export function startPolicyServer(spec: string, env: NodeJS.ProcessEnv = process.env, timeoutMs = 400_000): Promise<PolicyServer> {
  const child = spawn(process.execPath, ['bin/sailor.mjs', 'policy', 'serve', '--policy', spec, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    // Generous: on a loaded machine tsx and TensorFlow.js alone take minutes to load. The URL line is the event waited on.
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void stop();
    }, timeoutMs);
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /sailor policy serve: (\S+) \(model (.+?);/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ baseUrl: m[1]!, model: m[2]!, log: () => out + err, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(timedOut ? `sailor policy serve printed no URL in ${timeoutMs / 1000} s:\n${err}` : `sailor policy serve exited (${code}):\n${err}`));
    });
  });
}
