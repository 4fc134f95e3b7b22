// A real training run through the CLI, killed with SIGKILL after its first checkpoint and resumed:
// metric steps stay continuous (no duplicates, none missing), every file reads back, and the checkpoint
// runs as a policy in `sailor eval`.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readMetrics } from '../../main/lab/runs/metrics';
import { checkpointSteps } from '../../main/lab/runs/layout';
import { readCheckpointManifest } from '../../main/lab/model/checkpoint';
import { readJsonl } from '../../main/lab/store/files';
import { LabCore } from '../../main/lab/app/core';
import type { ComparisonView, JobRecord } from '../../main/lab/contract';
import { cliData, sailor, trainUntilKilled } from '../support/cli-helpers';

describe('training run: kill -9 and resume', () => {
  it('resumes from the last checkpoint with continuous metric steps', { timeout: 600_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sailor-train-'));
    const env = { ...process.env, SAILOR_HOME: join(dir, 'home') };
    cliData(dir, env, { maxEdges: 300, train: 40, held: 10 });
    const steps = 30;
    writeFileSync(
      join(dir, 'run.json'),
      JSON.stringify({
        name: 'kill test',
        data: { graphFile: 'g.json', datasetFile: 'train.jsonl', heldOutFile: 'held.jsonl' },
        backend: 'wasm',
        env: { maxToolCalls: 12 },
        tokenizer: { vocabSize: 512 },
        model: { base: 'none', preset: 'tiny', blockSize: 128 },
        sft: { steps, batchSize: 4, warmupSteps: 5 },
        eval: { every: 15, questions: 3 },
        checkpoint: { every: 10 },
      }),
    );

    // Start, wait until the step-10 checkpoint exists and training went past it, then SIGKILL.
    const runsDir = join(dir, 'home', 'runs');
    const runId = await trainUntilKilled(join(dir, 'run.json'), env, join(dir, 'home'), 100, (id, metrics) => checkpointSteps(join(dir, 'home'), id).includes(10) && readMetrics(metrics).some((r) => r.step >= 12));
    const home = join(dir, 'home');
    const before = readMetrics(join(runsDir, runId, 'metrics.jsonl'));
    expect(before.at(-1)!.step).toBeGreaterThan(10);

    const resumed = sailor(['train', '--resume', runId, '--json'], env);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('resumed from step');
    const summary = JSON.parse(resumed.stdout) as { status: string; lastStep: number; checkpoints: Array<{ step: number }> };
    expect(summary.status).toBe('finished');
    expect(summary.lastStep).toBe(steps);

    const after = readMetrics(join(runsDir, runId, 'metrics.jsonl'));
    expect(after.map((r) => r.step)).toEqual([...Array(steps + 1).keys()]); // 0 (RFT report) .. 30, once each
    expect(after.filter((r) => r.metrics['eval/pass@1'] !== undefined).map((r) => r.step)).toEqual([15, 30]);
    expect(checkpointSteps(home, runId)).toEqual([10, 20, 30]);
    for (const s of [10, 20, 30]) expect(readCheckpointManifest(join(runsDir, runId, 'checkpoints', `step-${String(s).padStart(6, '0')}`)).step).toBe(s);
    for (const f of readdirSync(join(runsDir, runId, 'evals'))) expect(readJsonl(join(runsDir, runId, 'evals', f)).tornTail).toBe(false);

    // The checkpoint is a policy: evaluated on the held-out set in its run's own environment.
    const ev = sailor(['eval', '--checkpoint', `${runId}/last`, '--dataset', join(dir, 'held.jsonl'), '--limit', '3', '--json'], env);
    expect(ev.status, ev.stderr).toBe(0);
    const report = JSON.parse(ev.stdout) as { 'pass@1': number; questions: number };
    expect(report.questions).toBe(3);
    expect(report['pass@1']).toBeGreaterThanOrEqual(0);

    // Two checkpoints of the run, side by side on the same held-out questions and seeds.
    const core = await LabCore.open({ home, detectBackend: false });
    try {
      const heldOutId = core.db.data.datasets.find((d) => d.name === 'held.jsonl')!.id;
      const job = (await core.call('jobs.start', { kind: 'compare', params: { checkpoints: [`${runId}/10`, `${runId}/last`], datasetId: heldOutId, questions: 3 } })) as JobRecord;
      let done = core.jobs.get(job.id);
      while (done.status === 'running') {
        await new Promise((r) => setTimeout(r, 200));
        done = core.jobs.get(job.id);
      }
      expect(done.status, done.error).toBe('succeeded');
      const cmp = (await core.call('comparisons.get', { id: job.id })) as ComparisonView;
      expect(cmp.checkpoints.map((c) => c.ref)).toEqual([`${runId}/10`, `${runId}/last`]);
      expect(cmp.questions).toHaveLength(3);
      for (const q of cmp.questions) {
        expect(q.results.map((r) => r.n)).toEqual([1, 1]);
        expect(cmp.questionText[q.qa_id]).toBeTruthy();
      }
      const sets = (await core.call('trajectories.list', {})) as Array<{ id: string }>;
      for (const c of cmp.checkpoints) expect(sets.map((x) => x.id)).toContain(c.setId);
      const first = cmp.questions[0]!;
      const detail = (await core.call('trajectories.one', { id: cmp.checkpoints[1]!.setId, trajId: first.results[1]!.trajIds[0]! })) as { trajectory: { qa_id: string } };
      expect(detail.trajectory.qa_id).toBe(first.qa_id);
    } finally {
      await core.close();
    }
  });
});
