// Helpers for the tests that run the `sailor` CLI in child processes: a command run to its end, the data a
// run config names by file, and a training run killed with SIGKILL once it got far enough.
import { expect } from 'vitest';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** `sailor ARGS` in a child process, run to its end (or to the timeout). */
export function sailor(args: string[], env: NodeJS.ProcessEnv, timeout = 300_000): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['bin/sailor.mjs', ...args], { encoding: 'utf8', env, timeout });
}

/**
 * dir/g.json (`sailor kg build`, rng 7), dir/train.jsonl and dir/held.jsonl (`sailor synth`, rng 1 and 2, the
 * held-out set not kept off the training edges), each command expected to succeed.
 */
export function cliData(dir: string, env: NodeJS.ProcessEnv, o: { maxEdges: number; train: number; held: number; timeout?: number }): void {
  for (const args of [
    ['kg', 'build', '--rng', '7', '--max-edges', String(o.maxEdges), '--out', join(dir, 'g.json')],
    ['synth', '--graph', join(dir, 'g.json'), '--count', String(o.train), '--rng', '1', '--out', join(dir, 'train.jsonl')],
    ['synth', '--graph', join(dir, 'g.json'), '--count', String(o.held), '--rng', '2', '--out', join(dir, 'held.jsonl')],
  ]) {
    const r = sailor(args, env, o.timeout);
    expect(r.status, r.stderr).toBe(0);
  }
}

/**
 * Starts `sailor train --config CONFIG` on the data directory `home` (the only run there), polls every
 * `pollMs` until `ready(runId, metricsFile)` holds, then kills it with SIGKILL; returns the run's id. Rejects
 * when the trainer exits first.
 */
export async function trainUntilKilled(config: string, env: NodeJS.ProcessEnv, home: string, pollMs: number, ready: (runId: string, metrics: string) => boolean): Promise<string> {
  const child = spawn(process.execPath, ['bin/sailor.mjs', 'train', '--config', config], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const runsDir = join(home, 'runs');
  const runId = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const id = existsSync(runsDir) ? readdirSync(runsDir)[0] : undefined;
      const metrics = id ? join(runsDir, id, 'metrics.jsonl') : '';
      if (id && existsSync(metrics) && ready(id, metrics)) {
        clearInterval(timer);
        resolve(id);
      }
    }, pollMs);
    child.on('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`train exited (${code}) before it could be killed:\n${stderr}`));
    });
  });
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  return runId;
}
