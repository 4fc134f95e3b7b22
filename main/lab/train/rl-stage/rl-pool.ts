// The RL stage's questions. `rl.pool: fixed`: a seeded subset of the RL set, as many as the run can ask (steps x
// batchQuestions); for a planner that asks for it (DUPO), less the questions the starting policy already
// solves in all G rollouts, decided once and kept in data/rl-pool.jsonl across resumes. Steps then read the
// pool epoch after epoch, each epoch in its own seeded order, so a resumed run asks the same questions.
// `rl.pool: frontier`: the data-policy loop (rl/frontier.ts), judged after every step and refilled from the
// rest of the RL set, then with fresh questions (rl-refill.ts). A resumed run starts its frontier pool afresh.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { QA } from '../../formats';
import { LabError } from '../../base/errors';
import { readJsonl } from '../../store/files';
import { writeTrajectorySet } from '../../store/traj-set';
import { createRng, seedFrom } from '../../util/rng';
import { dropTooEasy, isSolved } from '../../rl/batch';
import { FrontierPool } from '../../rl/frontier';
import { readGraphFile } from '../../kg/io';
import { readDataset, writeDataset } from '../../synth/dataset';
import { datasetEdges } from '../../synth/splits';
import { datasetFile, graphFile } from '../../store/layout';
import { dataDir } from '../../runs/layout';
import { freshQuestions, generatorSettings } from './rl-refill';
import type { Group } from './rl-rollouts';
import { policyName, progress, type RlStage } from './rl-stage';
import { rolloutGroups } from './rl-rollouts';
import { PLANNERS } from './rl-plan';

export interface QuestionPool {
  questions: QA[];
  /** rl/pool_questions (and rl/too_easy_dropped): the first RL step's record carries them. */
  metrics: Record<string, number>;
  /** The i-th question of the stream: epoch floor(i / size), in that epoch's order. */
  at: (i: number) => QA;
  /** RL step k's questions: the next batchQuestions of the stream, each question once. */
  forStep: (k: number) => QA[];
  /** The data-policy loop: judge the step's questions by their groups, refill; the pool's metrics (rl/pool_*). */
  afterStep?: (groups: readonly Group[]) => Record<string, number>;
}

export async function openQuestionPool(stage: RlStage): Promise<QuestionPool> {
  if (stage.rl.pool === 'frontier') return openFrontierPool(stage);
  const { rl } = stage;
  const { rlQas, runId } = stage.run;
  let questions = createRng(seedFrom(`${runId}/rl/pool`))
    .shuffle([...rlQas])
    .slice(0, Math.min(rlQas.length, rl.steps * rl.batchQuestions));
  if (questions.length === 0) throw new LabError('conflict', 'RL has no training questions');
  const metrics: Record<string, number> = { 'rl/pool_questions': questions.length };
  if (PLANNERS[rl.algorithm].dropsTooEasy && rl.dropTooEasy) {
    const easy = new Set(await tooEasy(stage, questions));
    stage.run.ctx.log(`DUPO: ${easy.size} of ${questions.length} questions are too easy (all ${rl.groupSize} rollouts of the starting policy correct) and are left out`);
    questions = questions.filter((qa) => !easy.has(qa.id));
    metrics['rl/pool_questions'] = questions.length;
    metrics['rl/too_easy_dropped'] = easy.size;
    if (questions.length === 0) {
      throw new LabError('conflict', `every one of the ${easy.size} pool questions is solved by the starting policy in all ${rl.groupSize} rollouts: nothing left to learn from`);
    }
  }
  const pool = questions;
  const epochs = new Map<number, QA[]>();
  const at = (i: number): QA => {
    const e = Math.floor(i / pool.length);
    if (!epochs.has(e)) epochs.set(e, createRng(seedFrom(`${runId}/rl/epoch/${e}`)).shuffle([...pool]));
    return epochs.get(e)![i % pool.length]!;
  };
  const forStep = (k: number): QA[] => {
    const out = new Map<string, QA>();
    for (let i = (k - 1) * rl.batchQuestions; out.size < Math.min(rl.batchQuestions, pool.length); i++) out.set(at(i).id, at(i));
    return [...out.values()];
  };
  return { questions: pool, metrics, at, forStep };
}

/**
 * The ids of the questions every rollout of the starting policy solves (DUPO's too-easy filter): read back
 * from data/rl-pool.jsonl, or found by G rollouts of each question and written there with them.
 */
async function tooEasy(stage: RlStage, questions: readonly QA[]): Promise<string[]> {
  const { ctx, runId } = stage.run;
  const file = join(dataDir(ctx.home, runId), 'rl-pool.jsonl');
  const { clock } = stage.run;
  if (existsSync(file)) {
    clock?.skip('filter');
    return ((readJsonl(file).records[0]?.value ?? {}) as { dropped?: string[] }).dropped ?? [];
  }
  clock?.begin('filter');
  const groups = await rolloutGroups(stage, questions, questions.map((qa) => `pool/${qa.id}`), seedFrom(`${runId}/rl/pool`), (done, total) => {
    clock?.soFar('filter', done);
    progress(stage, stage.step, `DUPO: dropping too-easy questions, the starting policy's rollouts ${done} of ${total}`, done, total);
  });
  const dropped = dropTooEasy(groups).dropped.map((g) => g.qaId);
  const header = { kind: 'rl_pool', run: runId, policy: policyName(stage, stage.version), questions: questions.length, dropped };
  writeTrajectorySet(file, header, groups.flatMap((g) => g.rollouts.map((r) => ({ ...r.traj, group: g.id }))));
  return dropped;
}

/**
 * The data-policy loop's pool: the RL set in a seeded order seeds it (rl.poolSize questions) and is its first
 * reserve; past that, fresh questions off the protected edges (the training and held-out sets'). Judged by every
 * group, refilled after every step once it lacks a batch's worth.
 */
function openFrontierPool(stage: RlStage): QuestionPool {
  const { rl } = stage;
  const { rlQas, runId, ctx, config, heldOut } = stage.run;
  const reserve = createRng(seedFrom(`${runId}/rl/pool`)).shuffle([...rlQas]);
  const pool = new FrontierPool<QA>(reserve.splice(0, rl.poolSize), rl.poolSize, rl.hardPatience);
  const had = new Map(pool.draw(pool.size).map((q) => [q.id, q]));
  const graph = readGraphFile(graphFile(ctx.home, config.data.graphId));
  const rlSet = readDataset(datasetFile(ctx.home, config.data.rlDatasetId ?? config.data.datasetId));
  const settings = generatorSettings(rlSet.header, rlSet.qas, config.data.graphId);
  const protectedEdges = datasetEdges([...readDataset(datasetFile(ctx.home, config.data.datasetId)).qas, ...heldOut]);
  let round = 0;
  let exhausted = false;
  const made: QA[] = [];
  const refill = (): void => {
    if (pool.wanted < Math.min(rl.batchQuestions, rl.poolSize)) return;
    const fromReserve = reserve.splice(0, pool.wanted);
    pool.add(fromReserve, 'seed');
    for (const q of fromReserve) had.set(q.id, q);
    if (pool.wanted === 0 || exhausted) return;
    round++;
    const fresh = freshQuestions(graph, settings, protectedEdges, [...had.values()], pool.wanted, seedFrom(`${runId}/rl/fresh/${round}`), round);
    pool.add(fresh);
    for (const q of fresh) had.set(q.id, q);
    made.push(...fresh);
    // Every fresh question is kept with the run (data/rl-fresh.jsonl), so a step's rollouts can be traced to it.
    if (fresh.length) writeDataset(join(dataDir(ctx.home, runId), 'rl-fresh.jsonl'), { graph: config.data.graphId, generator: settings.generator, rounds: round }, made);
    if (fresh.length === 0) {
      exhausted = true;
      ctx.log(`data-policy loop: the graph has no fresh question left off the protected edges; the pool goes on with ${pool.size}`);
    }
  };
  const metrics = pool.metrics();
  const forStep = (): QA[] => pool.draw(rl.batchQuestions);
  return {
    get questions() {
      return pool.draw(pool.size);
    },
    metrics,
    at: (i) => pool.draw(1)[0] ?? rlQas[i % rlQas.length]!,
    forStep,
    afterStep: (groups) => {
      for (const g of groups) pool.judge(g.qaId, g.rewards.filter((_, i) => isSolved(g, i)).length, g.rewards.length);
      refill();
      return pool.metrics();
    },
  };
}
