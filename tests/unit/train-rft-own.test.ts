// Rejection fine-tuning's data (run config data.trajectoriesId, train/rft-source.ts): a run takes its RFT data
// from a trajectory set instead of the expert, keeping the set's trajectories of its training questions that
// pass the RFT filters; a set with none of them is refused by name. Real files, the tiny model, one SFT step.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import type { Trajectory } from '../../main/lab/formats';
import { readTrajectories } from '../../main/lab/agent/data';
import { rolloutDataset } from '../../main/lab/agent/rollout';
import { simToolset } from '../../main/lab/agent/env';
import { SimWeb } from '../../main/lab/agent/web';
import { readGraphFile } from '../../main/lab/kg/io';
import { dataDir, rftFile } from '../../main/lab/runs/layout';
import { readJsonFile } from '../../main/lab/store/files';
import { writeTrajectorySet } from '../../main/lab/store/traj-set';
import { readDataset } from '../../main/lab/synth/dataset';
import { rftExpert } from '../../main/lab/train/policy/rft-expert';
import { runTrain } from '../../main/lab/train/job/train-job';
import { DATA, labHome, SMALL, testContext, writeRun } from '../support/rl-run-helpers';

describe('RFT data from a trajectory set (rejection fine-tuning)', () => {
  it('keeps the correct, well-formed samples of the training questions and names a set with none', { timeout: 900_000 }, async () => {
    const home = labHome(8);
    const graph = readGraphFile(join(home, 'graphs', 'g.json'));
    const train = readDataset(join(home, 'datasets', 'train.jsonl')).qas;
    const held = readDataset(join(home, 'datasets', 'held.jsonl')).qas;
    const env = parseRunConfig({ data: DATA }).env;
    const tools = simToolset(new SimWeb(graph, { topK: env.topK, snippetChars: env.snippetChars, maxEvidence: env.maxEvidence }));
    const play = (qas: typeof train): Promise<Trajectory[]> => rolloutDataset(qas, rftExpert('compact', graph), tools, { n: 2, seed: 3, limits: { maxToolCalls: 12, maxNewTokens: 512 } });
    // Two samples of each training question, every second one marked wrong, and samples of held-out questions.
    const mine = (await play(train)).map((t, i) => (i % 2 === 1 ? { ...t, id: `${t.id}-wrong`, reward: { ...t.reward, answer: 0 } } : t));
    // Samples of other questions: the held-out set numbers its questions as the training set does (qa-000001 ...),
    // so they carry ids no training question has, as a set made on another dataset would.
    const others = (await play(held)).map((t) => ({ ...t, qa_id: `held-${t.qa_id}` }));
    writeTrajectorySet(join(home, 'trajectories', 'own.jsonl'), { kind: 'eval' }, [...mine, ...others]);

    writeRun(home, 'rft-own', { ...SMALL, data: { ...DATA, trajectoriesId: 'own' }, sft: { steps: 1, batchSize: 2, warmupSteps: 0 } });
    await runTrain({ runId: 'rft-own' }, testContext(home));
    const report = readJsonFile(join(dataDir(home, 'rft-own'), 'rft-report.json')) as { attempts: number; kept: number; removed: Record<string, number> };
    expect(report.attempts).toBe(mine.length); // the held-out questions' samples are left out
    // Every second sample marked wrong, and those the expert itself got wrong.
    expect(report.removed.incorrect).toBe(mine.filter((t) => t.reward.answer < 1).length);
    expect(report.removed.incorrect).toBeGreaterThanOrEqual(mine.length / 2);
    const kept = readTrajectories(rftFile(home, 'rft-own'));
    expect(kept.length).toBe(report.kept);
    expect(kept.length).toBeGreaterThan(0);
    const trainIds = new Set(train.map((q) => q.id));
    for (const t of kept) {
      expect(trainIds.has(t.qa_id)).toBe(true);
      expect(t.reward.answer).toBe(1);
      expect(t.id.endsWith('-wrong')).toBe(false);
    }

    writeTrajectorySet(join(home, 'trajectories', 'held-only.jsonl'), { kind: 'eval' }, others);
    writeRun(home, 'rft-none', { ...SMALL, data: { ...DATA, trajectoriesId: 'held-only' }, sft: { steps: 1, batchSize: 2, warmupSteps: 0 } });
    await expect(runTrain({ runId: 'rft-none' }, testContext(home))).rejects.toThrow(/trajectory set held-only: none of its \d+ trajectories answers a question of the training set/);
    writeRun(home, 'rft-missing', { ...SMALL, data: { ...DATA, trajectoriesId: 'nope' }, sft: { steps: 1, batchSize: 2, warmupSteps: 0 } });
    await expect(runTrain({ runId: 'rft-missing' }, testContext(home))).rejects.toThrow(/no trajectory set with id 'nope'/);
  });
});
