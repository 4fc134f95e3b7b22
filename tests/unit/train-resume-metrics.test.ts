// A run killed before its first checkpoint and resumed starts over from step 0, and its metrics say so once
// (issue #44, item 6: each such resume wrote step 0 again, 206 records for 201 steps after 5 interrupted starts),
// and the killed start leaves no heartbeat folder behind (item 8).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readMetrics } from '../../main/lab/runs/metrics';
import { checkpointSteps } from '../../main/lab/runs/layout';
import { cliData, sailor, trainUntilKilled } from '../support/cli-helpers';
import { TINY_RUN } from '../support/tiny-run';

describe('a resume before the first checkpoint', () => {
  it('writes each step once: the killed start\'s step 0 is replaced, not repeated', { timeout: 900_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sailor-resume0-'));
    try {
      const home = join(dir, 'home');
      const env = { ...process.env, SAILOR_HOME: home };
      cliData(dir, env, { maxEdges: 300, train: 12, held: 4 });
      const steps = 4;
      writeFileSync(
        join(dir, 'run.json'),
        JSON.stringify({ ...TINY_RUN, data: { graphFile: 'g.json', datasetFile: 'train.jsonl', heldOutFile: 'held.jsonl' }, sft: { steps, batchSize: 2, warmupSteps: 1 }, eval: { every: steps, questions: 2 }, checkpoint: { every: steps } }),
      );
      // Killed once step 0 (the RFT report) is written, before any checkpoint.
      const runId = await trainUntilKilled(join(dir, 'run.json'), env, home, 50, (_, metrics) => readMetrics(metrics).some((r) => r.step === 0));
      expect(checkpointSteps(home, runId)).toEqual([]);
      const resumed = sailor(['train', '--resume', runId], env);
      expect(resumed.status, resumed.stderr).toBe(0);
      const steps0 = readMetrics(join(home, 'runs', runId, 'metrics.jsonl')).map((r) => r.step);
      expect(steps0).toEqual([...Array(steps + 1).keys()]); // 0 .. 4, once each
      // The killed start's heartbeat (procs/<session>.lock) went when the resume opened the store (item 8); the
      // resume's own went when it ended.
      expect(readdirSync(join(home, 'procs'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
