// Cancelling a queued job twice at once (issue #44, item 7): both answers say cancelled. The second used to read
// the store before the first's update reached it and answered `status: "queued"`.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LabCore } from '../../main/lab/app/core';
import type { JobRecord } from '../../main/lab/contract';

const home = mkdtempSync(join(tmpdir(), 'sailor-cancel-'));
let core: LabCore | undefined;
afterAll(async () => {
  await core?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('jobs.cancel of a queued job', () => {
  it('answers cancelled to a duplicate cancel sent at the same time, and the store agrees', async () => {
    core = await LabCore.open({ home, detectBackend: false });
    const started: JobRecord[] = [];
    // Long demo jobs until one has to wait (the running limits are per kind and in total).
    while (!started.some((j) => j.status === 'queued') && started.length < 20) {
      started.push((await core.call('jobs.start', { kind: 'demo', params: { records: 100_000, intervalMs: 50 } })) as JobRecord);
    }
    const queued = started.find((j) => j.status === 'queued');
    expect(queued, 'a job that waits in the queue').toBeDefined();
    const answers = (await Promise.all([core.call('jobs.cancel', { id: queued!.id }), core.call('jobs.cancel', { id: queued!.id })])) as JobRecord[];
    expect(answers.map((a) => a.status)).toEqual(['cancelled', 'cancelled']);
    expect(((await core.call('jobs.cancel', { id: queued!.id })) as JobRecord).status).toBe('cancelled');
    expect(core.jobs.get(queued!.id).status).toBe('cancelled');
    for (const j of started) if (j.id !== queued!.id) await core.call('jobs.cancel', { id: j.id });
  }, 120_000);
});
