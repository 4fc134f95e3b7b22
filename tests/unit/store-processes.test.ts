// `sailor serve` and two CLI `sailor train` runs on one data directory at the same time, each doing real
// work: afterwards every run, job, graph and dataset any of them recorded is listed with its right status.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../e2e/serve';
import { LabCore } from '../../main/lab/app/core';
import type { JobRecord } from '../../main/lab/contract';
import { cliData } from '../support/cli-helpers';

async function api(origin: string, token: string, method: string, params: unknown): Promise<unknown> {
  const res = await fetch(`${origin}/api/${method}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify(params) });
  const body = (await res.json()) as { ok: boolean; result: unknown; error?: { message: string } };
  if (!body.ok) throw new Error(body.error?.message);
  return body.result;
}

function trainInBackground(config: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['bin/sailor.mjs', 'train', '--config', config, '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

async function waitForJob(origin: string, token: string, id: string): Promise<JobRecord> {
  for (;;) {
    const job = (await api(origin, token, 'jobs.get', { id })) as JobRecord;
    if (job.status !== 'running') return job;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('several processes on one data directory', () => {
  it('loses no record and shows every finished job as finished', { timeout: 600_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sailor-procs-'));
    const home = join(dir, 'home');
    const env = { ...process.env, SAILOR_HOME: home };
    cliData(dir, env, { maxEdges: 200, train: 20, held: 4, timeout: 120_000 });
    const configs = ['a', 'b'].map((name) => {
      const file = join(dir, `run-${name}.json`);
      writeFileSync(
        file,
        JSON.stringify({
          name: `run ${name}`,
          data: { graphFile: 'g.json', datasetFile: 'train.jsonl', heldOutFile: 'held.jsonl' },
          backend: 'wasm',
          workers: 1,
          env: { maxToolCalls: 6 },
          tokenizer: { vocabSize: 300 },
          model: { base: 'none', preset: 'tiny', blockSize: 64 },
          sft: { steps: 6, batchSize: 2, warmupSteps: 1 },
          eval: { every: 6, questions: 1 },
          checkpoint: { every: 3 },
        }),
      );
      return file;
    });

    const server = await serve(home);
    const serverJobs: string[] = [];
    try {
      const trains = configs.map((c) => trainInBackground(c, env));
      // Meanwhile the server records graphs and jobs of its own, writing db.json as often as it can.
      let trainsDone = false;
      void Promise.all(trains).then(() => (trainsDone = true));
      for (let i = 0; i < 3 || !trainsDone; i++) {
        const job = (await api(server.origin, server.token, 'jobs.start', { kind: i % 2 ? 'demo' : 'kg.build', params: i % 2 ? { records: 20, intervalMs: 5 } : { maxEdges: 20, rng: i } })) as JobRecord;
        serverJobs.push(job.id);
        expect((await waitForJob(server.origin, server.token, job.id)).status).toBe('succeeded');
      }
      const results = await Promise.all(trains);
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      const runIds = results.map((r) => (JSON.parse(r.stdout) as { artefact: { id: string } }).artefact.id);

      // The server sees what the CLI processes recorded, without a restart.
      const live = (await api(server.origin, server.token, 'runs.list', {})) as Array<{ artefact: { id: string }; status: string }>;
      expect(live.map((r) => [r.artefact.id, r.status]).sort()).toEqual(runIds.map((id) => [id, 'finished']).sort());
    } finally {
      await server.stop();
    }

    // And so does a fresh process afterwards.
    const core = await LabCore.open({ home, detectBackend: false });
    try {
      const runs = core.runs.list();
      expect(runs.map((r) => r.status)).toEqual(['finished', 'finished']);
      const jobs = core.jobs.list();
      expect(jobs.filter((j) => j.kind === 'train').map((j) => j.status)).toEqual(['succeeded', 'succeeded']);
      for (const id of serverJobs) expect(core.jobs.get(id).status).toBe('succeeded');
      expect(jobs.every((j) => j.status === 'succeeded')).toBe(true);
      const graphs = core.db.data.graphs;
      expect(graphs.filter((g) => g.id.startsWith('import-'))).toHaveLength(1); // the CLI's import, once
      expect(graphs.length).toBe(1 + Math.ceil(serverJobs.length / 2)); // and every server-built graph
      expect(core.db.data.datasets).toHaveLength(2); // train and held-out, imported once each
    } finally {
      await core.close();
    }
  });
});
