// The RL stage of the `train` job (docs/pipeline.md, 'RL (DUPO, DAPO, GRPO)'), readable top to bottom like train-job:
//   0. setup     the RL optimiser, fresh after SFT or restored from an RL checkpoint (rl-stage.ts), and the
//                question pool, less DUPO's too-easy questions, or the data-policy loop's frontier pool,
//                judged and refilled after every step (rl-pool.ts); the headroom, pass@k of the starting
//                policy on RL and held-out questions (rl-headroom.ts), recorded with RL step 1
//   1. rollouts  sync: batchQuestions questions x G rollouts with the current weights; async (ASearcher):
//                rollouts run continuously and never wait for the trainer (rl-rollouts.ts)
//   2. plan      rewards, group advantages (rl/advantages), the batch by algorithm: the planner registry
//                (rl-plan.ts) says how each algorithm fills a step (DAPO: refill rounds until enough signal)
//   3. samples   one per generated turn: the token ids the policy was given and the ids it sampled (with
//                their sampling log-probs); the loss is on the sampled ids only, never on tool responses
//   4. update    the clipped token-level loss with clip-higher (rl/loss) in `updatesPerBatch` optimiser
//                steps (rl-update.ts), data-parallel on the run's `workers` threads as SFT's steps are;
//                no optimiser step when the plan says skip
//   5. record    rollouts/step-N.jsonl (header: the plan and the metrics; then every trajectory), the metrics
//                record, held-out pass@1 every evalEvery, a checkpoint every checkpointEvery (rl-record.ts)
// Steps continue the run's global counter (SFT 1..N, RL N+1..N+M): one metrics stream, one checkpoint list.
// A kill loses at most the steps since the last checkpoint; resuming deletes the rollouts files after it.
import * as tf from '@tensorflow/tfjs';
import { throwIfCancelled } from '../../jobs/context';
import { defaultWorkers, type Replicas } from '../../model/replicas';
import type { TrainRun } from '../policy/run';
import { openStage, progress, type RlStart, type RlStage } from './rl-stage';
import { openQuestionPool, type QuestionPool } from './rl-pool';
import { startAsyncRollouts, stepSampler, type AsyncSource, type Group } from './rl-rollouts';
import { PLANNERS, type StepPlan } from './rl-plan';
import { startUpdateReplicas, trainOnBatch, type PgWork } from './rl-update';
import { recordStep } from './rl-record';
import { measureHeadroom } from './rl-headroom';

export async function runRlStage(run: TrainRun, start: RlStart): Promise<{ step: number; version: number }> {
  const stage = openStage(run, start);
  const pool = await openQuestionPool(stage);
  Object.assign(pool.metrics, await measureHeadroom(stage));
  const asyncRollouts = await startAsyncRollouts(stage, pool);
  try {
    stage.replicas = await updateReplicas(stage);
    while (stage.step < stage.lastStep) await rlStep(stage, pool, asyncRollouts);
  } finally {
    stage.stopped = true;
    asyncRollouts?.thread?.stop();
    await asyncRollouts?.rollouts.stop();
    await asyncRollouts?.thread?.close();
    await stage.replicas?.close();
    if (stage.ownOpt) stage.opt.dispose();
  }
  return { step: stage.step, version: stage.version };
}

/** The update's replica threads: the run's `workers` less this one (`auto`: every core on wasm and cpu), as for SFT. */
async function updateReplicas(stage: RlStage): Promise<Replicas<PgWork> | undefined> {
  const { workers } = stage.run.config;
  const threads = workers === 'auto' ? defaultWorkers(tf.getBackend(), stage.trainCfg.batchSize) : workers;
  if (threads <= 1 || stage.step >= stage.lastStep) return undefined;
  const replicas = await startUpdateReplicas(stage.run.model, threads - 1);
  stage.run.ctx.log(`RL update on ${threads} threads (data-parallel, ${tf.getBackend()})`);
  return replicas;
}

/** One RL step: rollouts and their plan, the update, the record. */
async function rlStep(stage: RlStage, pool: QuestionPool, asyncRollouts: AsyncSource | null): Promise<void> {
  throwIfCancelled(stage.run.ctx);
  const k = stage.step - stage.baseStep + 1; // RL step, 1-based
  const s = stage.step + 1; // global step
  const label = `RL step ${k} of ${stage.rl.steps} (step ${s})`;
  const startVersion = stage.version;

  // ---- 1. rollouts and 2. the plan
  const t0 = performance.now();
  const { groups, plan, asyncMetrics } = await rolloutAndPlan(stage, pool, asyncRollouts, k, s, label);
  const rolloutSeconds = (performance.now() - t0) / 1000;
  // The data-policy loop judges the step's questions by their groups and refills the pool (fixed pools: nothing).
  const poolMetrics = pool.afterStep?.(groups) ?? {};

  // ---- 3. samples and 4. the update
  const t1 = performance.now();
  progress(stage, stage.step, `${label}: update on ${plan.slots.length} groups`);
  const trained = plan.skip ? null : await trainOnBatch(stage, plan.slots.map((i) => groups[i]!));
  if (trained) {
    stage.version++;
    asyncRollouts?.thread?.publish(stage.run.model, stage.version);
  }
  const updateSeconds = (performance.now() - t1) / 1000;
  stage.step = s;
  if (!stage.versionNames.has(stage.version)) stage.versionNames.set(stage.version, `ckpt:${stage.run.runId}/${s}`);

  // ---- 5. record
  await recordStep(stage, { k, s, label, startVersion, groups, plan, asyncMetrics, trained, rolloutSeconds, updateSeconds }, pool.metrics, poolMetrics);
}

/** The step's groups and their plan, by the algorithm's planner: async takes finished groups, sync rolls out now. */
async function rolloutAndPlan(
  stage: RlStage,
  pool: QuestionPool,
  asyncRollouts: AsyncSource | null,
  k: number,
  s: number,
  label: string,
): Promise<{ groups: Group[]; plan: StepPlan; asyncMetrics: Record<string, number> | null }> {
  const planner = PLANNERS[stage.rl.algorithm];
  const input = { rl: stage.rl, step: s, label, log: (message: string) => stage.run.ctx.log(message) };
  if (asyncRollouts) {
    const got = await asyncRollouts.rollouts.next(stage.version, s, (taken) => planner.enough(taken, stage.rl), (message) => progress(stage, stage.step, `${label}: ${message}`));
    return { groups: got.groups, plan: planner.plan(got.groups, got.looked, input), asyncMetrics: got.metrics };
  }
  const { groups, plan } = await planner.sync(stepSampler(stage, pool, k, s, label), input);
  return { groups, plan, asyncMetrics: null };
}
