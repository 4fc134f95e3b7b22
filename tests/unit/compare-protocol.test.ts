// Compare and the dashboard agree: a tiny run evaluates itself on its held-out questions as it trains, then the
// `compare` job, given only the checkpoints (every protocol field left to its default), asks the same questions
// with the same seeds, temperature and limits, and each checkpoint gets the pass@1 and the very answers the
// run's own evaluation recorded at that step. With enough samples to fill a batch, the job decodes on the
// threads the process keeps, and every episode is the one a single thread plays.
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Trajectory } from '../../main/lab/formats';
import type { ComparisonFile } from '../../main/lab/contract';
import { readJsonFile, readJsonl } from '../../main/lab/store/files';
import { checkpointDir, evalFile, resolveCheckpoint } from '../../main/lab/runs/layout';
import { runTrain } from '../../main/lab/train/job/train-job';
import { runCompare } from '../../main/lab/train/act/compare-job';
import { ACTING_THREADS_FROM, registerCheckpointPolicies, runEnvironment } from '../../main/lab/train/policy/checkpoints';
import { evalSeed } from '../../main/lab/train/policy/eval-setup';
import { ActingThreads } from '../../main/lab/model/acting-threads';
import { loadCheckpoint } from '../../main/lab/model/checkpoint';
import { disposeModel } from '../../main/lab/model/gpt';
import { resolvePolicy } from '../../main/lab/agent/policies';
import { preparePolicy, rolloutDataset } from '../../main/lab/agent/rollout';
import { readQaDataset } from '../../main/lab/agent/data';
import { simToolset } from '../../main/lab/agent/env';
import { SimWeb } from '../../main/lab/agent/web';
import { readGraphFile } from '../../main/lab/kg/io';
import { labHome, SMALL, testContext, writeRun } from '../support/rl-run-helpers';

/** A trajectory set file's trajectories (the lines after the header). */
const trajsOf = (path: string): Trajectory[] => readJsonl(path).records.slice(1).map((r) => r.value as Trajectory);
/** What an episode did: its turns, answer, ending and reward. */
const episodeOf = (t: Trajectory): string => JSON.stringify([t.qa_id, t.steps, t.prediction, t.termination, t.reward.answer, t.tool_calls]);

describe('compare job: the run evaluation protocol by default', () => {
  let home: string;
  beforeAll(async () => {
    home = labHome();
    // Two threads (not `auto`): the second case needs a thread beside this one on any machine.
    writeRun(home, 'r', { ...SMALL, workers: 2, sft: { steps: 4, batchSize: 4, warmupSteps: 1 }, eval: { every: 2, questions: 4, temperature: 1 }, checkpoint: { every: 2 } });
    await runTrain({ runId: 'r' }, testContext(home));
  }, 300_000);

  it('scores each checkpoint as the run scored it at that step, question by question', { timeout: 300_000 }, async () => {
    const { artefact } = await runCompare({ checkpoints: ['r/2', 'r/4'] }, testContext(home));
    // The protocol it ran is the run's: held-out set, 4 questions, 1 sample, its temperature (sampled, so the
    // seeds must match too), the run's seed.
    expect(artefact.info.params).toMatchObject({ datasetId: 'held', questions: 4, samples: 1, temperature: 1, rng: 1 });
    const file = readJsonFile(join(home, artefact.path)) as ComparisonFile;
    expect(file.questions).toHaveLength(4);

    for (const [i, step] of [2, 4].entries()) {
      const evalHeader = readJsonl(evalFile(home, 'r', step)).records[0]!.value as { summary: Record<string, number> };
      const inRun = trajsOf(evalFile(home, 'r', step));
      const cmp = trajsOf(join(home, 'trajectories', `test-${i}.jsonl`));
      expect(file.checkpoints[i]!.eval?.['pass@1']).toBeCloseTo(evalHeader.summary['eval/pass@1']!, 12);
      // The same questions in the same order, and the same episode on each: same turns, same answer, same reward.
      expect(cmp.map((t) => t.qa_id)).toEqual(inRun.map((t) => t.qa_id));
      for (const [j, t] of cmp.entries()) {
        const r = inRun[j]!;
        expect(t.steps.map((s) => JSON.stringify(s))).toEqual(r.steps.map((s) => JSON.stringify(s)));
        expect([t.prediction, t.termination, t.reward.answer, t.tool_calls]).toEqual([r.prediction, r.termination, r.reward.answer, r.tool_calls]);
      }
      // The outcome table says the same per question.
      for (const q of file.questions) expect(q.results[i]!.correct > 0).toBe(inRun.some((t) => t.qa_id === q.qa_id && t.reward.answer >= 1));
    }
  });

  it('plays a batch-sized comparison on the threads the process keeps, each episode as one thread plays it', { timeout: 400_000 }, async () => {
    const samples = ACTING_THREADS_FROM / 4; // 4 questions: a full batch
    // The process has its threads already (an earlier job started them): this job decodes on them.
    const warm = await loadCheckpoint(checkpointDir(home, 'r', 2));
    await ActingThreads.kept(warm.model, 2).whenReady();
    disposeModel(warm.model);
    const turns = ActingThreads.keptTurns;
    await runCompare({ checkpoints: ['r/2', 'r/4'], samples }, { ...testContext(home), jobId: 'many' });
    expect(ActingThreads.keptTurns).toBeGreaterThan(turns);

    // One thread, the same protocol: the run's held-out questions, its temperature and evaluation seed.
    registerCheckpointPolicies(home);
    const graph = readGraphFile(join(home, 'graphs', 'g.json'));
    const qas = readQaDataset(join(home, 'datasets', 'held.jsonl')).qas.slice(0, 4);
    for (const [i, step] of [2, 4].entries()) {
      const one = resolvePolicy(`ckpt:r/${step}`, { actingThreads: 1, temperature: 1 });
      await preparePolicy(one, { episodes: qas.length * samples });
      expect(one.inFlight).toBe(ACTING_THREADS_FROM); // one thread's batch
      const env = runEnvironment(resolveCheckpoint(`r/${step}`, home).config);
      const want = await rolloutDataset(qas, one, simToolset(new SimWeb(graph, env.web)), {
        n: samples, seed: evalSeed(1), limits: { maxToolCalls: env.maxToolCalls, maxNewTokens: env.maxNewTokens }, reward: { mode: 'em' },
      });
      const got = trajsOf(join(home, 'trajectories', `many-${i}.jsonl`));
      expect(got.map(episodeOf)).toEqual(want.map(episodeOf));
    }
  });
});
