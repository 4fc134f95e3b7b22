// Compare and the dashboard agree: a tiny run evaluates itself on its held-out questions as it trains, then the
// `compare` job, given only the checkpoints (every protocol field left to its default), asks the same questions
// with the same seeds, temperature and limits, and each checkpoint gets the pass@1 and the very answers the
// run's own evaluation recorded at that step.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Trajectory } from '../../main/lab/formats';
import type { ComparisonFile } from '../../main/lab/contract';
import { readJsonFile, readJsonl } from '../../main/lab/store/files';
import { evalFile } from '../../main/lab/runs/layout';
import { runTrain } from '../../main/lab/train/job/train-job';
import { runCompare } from '../../main/lab/train/act/compare-job';
import { labHome, SMALL, testContext, writeRun } from '../support/rl-run-helpers';

/** A trajectory set file's trajectories (the lines after the header). */
const trajsOf = (path: string): Trajectory[] => readJsonl(path).records.slice(1).map((r) => r.value as Trajectory);

describe('compare job: the run evaluation protocol by default', () => {
  it('scores each checkpoint as the run scored it at that step, question by question', { timeout: 120_000 }, async () => {
    const home = labHome();
    writeRun(home, 'r', { ...SMALL, sft: { steps: 4, batchSize: 4, warmupSteps: 1 }, eval: { every: 2, questions: 4, temperature: 1 }, checkpoint: { every: 2 } });
    await runTrain({ runId: 'r' }, testContext(home));

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
});
