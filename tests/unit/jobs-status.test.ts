// A job's status changes in one function (main/lab/jobs/status.ts): the allowed transitions, checked against
// the whole status-by-status table written out here by hand, and what each change writes beside the status.
import { describe, expect, it } from 'vitest';
import { JOB_STATUSES, type JobStatus } from '../../main/lab/contract';
import type { StoreJob } from '../../main/lab/store/db';
import { canTransition, isEnded, transition } from '../../main/lab/jobs/status';

const job = (status: JobStatus): StoreJob => ({
  id: 'j1',
  kind: 'demo',
  title: 'Demo',
  params: {},
  status,
  progress: { fraction: 0.4, message: 'step 4 of 10' },
  createdAt: '2026-11-28T10:00:00.000Z',
});
const NOW = '2026-11-28T10:05:00.000Z';

describe('job status transitions', () => {
  it('allows exactly these changes: a queued job starts or leaves, a running one ends, an ended one stays', () => {
    const allowed = new Set([
      'queued>running',
      'queued>cancelled',
      'queued>interrupted',
      'running>succeeded',
      'running>failed',
      'running>cancelled',
      'running>interrupted',
    ]);
    for (const from of JOB_STATUSES) {
      for (const to of JOB_STATUSES) {
        expect(canTransition(from, to), `${from} -> ${to}`).toBe(allowed.has(`${from}>${to}`));
        if (!allowed.has(`${from}>${to}`)) expect(() => transition(job(from), to, NOW), `${from} -> ${to}`).toThrow(`a ${from} job cannot become ${to}`);
      }
    }
    expect(JOB_STATUSES.filter(isEnded)).toEqual(['succeeded', 'failed', 'cancelled', 'interrupted']);
  });

  it('starting writes startedAt and a fresh progress, and leaves the record it was given as it was', () => {
    const queued = job('queued');
    const running = transition(queued, 'running', NOW);
    expect(running).toMatchObject({ status: 'running', startedAt: NOW, progress: { fraction: 0, message: 'starting' } });
    expect(running.endedAt).toBeUndefined();
    expect(queued.status).toBe('queued');
  });

  it('ending writes endedAt; success fills the bar and keeps the result, a failure keeps its error', () => {
    const ok = transition(job('running'), 'succeeded', NOW, { result: { n: 3 } });
    expect(ok).toMatchObject({ status: 'succeeded', endedAt: NOW, result: { n: 3 }, progress: { fraction: 1, message: 'done' } });
    const failed = transition(job('running'), 'failed', NOW, { error: 'out of memory' });
    expect(failed).toMatchObject({ status: 'failed', endedAt: NOW, error: 'out of memory', progress: { fraction: 0.4, message: 'step 4 of 10' } });
    expect(transition(job('queued'), 'cancelled', NOW).progress).toEqual({ fraction: 0.4, message: 'cancelled' });
    expect(transition(job('running'), 'interrupted', NOW, { error: 'the app was closed' })).toMatchObject({ status: 'interrupted', error: 'the app was closed' });
  });
});
