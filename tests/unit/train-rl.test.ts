// The RL stage of a training run, in-process with real files in a temporary data directory and the tiny
// model: SFT -> RL (DUPO) with continuous steps and the rollouts files the group view reads; RL-only runs
// from a checkpoint with DAPO refill and GRPO; asynchronous rollouts within the staleness bound; the
// tensor count flat across RL steps; SFT continued from a checkpoint. Each `it` names one behaviour; a run
// that several behaviours are read from is trained once, in its describe's beforeAll. (The kill -9 / resume
// test is in train-rl-resume.test.ts.)
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { readMetrics } from '../../main/lab/runs/metrics';
import { join } from 'node:path';
import { checkpointDir, checkpointSteps, dataDir, metricsFile, rolloutSteps, rolloutsFile } from '../../main/lab/runs/layout';
import { readRlStep } from '../../main/lab/runs/rollouts';
import { loadCheckpoint, readCheckpointManifest } from '../../main/lab/model/checkpoint';
import { disposeModel } from '../../main/lab/model/gpt';
import { readJsonFile } from '../../main/lab/store/files';
import { runTrain, type TrainHooks } from '../../main/lab/train/job/train-job';
import { seedFrom } from '../../main/lab/util/rng';
import { DATA, labHome, scriptedPolicy, SMALL, testContext, writeRun } from '../support/rl-run-helpers';
import { fixtureGraph } from '../support/fixture-graph';
import { synthesize } from '../../main/lab/synth/build';
import { readDataset, writeDataset } from '../../main/lab/synth/dataset';
import { datasetEdges } from '../../main/lab/synth/splits';

const home = labHome();
const SFT_RUN = 'sft-rl';
/** The checkpoint the RL-only runs start from: a 2-step SFT run of its own. */
const INIT = 'sft/2';

beforeAll(async () => {
  writeRun(home, 'sft', { ...SMALL, sft: { steps: 2, batchSize: 4, warmupSteps: 1 } });
  await runTrain({ runId: 'sft' }, testContext(home));
}, 120_000);

/** Half of each group is the model, half scripted (one right, one wrong answer): every group has signal. */
const mixed: TrainHooks = {
  rolloutPolicy: (qa, sample, model) => (sample % 2 === 0 ? model : scriptedPolicy(qa, { searches: 1, correct: sample % 4 === 1 })),
};

function rlRecords(runId: string, from: number) {
  return readMetrics(metricsFile(home, runId)).filter((r) => r.step > from);
}

describe('SFT -> DUPO in one run', () => {
  // One run, shared by every test below: 4 SFT steps, then 4 DUPO steps of 2 questions x G 4, where every group
  // has signal (half the rollouts are scripted, one right and one wrong), an evaluation every 2 steps.
  const tensors = new Map<number, number>();
  let records: ReturnType<typeof readMetrics> = [];
  const rlSteps = [5, 6, 7, 8];
  beforeAll(async () => {
    writeRun(home, SFT_RUN, {
      ...SMALL,
      sft: { steps: 4, batchSize: 4, warmupSteps: 1 },
      checkpoint: { every: 2 },
      rl: { steps: 4, groupSize: 4, batchQuestions: 2, evalEvery: 2, checkpointEvery: 2 },
    });
    const r = await runTrain({ runId: SFT_RUN }, testContext(home, (s) => tensors.set(s, tf.memory().numTensors)), mixed);
    expect(r.step).toBe(8);
    records = readMetrics(metricsFile(home, SFT_RUN));
  }, 120_000);

  it("numbers RL's steps after SFT's, one record each", () => {
    expect(records.map((x) => x.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('records the RL metrics every step, and the update’s when a group had signal', () => {
    for (const rec of records.filter((x) => x.step > 4)) {
      for (const k of ['reward/mean', 'reward/std', 'reward/format', 'reward/answer', 'rollout/tool_calls_mean', 'rollout/response_tokens_mean', 'rollout/num_turns_mean', 'batch/zero_std_frac', 'batch/duplicated_frac', 'batch/skipped', 'timing/rollout_s', 'timing/update_s', 'perf/tokens_per_s', 'rl/policy_version']) {
        expect(rec.metrics, `step ${rec.step} ${k}`).toHaveProperty([k]);
      }
      // Every group has signal: an update every step, with the loss statistics.
      expect(rec.metrics['batch/skipped']).toBe(0);
      for (const k of ['actor/pg_loss', 'actor/pg_clipfrac', 'actor/entropy', 'actor/grad_norm', 'actor/lr', 'actor/approx_kl']) expect(rec.metrics, `step ${rec.step} ${k}`).toHaveProperty([k]);
      expect(rec.metrics['rl/policy_version']).toBe(rec.step - 4);
    }
    expect(records.find((x) => x.step === 5)!.metrics['rl/pool_questions']).toBeGreaterThan(0);
  });

  it('measures the headroom once, before the first update, on RL and held-out questions', () => {
    // k = 1, 2, 4 (G): every group has one scripted right answer of 4 (sample 1), so pass@4 is 1 and pass@1 at
    // least 1/4; the curve never falls.
    const step1 = records.find((x) => x.step === 5)!.metrics;
    for (const set of ['rl', 'heldout']) {
      const curve = [1, 2, 4].map((k) => step1[`headroom/${set}/pass@${k}`]!);
      expect(curve[2], set).toBe(1);
      expect(curve[0], set).toBeGreaterThanOrEqual(0.25);
      expect(curve[1]!, set).toBeGreaterThanOrEqual(curve[0]!);
    }
    expect(records.find((x) => x.step === 6)!.metrics['headroom/rl/pass@1']).toBeUndefined();
  });

  it("evaluates at SFT's end and every rl.evalEvery RL steps", () => {
    expect(records.filter((x) => x.metrics['eval/pass@1'] !== undefined).map((x) => x.step)).toEqual([4, 6, 8]);
  });

  it("keeps checkpoints with their lineage: SFT's stage sft, RL's parent SFT's last", () => {
    expect(checkpointSteps(home, SFT_RUN)).toEqual([2, 4, 6, 8]);
    const m = readCheckpointManifest(checkpointDir(home, SFT_RUN, 8));
    expect(m.lineage).toMatchObject({ stage: 'rl', parent: `${SFT_RUN}/4`, run: SFT_RUN });
    expect(readCheckpointManifest(checkpointDir(home, SFT_RUN, 4)).lineage.stage).toBe('sft');
  });

  it("writes each RL step's rollouts file: its plan's groups, rewards and advantages agree with the trajectories and the metrics", () => {
    expect(rolloutSteps(home, SFT_RUN)).toEqual(rlSteps);
    for (const s of rlSteps) {
      const { header, trajectories } = readRlStep(rolloutsFile(home, SFT_RUN, s));
      expect(header).toMatchObject({ kind: 'rl', run: SFT_RUN, step: s, policy_version: s - 5 });
      expect(header.plan.method).toBe('dupo');
      expect(header.plan.groups).toHaveLength(2);
      expect(header.summary['reward/mean']).toBe(records.find((x) => x.step === s)!.metrics['reward/mean']);
      expect(trajectories).toHaveLength(8);
      for (const g of header.plan.groups) {
        expect(g.group).toBe(`${s}/${g.qa_id}`);
        expect(g.rewards).toHaveLength(4);
        expect(g.status).toBe('kept');
        const mine = trajectories.filter((t) => t.group === g.group);
        expect(mine.map((t) => t.reward.total)).toEqual(g.rewards);
        expect(mine.map((t) => t.advantage)).toEqual(g.advantages);
      }
      for (const t of trajectories) {
        expect(t.policy_version).toBe(s - 5);
        expect(t.staleness).toBe(0);
      }
    }
  });

  it("stores the model's own rollouts with the token ids it sampled in every turn", () => {
    for (const s of rlSteps) {
      const own = readRlStep(rolloutsFile(home, SFT_RUN, s)).trajectories.filter((t) => /\/[02]$/.test(t.id));
      expect(own.length).toBeGreaterThan(0);
      expect(own.every((t) => t.steps.every((st) => Array.isArray((st as { gen?: { ids: number[] } }).gen?.ids)))).toBe(true);
    }
  });

  it('keeps the tensor count flat across RL steps', () => {
    // The count after RL step 4 equals the count after RL step 2 (same work in between: eval, checkpoint).
    expect(tensors.get(8)).toBeDefined();
    expect(tensors.get(8)).toBe(tensors.get(6));
  });
});

describe('RL-only from a checkpoint', () => {
  // Half the questions (by id) are all-wrong for every rollout: zero-std groups that DAPO and GRPO must drop.
  const hard = (id: string): boolean => seedFrom(id) % 2 === 0;
  const hooks: TrainHooks = {
    rolloutPolicy: (qa, sample) => scriptedPolicy(qa, { searches: 1, correct: !hard(qa.id) && sample % 2 === 0 }),
  };
  const Q = { dapo: 2, grpo: 4 };
  /** A 3-step RL run of `algorithm` from INIT; its records and its three steps' rollouts files. */
  async function rlOnlyRun(algorithm: 'dapo' | 'grpo') {
    const runId = `init-${algorithm}`;
    writeRun(home, runId, {
      ...SMALL,
      sft: { steps: 0 },
      init: { checkpoint: INIT },
      // GRPO also takes two optimiser steps per batch (old log-probs computed once before the first).
      rl: { algorithm, steps: 3, groupSize: 4, batchQuestions: Q[algorithm], evalEvery: 3, checkpointEvery: 3, dapoMaxRounds: 4, updatesPerBatch: algorithm === 'grpo' ? 2 : 1 },
    });
    const r = await runTrain({ runId }, testContext(home, undefined, []), hooks);
    expect(r.step).toBe(3);
    const records = rlRecords(runId, 0);
    expect(records.map((x) => x.step)).toEqual([1, 2, 3]);
    expect(checkpointSteps(home, runId)).toEqual([3]);
    expect(readCheckpointManifest(checkpointDir(home, runId, 3)).lineage).toMatchObject({ stage: 'rl', parent: INIT });
    const steps = [1, 2, 3].map((s) => readRlStep(rolloutsFile(home, runId, s)));
    for (const { header, trajectories } of steps) {
      expect(header.plan.method).toBe(algorithm);
      expect(trajectories).toHaveLength(header.plan.groups.length * 4);
      // Only groups with signal are kept; neither method copies one.
      for (const g of header.plan.groups) expect(g.status === 'kept').toBe(!hard(g.qa_id) && g.std > 0 && g.copies === 1);
      expect(header.plan.groups.filter((g) => g.status === 'duplicated')).toHaveLength(0);
    }
    expect(records.some((x) => x.metrics['batch/skipped'] === 0 && x.metrics['actor/pg_loss'] !== undefined)).toBe(true);
    return { runId, records, steps, optimiserSteps: readCheckpointManifest(checkpointDir(home, runId, 3)).optimizer!.step };
  }

  it('DAPO plays more questions until the batch has batchQuestions groups with signal', { timeout: 120_000 }, async () => {
    const { records, steps, optimiserSteps } = await rlOnlyRun('dapo');
    for (const [i, { header }] of steps.entries()) {
      expect(records[i]!.metrics).toHaveProperty(['batch/refill_rounds']);
      expect(header.plan.groups.filter((g) => g.status === 'kept').length).toBeLessThanOrEqual(Q.dapo);
    }
    expect(steps.reduce((n, { header }) => n + header.plan.refilled, 0)).toBeGreaterThan(0);
    // One optimiser step per step that did not skip.
    expect(optimiserSteps).toBe(steps.filter(({ header }) => !header.plan.skip).length);
  });

  it('GRPO drops zero-std groups without refilling, and takes updatesPerBatch optimiser steps per batch', { timeout: 120_000 }, async () => {
    const { records, steps, optimiserSteps } = await rlOnlyRun('grpo');
    let expected = 0;
    for (const { header } of steps) {
      expect(header.plan.refilled).toBe(0);
      expect(header.plan.groups).toHaveLength(Q.grpo);
      const kept = header.plan.groups.filter((g) => g.status === 'kept').length;
      if (!header.plan.skip) expected += Math.min(2, kept);
    }
    expect(optimiserSteps).toBe(expected);
    expect(optimiserSteps).toBeGreaterThan(records.filter((x) => x.metrics['batch/skipped'] === 0).length);
  });

  it('draws its questions from data.rlDatasetId when the config names one, never from the SFT questions', { timeout: 120_000 }, async () => {
    // Fresh RL questions: another seed on the same graph, ids prefixed so they cannot be confused with training ones.
    const fresh = synthesize(fixtureGraph({ seed: 11 }), { count: 6, rng: 3, graphName: 'g' }).qas.map((qa) => ({ ...qa, id: `rl-${qa.id}` }));
    writeDataset(join(home, 'datasets', 'fresh.jsonl'), { graph: 'g' }, fresh);
    const runId = 'init-fresh';
    writeRun(home, runId, {
      ...SMALL,
      data: { ...DATA, rlDatasetId: 'fresh' },
      sft: { steps: 0 },
      init: { checkpoint: INIT },
      rl: { algorithm: 'grpo', steps: 2, groupSize: 2, batchQuestions: 3, evalEvery: 2, checkpointEvery: 2 },
    });
    const hooks: TrainHooks = { rolloutPolicy: (qa, sample) => scriptedPolicy(qa, { searches: 1, correct: sample === 0 }) };
    await runTrain({ runId }, testContext(home), hooks);
    const asked = [1, 2].flatMap((s) => readRlStep(rolloutsFile(home, runId, s)).trajectories.map((t) => t.qa_id));
    expect(asked.length).toBe(2 * 3 * 2);
    for (const id of asked) expect(id).toMatch(/^rl-/);
  });

  it('the data-policy loop: a pool whose questions all become too easy is refilled with fresh questions off the protected edges', { timeout: 120_000 }, async () => {
    const graph = fixtureGraph({ seed: 11 });
    const protectedEdges = datasetEdges([...readDataset(join(home, 'datasets', 'train.jsonl')).qas, ...readDataset(join(home, 'datasets', 'held.jsonl')).qas]);
    const lookups = { kinds: [], maxConstraints: 0, minEdges: 1, maxEdges: 1, anchorProb: 1, perShape: 100_000 };
    const seedPool = synthesize(graph, { ...lookups, count: 4, rng: 5, graphName: 'g', excludeEdges: protectedEdges }).qas.map((qa) => ({ ...qa, id: `rl-${qa.id}` }));
    const options = { kinds: [], max_constraints: 0, min_edges: 1, max_edges: 1, anchor_prob: 1, per_shape: 100_000 };
    writeDataset(join(home, 'datasets', 'loop.jsonl'), { graph: 'g', generator: 'subgraph', options }, seedPool);
    const runId = 'init-loop';
    writeRun(home, runId, {
      ...SMALL,
      data: { ...DATA, rlDatasetId: 'loop' },
      sft: { steps: 0 },
      init: { checkpoint: INIT },
      rl: { pool: 'frontier', poolSize: 2, steps: 4, groupSize: 2, batchQuestions: 2, evalEvery: 4, checkpointEvery: 4 },
    });
    // The policy now solves every question it is asked: each leaves the pool as too easy the step it is played.
    const hooks: TrainHooks = { rolloutPolicy: (qa) => scriptedPolicy(qa, { searches: 1, correct: true }) };
    await runTrain({ runId }, testContext(home), hooks);
    const asked = [1, 2, 3, 4].flatMap((s) => readRlStep(rolloutsFile(home, runId, s)).header.plan.groups.map((g) => g.qa_id));
    expect(asked).toHaveLength(8);
    expect(new Set(asked).size).toBe(8); // no question asked twice: each one left as too easy
    expect(asked.slice(0, 4).every((id) => id.startsWith('rl-'))).toBe(true); // the RL set first
    expect(asked.slice(4).every((id) => id.startsWith('fresh-'))).toBe(true); // then fresh ones
    const last = rlRecords(runId, 3).at(-1)!.metrics;
    expect(last).toMatchObject({ 'rl/pool_seed': 4, 'rl/pool_too_easy': 8, 'rl/pool_too_hard': 0, 'rl/pool_kept': 0 });
    expect(last['rl/pool_made']).toBeGreaterThanOrEqual(4);
    // The fresh questions, kept with the run: none uses a fact a demonstration, held-out or earlier question asks.
    const fresh = readDataset(join(dataDir(home, runId), 'rl-fresh.jsonl')).qas;
    expect(fresh.length).toBe(last['rl/pool_made']);
    const seedEdges = datasetEdges(seedPool);
    for (const qa of fresh) for (const e of qa.subgraph.edges) expect(protectedEdges.has(e) || seedEdges.has(e)).toBe(false);
    expect(new Set(fresh.map((qa) => qa.question)).size).toBe(fresh.length);
  });

  describe('async rollouts on a long-tailed mix of scripted episodes', () => {
    // Most rollouts search once, one in six searches eight times (each turn 10 ms): rollouts run ahead of the trainer.
    const hooks: TrainHooks = {
      rolloutPolicy: (qa, sample) => scriptedPolicy(qa, { searches: seedFrom(`${qa.id}/${sample}`) % 6 === 0 ? 8 : 1, correct: sample % 2 === 0, delayMs: 10 }),
    };
    /** A 6-step async GRPO run bounded by maxStaleness; checks what holds for any bound, returns the stalenesses and drops. */
    async function asyncRun(maxStaleness: number): Promise<{ staleness: number[]; dropped: number }> {
      const runId = `async-${maxStaleness}`;
      writeRun(home, runId, {
        ...SMALL,
        sft: { steps: 0 },
        init: { checkpoint: INIT },
        rl: { algorithm: 'grpo', mode: 'async', workers: 6, maxStaleness, steps: 6, groupSize: 4, batchQuestions: 2, evalEvery: 100, checkpointEvery: 100 },
      });
      await runTrain({ runId }, testContext(home), hooks);
      const records = rlRecords(runId, 0);
      expect(records.map((x) => x.step)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(records.every((x) => x.metrics['batch/skipped'] === 0)).toBe(true); // a real update every step
      const steps = [1, 2, 3, 4, 5, 6].map((s) => readRlStep(rolloutsFile(home, runId, s)));
      const stored = steps.flatMap((x) => x.trajectories);
      expect(stored.length).toBe(6 * 2 * 4);
      const staleness = stored.map((t) => t.staleness as number);
      expect(Math.max(...staleness)).toBeLessThanOrEqual(maxStaleness);
      for (const { header, trajectories } of steps) {
        for (const t of trajectories) expect(t.policy_version).toBe(header.policy_version - (t.staleness as number));
      }
      for (const rec of records) expect(rec.metrics['rollout/staleness_max']).toBeLessThanOrEqual(maxStaleness);
      return { staleness, dropped: records.reduce((a, x) => a + x.metrics['rollout/stale_dropped']!, 0) };
    }

    it('with maxStaleness 1, trains some samples one version late and none later', { timeout: 120_000 }, async () => {
      const { staleness } = await asyncRun(1);
      expect(Math.max(...staleness)).toBe(1);
    });

    // Before async-rollouts.ts bounded how far rollouts run ahead, those started during an update were all dropped.
    it('with maxStaleness 0, starts no rollout an update would leave stale: none dropped', { timeout: 120_000 }, async () => {
      const { staleness, dropped } = await asyncRun(0);
      expect(Math.max(...staleness)).toBe(0);
      expect(dropped).toBe(0);
    });
  });
});

describe('async RL with the model playing its own rollouts', () => {
  it('plays them on a thread of its own, within maxStaleness, and sends back the sampled turns', { timeout: 120_000 }, async () => {
    const runId = 'async-thread';
    writeRun(home, runId, {
      ...SMALL,
      sft: { steps: 0 },
      init: { checkpoint: INIT },
      rl: { algorithm: 'grpo', mode: 'async', workers: 4, maxStaleness: 1, steps: 4, groupSize: 4, batchQuestions: 2, evalEvery: 100, checkpointEvery: 100 },
    });
    const logs: string[] = [];
    await runTrain({ runId }, testContext(home, undefined, logs));
    expect(logs.some((l) => l.startsWith('RL: rollouts play on their own thread'))).toBe(true);
    const records = rlRecords(runId, 0);
    expect(records.map((x) => x.step)).toEqual([1, 2, 3, 4]);
    const steps = [1, 2, 3, 4].map((s) => readRlStep(rolloutsFile(home, runId, s)));
    const stored = steps.flatMap((x) => x.trajectories);
    expect(stored.length).toBe(4 * 2 * 4);
    for (const { header, trajectories } of steps) {
      for (const t of trajectories) {
        expect(t.staleness as number).toBeLessThanOrEqual(1);
        expect(t.policy_version).toBe(header.policy_version - (t.staleness as number));
      }
    }
    // The model's own turns came back from the thread with their sampled ids and log-probs.
    const gen = stored.flatMap((t) => (t.steps as Array<{ gen?: { ids: number[]; logprobs: number[] } }>).flatMap((x) => (x.gen ? [x.gen] : [])));
    expect(gen.length).toBeGreaterThan(0);
    for (const g of gen) expect(g.logprobs.length).toBe(g.ids.length);
  });
});

describe('SFT from a checkpoint', () => {
  it("starts from the checkpoint's weights and tokenizer, whatever the config's model and tokenizer say", { timeout: 120_000 }, async () => {
    const runId = 'sft-from-ckpt';
    // A learning rate of 1e-9 keeps the one step's weights within 1e-6 of where they started.
    writeRun(home, runId, {
      ...SMALL,
      model: { base: 'none', preset: 'small' },
      tokenizer: { vocabSize: 999 },
      init: { checkpoint: INIT },
      sft: { steps: 1, batchSize: 2, lr: 1e-9, minLr: 0, warmupSteps: 0, weightDecay: 0 },
    });
    const logs: string[] = [];
    const r = await runTrain({ runId }, testContext(home, undefined, logs));
    expect(r.step).toBe(1);
    expect(logs).toContain(`SFT from checkpoint ${INIT}`);
    expect(readMetrics(metricsFile(home, runId)).map((x) => x.step)).toEqual([0, 1]);

    const [initRun, initStep] = INIT.split('/') as [string, string];
    const parent = await loadCheckpoint(checkpointDir(home, initRun, Number(initStep)));
    const child = await loadCheckpoint(checkpointDir(home, runId, 1));
    try {
      expect(child.manifest.lineage).toMatchObject({ run: runId, stage: 'sft', parent: INIT });
      expect(child.model.config).toEqual(parent.model.config);
      expect(readJsonFile(join(dataDir(home, runId), 'tokenizer.json'))).toEqual(parent.tokenizer!.toJSON());
      let maxDiff = 0;
      for (const [name, v] of child.model.params) {
        const a = v.dataSync();
        const b = parent.model.params.get(name)!.dataSync();
        for (let i = 0; i < a.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a[i]! - b[i]!));
      }
      expect(maxDiff).toBeLessThan(1e-6);
    } finally {
      for (const c of [parent, child]) {
        disposeModel(c.model);
        c.optimizer?.dispose();
      }
    }
  });
});
