// Saved endpoints against a real OpenAI-compatible server (`transformers serve` with two tiny random-weight
// Llamas, tests/support/llm-server.ts): "test" shows the models list, one completion and the latency; an
// endpoint plays a rollout and both answer a comparison question by question; a stopped comparison resumes with
// only the episodes it had not played; and the key, read from the
// variable the endpoint names, appears in neither db.json, the trajectory files, the comparison, an export nor
// a job's log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LabCore } from '../../main/lab/app/core';
import type { ArtefactRecord, ComparisonView, Endpoint, EndpointTest, JobRecord, RunSummary } from '../../main/lab/contract';
import { writeVerlRunFiles } from '../e2e/verl-fixture';
import { waitForStatus } from '../support/helpers';
import { openDemoLab } from '../support/demo-lab';
import { sailor } from '../support/cli-helpers';
import { startLlmServer, type LlmServer } from '../support/llm-server';
import { JOURNAL_FILE } from '../../main/lab/train/act/compare-journal';

const KEY_ENV = 'SAILOR_TEST_ENDPOINT_KEY';
const KEY = `sk-test-${Math.random().toString(36).slice(2)}-never-stored`;

let server: LlmServer;
let core: LabCore;
let home: string;

/** Every file under a folder, as text. */
function allText(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out += statSync(p).isDirectory() ? allText(p) : `${readFileSync(p, 'latin1')}\n`;
  }
  return out;
}

beforeAll(async () => {
  process.env[KEY_ENV] = KEY;
  server = await startLlmServer();
  ({ core, home } = await openDemoLab('sailor-endpoints-'));
}, 1_200_000);

afterAll(async () => {
  await core?.close();
  await server?.stop();
  delete process.env[KEY_ENV];
});

/** A compare job run to its end: its record when it succeeded, its error thrown when it failed. */
async function runToEnd(params: Record<string, unknown>): Promise<JobRecord> {
  const job = (await core.call('jobs.start', { kind: 'compare', params })) as JobRecord;
  const done = await waitForStatus(core, job.id, ['succeeded', 'failed', 'cancelled'], 900_000);
  if (done.status !== 'succeeded') throw new Error(done.error ?? done.status);
  return done;
}

describe('endpoints on a real OpenAI-compatible server', () => {
  const saved: Endpoint[] = [];

  it('saves two endpoints serving two steps of an imported verl run, with the key variable’s name only, and refuses a key field', async () => {
    const run = (await core.call('runs.importVerl', { metrics: writeVerlRunFiles(mkdtempSync(join(tmpdir(), 'verl-ep-'))).metrics, name: 'verl GRPO' })) as RunSummary;
    for (const [i, model] of server.models.entries()) {
      const serves = { runId: run.artefact.id, step: i ? 3 : 1 };
      saved.push((await core.call('endpoints.save', { name: `tiny ${i ? 'B' : 'A'}`, baseUrl: server.baseUrl, model, keyEnv: KEY_ENV, maxTokens: 24, inFlight: 2, serves })) as Endpoint);
    }
    await expect(core.call('endpoints.save', { name: 'x', baseUrl: server.baseUrl, model: 'm', serves: { runId: 'nope', step: 1 } })).rejects.toThrow(/run nope is not in the store/);
    expect(saved.map((e) => e.id)).toHaveLength(2);
    expect(saved[0]).toMatchObject({ keyEnv: KEY_ENV, temperature: 0, inFlight: 2 });
    await expect(core.call('endpoints.save', { name: 'x', baseUrl: server.baseUrl, model: 'm', apiKey: KEY })).rejects.toThrow(/apiKey/);
    expect(((await core.call('endpoints.list', {})) as Endpoint[]).map((e) => e.name)).toEqual(['tiny A', 'tiny B']);
  });

  it('"test" shows what the server answered: its models, one short completion and the time each took', async () => {
    const t = (await core.call('endpoints.test', { id: saved[0]!.id })) as EndpointTest;
    expect(t.error).toBeUndefined();
    expect(t.ok).toBe(true);
    expect(t.models).toEqual(expect.arrayContaining([...server.models]));
    expect(typeof t.completion).toBe('string');
    expect(t.modelsMs).toBeGreaterThanOrEqual(0);
    expect(t.completionMs).toBeGreaterThan(0);
    // A server that is not there: the error, not a hang or a crash.
    const gone = (await core.call('endpoints.save', { name: 'gone', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' })) as Endpoint;
    const bad = (await core.call('endpoints.test', { id: gone.id })) as EndpointTest;
    expect(bad.ok).toBe(false);
    expect(bad.error).toMatch(/fetch failed|ECONNREFUSED/);
    await core.call('endpoints.remove', { id: gone.id });
  });

  it('compares the two served steps question by question, each attempt a conversation with the served model', async () => {
    const checkpoints = saved.map((e) => `endpoint:${e.id}`);
    const job = (await core.call('jobs.start', { kind: 'compare', params: { checkpoints, datasetId: 'd-demo', questions: 2, samples: 1, temperature: 0 } })) as JobRecord;
    const done = await waitForStatus(core, job.id, ['succeeded', 'failed'], 300_000);
    expect(done.error).toBeUndefined();
    const view = (await core.call('comparisons.get', { id: job.id })) as ComparisonView;
    expect(view.checkpoints.map((c) => c.ref)).toEqual(checkpoints);
    expect(view.questions).toHaveLength(2);
    // Every trajectory is the model's own: its policy is the endpoint, and its first turn came from the server.
    const sets = (await core.call('trajectories.list', {})) as ArtefactRecord[];
    expect(sets.map((s) => s.info.policy).sort()).toEqual([...checkpoints].sort());
    const set = readFileSync(join(home, sets[0]!.path), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(set.slice(1).every((t) => Array.isArray(t.steps))).toBe(true);
  }, 400_000);

  it('a stopped comparison resumes: the episodes it played are kept as they were, only the rest are played', async () => {
    const params = { checkpoints: saved.map((e) => `endpoint:${e.id}`), datasetId: 'd-demo', questions: 2, samples: 4, temperature: 0 };
    const job = (await core.call('jobs.start', { kind: 'compare', params })) as JobRecord;
    // Stopped once its journal holds an episode (each is journaled as it ends): waits on the file, not a clock.
    const oldJournal = join(home, 'jobs', job.id, JOURNAL_FILE);
    const episodes = (file: string): Array<{ checkpoint: number; traj: { id: string } }> =>
      existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').slice(1).filter(Boolean).map((l) => JSON.parse(l) as { checkpoint: number; traj: { id: string } }) : [];
    await expect.poll(() => episodes(oldJournal).length, { timeout: 300_000, interval: 20 }).toBeGreaterThan(0);
    await core.call('jobs.cancel', { id: job.id });
    expect((await waitForStatus(core, job.id, ['succeeded', 'failed', 'cancelled'], 60_000)).status).toBe('cancelled');

    // Another protocol is refused, naming what differs; then the same params resume it.
    await expect(runToEnd({ ...params, rng: 1, resumeOf: job.id })).rejects.toThrow(/rng was 0, not 1/);
    const resumed = await runToEnd({ ...params, resumeOf: job.id });
    const info = resumed.result as { artefact: ArtefactRecord };
    const { kept, played } = info.artefact.info.resumed as { kept: number; played: number };
    const total = 2 * 2 * 4;
    expect(kept).toBeGreaterThan(0);
    expect(kept + played).toBe(total);
    expect(played).toBeGreaterThan(0); // the stop came before the end

    // The kept episodes are the stopped job's, byte for byte (their turns' latencies too: not played again)...
    const before = new Map(episodes(oldJournal).map((l) => [`${l.checkpoint} ${l.traj.id}`, JSON.stringify(l.traj)]));
    const now = episodes(join(home, 'jobs', resumed.id, JOURNAL_FILE));
    expect(now).toHaveLength(total);
    for (const l of now.slice(0, kept)) expect(JSON.stringify(l.traj)).toBe(before.get(`${l.checkpoint} ${l.traj.id}`));
    // ...the played ones are exactly the others, each attempt once...
    const keys = now.map((l) => `${l.checkpoint} ${l.traj.id}`);
    expect(new Set(keys).size).toBe(total);
    expect(now.slice(kept).every((l) => !now.slice(0, kept).some((k) => k.checkpoint === l.checkpoint && k.traj.id === l.traj.id))).toBe(true);
    // ...and the comparison's sets are made of them.
    const view = (await core.call('comparisons.get', { id: resumed.id })) as ComparisonView;
    expect(view.questions.map((q) => q.results.map((r) => r.trajIds.length))).toEqual([[4, 4], [4, 4]]);
    for (const [i, c] of view.checkpoints.entries()) {
      const set = (await core.call('trajectories.list', {})) as ArtefactRecord[];
      const lines = readFileSync(join(home, set.find((s) => s.id === c.setId)!.path), 'utf8').trim().split('\n').slice(1);
      const journaled = new Map(now.filter((l) => l.checkpoint === i).map((l) => [l.traj.id, l.traj]));
      for (const line of lines) {
        const t = JSON.parse(line) as { id: string; steps: unknown };
        expect(t.steps).toEqual((journaled.get(t.id) as { steps?: unknown } | undefined)?.steps);
      }
    }
    // A finished comparison has nothing left to resume.
    await expect(runToEnd({ ...params, resumeOf: resumed.id })).rejects.toThrow(/finished: there is nothing left to play/);
  }, 1_800_000);

  it('the key appears in neither db.json, the sets, the comparison, an export nor a job’s log', async () => {
    const job = (await core.call('jobs.start', { kind: 'rollout', params: { datasetId: 'd-demo', policy: `endpoint:${saved[1]!.id}`, n: 1, limit: 1 } })) as JobRecord;
    expect((await waitForStatus(core, job.id, ['succeeded', 'failed'], 300_000)).error).toBeUndefined();
    const set = ((await core.call('trajectories.list', {})) as ArtefactRecord[]).find((s) => s.id === job.id)!;
    const exported = sailor(['export', 'sft', '--trajectories', join(home, set.path), '--dataset', join(home, 'datasets', 'd-demo.jsonl'), '--out', join(home, 'sft-export.jsonl')], process.env);
    expect(exported.status, exported.stderr).toBe(0);
    expect(readFileSync(join(home, 'sft-export.jsonl'), 'utf8')).toContain('"role":"assistant"');
    const everything = allText(home);
    expect(everything).toContain(KEY_ENV);
    expect(everything).not.toContain(KEY);
  }, 400_000);
});
