// Turn rewards in the RL stage (train/policy/turn-rewards.ts, train/rl-stage/rl-turns.ts), in-process with real files and
// the tiny model: every rollout answers wrong, so no group has outcome signal; half of them search a bridge
// of the question's chain first. With credit per turn those groups have signal (the search that showed the
// bridge is credited, the wrong answer after it debited) and the stage updates; with the shaping added to the
// episode's reward instead, a wrong episode's turn rewards add up to 0 and every step is skipped.
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readMetrics } from '../../main/lab/runs/metrics';
import { metricsFile, rolloutsFile } from '../../main/lab/runs/layout';
import { readRlStep } from '../../main/lab/runs/rollouts';
import { readGraphFile } from '../../main/lab/kg/io';
import { runTrain, type TrainHooks } from '../../main/lab/train/job/train-job';
import { bridgeNames } from '../../main/lab/train/policy/turn-rewards';
import type { Policy } from '../../main/lab/agent/runtime';
import { labHome, SMALL, testContext, writeRun } from '../support/rl-run-helpers';

const home = labHome();
const INIT = 'sft/2';
const names = new Map(readGraphFile(join(home, 'graphs', 'g.json')).nodes.map((n) => [n.id, n.name]));

beforeAll(async () => {
  writeRun(home, 'sft', { ...SMALL, sft: { steps: 2, batchSize: 4, warmupSteps: 1 } });
  await runTrain({ runId: 'sft' }, testContext(home));
}, 120_000);

const turn = (think: string, action: string): string => `<think>\n${think}\n</think>\n${action}`;
/** Even samples search the question's first bridge by name, then answer wrong; odd samples answer wrong at once. */
const hooks: TrainHooks = {
  rolloutPolicy: (qa, sample): Policy => {
    const bridge = bridgeNames(qa, names)[0];
    let turns = 0;
    return {
      name: 'scripted',
      async generate() {
        turns++;
        if (turns === 1 && sample % 2 === 0 && bridge) return turn(`Search for ${bridge}.`, `<tool_call>\n${JSON.stringify({ name: 'search', arguments: { query: [bridge] } })}\n</tool_call>`);
        return turn('I have it.', '<answer>nobody</answer>');
      },
    };
  },
};

describe('turn rewards in the RL stage', () => {
  it('credit per turn finds signal where every outcome is equal; the same shaping per episode finds none', { timeout: 300_000 }, async () => {
    const rl = { algorithm: 'grpo', steps: 2, groupSize: 4, batchQuestions: 4, evalEvery: 2, checkpointEvery: 2, headroomQuestions: 0, turnRewards: { seen: 0.2, hop: 0.3 } };
    for (const credit of ['turn', 'episode'] as const) {
      const runId = `turns-${credit}`;
      writeRun(home, runId, { ...SMALL, sft: { steps: 0 }, init: { checkpoint: INIT }, rl: { ...rl, credit } });
      await runTrain({ runId }, testContext(home), hooks);
      const records = readMetrics(metricsFile(home, runId)).filter((r) => r.step > 0);
      expect(records).toHaveLength(2);
      for (const r of records) {
        expect(r.metrics['reward/answer']).toBe(0);
        expect(r.metrics['turn/seen']).toBeGreaterThan(0);
        // What was seen is given back at the wrong answer: the kinds add up to 0 per episode.
        expect(r.metrics['turn/seen']! + r.metrics['turn/dropped']!).toBeCloseTo(0, 9);
      }
      const step1 = readRlStep(rolloutsFile(home, runId, 1));
      const lines = step1.trajectories as unknown as { turn_rewards?: number[]; turn_advantages?: number[]; steps: unknown[] }[];
      for (const t of lines) expect(t.turn_rewards).toHaveLength(t.steps.length);
      if (credit === 'turn') {
        for (const r of records) {
          expect(r.metrics['batch/skipped']).toBe(0);
          expect(r.metrics['batch/turn_signal_frac']).toBeGreaterThan(0);
        }
        // The search that showed the bridge is credited, the wrong answer after it debited.
        const searched = lines.filter((t) => t.steps.length === 2 && t.turn_rewards![0]! > 0);
        expect(searched.length).toBeGreaterThan(0);
        for (const t of searched) expect(t.turn_advantages).toEqual([t.turn_rewards![0], t.turn_rewards![1]]);
      } else {
        for (const r of records) expect(r.metrics['batch/skipped']).toBe(1);
        for (const t of lines) expect(t.turn_advantages).toBeUndefined();
      }
    }
  });
});
