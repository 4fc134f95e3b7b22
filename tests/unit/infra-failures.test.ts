// Failures of the infrastructure are not the model's: a truncated weights.bin or an LLM server that is down
// or answers 500 fails `eval`/`rollout` with exit 1 and a message (not pass@1 = 0 and every episode a
// format_error), an episode whose policy failed ends as policy_error, and resuming a run whose last
// checkpoint is truncated falls back to the newest checkpoint that verifies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyLabFiles, labHome, SMALL, testContext } from '../support/rl-run-helpers';
import { checkpointDir, checkpointSteps } from '../../main/lab/runs/layout';
import { loadCheckpoint } from '../../main/lab/model/checkpoint';
import { disposeModel } from '../../main/lab/model/gpt';
import { readJsonl } from '../../main/lab/store/files';
import type { Trajectory } from '../../main/lab/formats';

const dir = mkdtempSync(join(tmpdir(), 'sailor-infra-'));
const home = join(dir, 'home');
const env = { ...process.env, SAILOR_HOME: home };
const sailor = (args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    // Asynchronous, so that the loopback LLM server in this process can answer.
    const child = spawn(process.execPath, ['bin/sailor.mjs', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
let runId = '';
let server: Server;
let llmUrl = '';
let failQuestion = '';
const questions: string[] = [];

/** An OpenAI-compatible server that answers 500 for every request, or only for one question. */
function llm(req: IncomingMessage, res: ServerResponse): void {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    const asked = (JSON.parse(body) as { messages: Array<{ content: string }> }).messages[1]?.content ?? '';
    if (failQuestion === '*' || asked === failQuestion) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('model crashed');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { content: '<think>\nI know it.\n</think>\n<answer>Paris</answer>' } }] }));
  });
}

beforeAll(async () => {
  const data = labHome();
  copyLabFiles(data, dir);
  for (const line of readFileSync(join(dir, 'held.jsonl'), 'utf8').split('\n').slice(1)) if (line.trim()) questions.push((JSON.parse(line) as { question: string }).question);
  writeFileSync(
    join(dir, 'run.json'),
    JSON.stringify({ ...SMALL, data: { graphFile: 'g.json', datasetFile: 'train.jsonl', heldOutFile: 'held.jsonl' }, workers: 1, sft: { steps: 4, batchSize: 2, warmupSteps: 1 }, checkpoint: { every: 2 } }),
  );
  const trained = spawnSync(process.execPath, ['bin/sailor.mjs', 'train', '--config', join(dir, 'run.json'), '--json'], { encoding: 'utf8', env, timeout: 300_000 });
  expect(trained.status, trained.stderr).toBe(0);
  runId = (JSON.parse(trained.stdout) as { artefact: { id: string } }).artefact.id;
  expect(checkpointSteps(home, runId)).toEqual([2, 4]);
  server = createServer(llm);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  llmUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}, 300_000);

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('infrastructure failures', () => {
  it('an LLM server that answers 500 or refuses connections fails the command with exit 1, naming the failure', { timeout: 120_000 }, async () => {
    failQuestion = '*';
    const rollout = await sailor(['rollout', '--graph', join(dir, 'g.json'), '--dataset', join(dir, 'held.jsonl'), '--limit', '2', '--policy', 'llm:m', '--llm-url', llmUrl, '--out', join(dir, 't.jsonl')]);
    expect(rollout.status, rollout.stderr).toBe(1);
    expect(rollout.stderr).toMatch(/every episode \(2\) failed on the infrastructure, not the model \(policy_error 2\); first error: .*500/);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/v1`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const evaluated = await sailor(['eval', '--graph', join(dir, 'g.json'), '--dataset', join(dir, 'held.jsonl'), '--limit', '2', '--policy', 'llm:m', '--llm-url', deadUrl, '--json']);
    expect(evaluated.status, evaluated.stderr).toBe(1);
    expect(evaluated.stderr).toMatch(/every episode \(2\) failed on the infrastructure.*policy_error 2/);
    expect(evaluated.stdout).toBe('');
  });

  it('an episode whose policy failed is labelled policy_error, never format_error, and the others still count', { timeout: 120_000 }, async () => {
    failQuestion = questions[0]!;
    const out = join(dir, 'partial.jsonl');
    const r = await sailor(['rollout', '--graph', join(dir, 'g.json'), '--dataset', join(dir, 'held.jsonl'), '--limit', '3', '--policy', 'llm:m', '--llm-url', llmUrl, '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('warning: 1 of 3 episodes failed on the infrastructure');
    const trajs = readJsonl(out).records.slice(1).map((x) => x.value as Trajectory);
    expect(trajs.map((t) => t.termination)).toEqual(['policy_error', 'answer', 'answer']);
    expect(trajs[0]!.error).toMatch(/500/);
    // The summary's means are over the two episodes the model ran; the failure is counted apart (issue #33).
    expect(r.stdout).toMatch(/^infrastructure_failures: 1$/m);
    expect(r.stdout).toContain(`reward/mean: ${+((trajs[1]!.reward.total + trajs[2]!.reward.total) / 2).toFixed(4)}\n`);
  });

  it('a truncated weights.bin fails eval with exit 1 and a message naming the file', { timeout: 120_000 }, async () => {
    const weights = join(checkpointDir(home, runId, 4), 'weights.bin');
    truncateSync(weights, Math.floor(statSync(weights).size / 2));
    const r = await sailor(['eval', '--checkpoint', `${runId}/4`, '--dataset', join(dir, 'held.jsonl'), '--json']);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain(`policy ckpt:${runId}/4 could not be loaded: ${weights}:`);
    expect(r.stdout).toBe('');
  });

  it('resuming a run whose last checkpoint is truncated falls back to the newest that verifies, saying so', { timeout: 300_000 }, async () => {
    const { runTrain } = await import('../../main/lab/train/job/train-job');
    const logs: string[] = [];
    const result = await runTrain({ runId, resume: true }, testContext(home, undefined, logs));
    expect(result.step).toBe(4);
    expect(logs.some((l) => l.startsWith(`checkpoint ${runId}/4 does not verify`))).toBe(true);
    expect(logs).toContain(`resuming from checkpoint ${runId}/2, the newest that verifies`);
    expect(logs).toContain('resumed from step 2');
    const again = await loadCheckpoint(checkpointDir(home, runId, 4)); // written anew, whole
    expect(again.step).toBe(4);
    disposeModel(again.model);
    again.optimizer?.dispose();
  });
});
