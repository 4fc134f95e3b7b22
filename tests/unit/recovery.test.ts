// Kill -9 the real `sailor serve` while its demo job writes a stream: every file stays readable and
// the next start lists the job as interrupted.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../e2e/serve';
import { readJsonl } from '../../main/lab/store/files';

async function api(origin: string, token: string, method: string, params: unknown): Promise<unknown> {
  const res = await fetch(`${origin}/api/${method}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify(params) });
  const body = (await res.json()) as { ok: boolean; result: unknown; error?: { message: string } };
  if (!body.ok) throw new Error(body.error?.message);
  return body.result;
}

describe('crash recovery', () => {
  it('survives kill -9 mid-stream and marks the job interrupted on restart', { timeout: 120_000 }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'sailor-kill-'));
    const first = await serve(home);
    const job = (await api(first.origin, first.token, 'jobs.start', { kind: 'demo', params: { records: 5000, intervalMs: 2 } })) as { id: string; stream: string };
    const streamFile = join(home, job.stream);
    // Let it write for a while, then kill the whole process without warning.
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      try {
        if (readJsonl(streamFile).records.length > 50) break;
      } catch {
        /* not created yet */
      }
    }
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));

    const db = JSON.parse(readFileSync(join(home, 'db.json'), 'utf8')) as { jobs: Array<{ id: string; status: string }> };
    expect(db.jobs.find((j) => j.id === job.id)?.status).toBe('running'); // as it was at the kill
    const stream = readJsonl(streamFile); // never throws: at worst the last line is torn
    expect(stream.records.length).toBeGreaterThan(50);
    expect(stream.records.map((r) => (r.value as { i: number }).i)).toEqual([...Array(stream.records.length).keys()]);

    const second = await serve(home);
    try {
      const jobs = (await api(second.origin, second.token, 'jobs.list', {})) as Array<{ id: string; status: string }>;
      expect(jobs.find((j) => j.id === job.id)?.status).toBe('interrupted');
      const page = (await api(second.origin, second.token, 'jobs.stream', { id: job.id, limit: 10_000 })) as { records: unknown[] };
      expect(page.records.length).toBe(stream.records.length);
    } finally {
      await second.stop();
    }
  });
});
