// An SFT -> RL run through the CLI, killed with SIGKILL in the RL stage and resumed (as train-run.test.ts
// does for SFT): metric steps stay continuous across both stages, the RL stage picks up from its own
// checkpoint (optimiser and policy version), and every file reads back whole.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readMetrics } from '../../main/lab/runs/metrics';
import { checkpointDir, checkpointSteps, rolloutSteps, rolloutsFile } from '../../main/lab/runs/layout';
import { readRlStep } from '../../main/lab/runs/rollouts';
import { loadCheckpoint } from '../../main/lab/model/checkpoint';
import { readJsonl } from '../../main/lab/store/files';
import { disposeModel } from '../../main/lab/model/gpt';
import { copyLabFiles, labHome, SMALL } from '../support/rl-run-helpers';
import { sailor, trainUntilKilled } from '../support/cli-helpers';

describe('SFT -> RL run: kill -9 in the RL stage and resume', () => {
  it('resumes from the last RL checkpoint with continuous metric steps and intact files', { timeout: 300_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sailor-rl-kill-'));
    const data = labHome(); // the invented world's files, imported by the CLI from the config
    copyLabFiles(data, dir);
    const env = { ...process.env, SAILOR_HOME: join(dir, 'home') };
    const sft = 4;
    const rl = 6;
    writeFileSync(
      join(dir, 'run.json'),
      JSON.stringify({
        ...SMALL,
        name: 'rl kill test',
        data: { graphFile: 'g.json', datasetFile: 'train.jsonl', heldOutFile: 'held.jsonl' },
        sft: { steps: sft, batchSize: 4, warmupSteps: 1 },
        checkpoint: { every: 2 },
        rl: { steps: rl, groupSize: 4, batchQuestions: 2, evalEvery: 3, checkpointEvery: 2 },
      }),
    );

    // Start; once the RL checkpoint at step 6 exists and step 7 is recorded (and step 8 not yet saved), SIGKILL.
    const home = join(dir, 'home');
    const runsDir = join(home, 'runs');
    const runId = await trainUntilKilled(join(dir, 'run.json'), env, home, 25, (id, metrics) => checkpointSteps(home, id).includes(6) && readMetrics(metrics).some((r) => r.step >= 7));
    const before = readMetrics(join(runsDir, runId, 'metrics.jsonl'));
    const lastCheckpoint = checkpointSteps(home, runId).at(-1)!;
    expect(lastCheckpoint).toBeGreaterThan(sft); // killed inside the RL stage
    const killedAt = before.at(-1)!.step;

    const resumed = sailor(['train', '--resume', runId, '--json'], env);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resumed from step ${lastCheckpoint}`);
    expect(resumed.stderr).toContain(`RL: resumed at step ${lastCheckpoint}`);
    const summary = JSON.parse(resumed.stdout) as { status: string; lastStep: number };
    expect(summary).toMatchObject({ status: 'finished', lastStep: sft + rl });

    const after = readMetrics(join(runsDir, runId, 'metrics.jsonl'));
    expect(after.map((r) => r.step)).toEqual([...Array(sft + rl + 1).keys()]); // 0 (RFT report) .. 10, once each
    expect(after.filter((r) => r.metrics['eval/pass@1'] !== undefined).map((r) => r.step)).toEqual([sft, sft + 3, sft + 6]);
    for (const r of after.filter((x) => x.step > sft)) expect(r.metrics).toHaveProperty(['reward/mean']);
    // The policy version goes on from the checkpoint's (each step adds one when it updated).
    const versions = after.filter((x) => x.step > sft).map((x) => x.metrics['rl/policy_version']!);
    versions.slice(1).forEach((v, i) => expect(v - versions[i]!).toBe(after.find((x) => x.step === sft + 2 + i)!.metrics['batch/skipped'] === 1 ? 0 : 1));
    expect(killedAt).toBeGreaterThan(lastCheckpoint);

    expect(checkpointSteps(home, runId)).toEqual([2, 4, 6, 8, 10]);
    for (const s of [2, 4, 6, 8, 10]) {
      const loaded = await loadCheckpoint(checkpointDir(home, runId, s));
      expect(loaded.manifest.lineage.stage).toBe(s > sft ? 'rl' : 'sft');
      if (s > sft) expect(loaded.manifest.lineage.parent).toBe(`${runId}/${sft}`);
      disposeModel(loaded.model);
      loaded.optimizer?.dispose();
    }
    expect(rolloutSteps(home, runId)).toEqual([5, 6, 7, 8, 9, 10]);
    for (const s of rolloutSteps(home, runId)) {
      expect(readJsonl(rolloutsFile(home, runId, s)).tornTail).toBe(false);
      const { header, trajectories } = readRlStep(rolloutsFile(home, runId, s));
      expect(header.step).toBe(s);
      expect(header.summary['reward/mean']).toBe(after.find((r) => r.step === s)!.metrics['reward/mean']);
      expect(trajectories).toHaveLength(header.plan.groups.length * 4);
    }
    for (const f of readdirSync(join(runsDir, runId, 'evals'))) expect(readJsonl(join(runsDir, runId, 'evals', f)).tornTail).toBe(false);
  });
});
