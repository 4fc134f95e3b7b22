// The RL stage of the `train` job (PIPELINE 7; issue #6), readable top to bottom like sft-job:
//   0. setup     the RL optimiser (fresh after SFT, or restored from an RL checkpoint), the question pool, and
//                for DUPO the too-easy filter: G rollouts of the starting policy per pool question, once
//                (data/rl-pool.jsonl, kept across resumes)
//   1. rollouts  sync: batchQuestions questions x G rollouts with the current weights (DAPO: more rounds of
//                new questions until the batch has batchQuestions groups with signal);
//                async (ASearcher): rollouts run continuously and never wait for the trainer; a step takes
//                the first finished groups that are at most maxStaleness policy versions old
//   2. plan      rewards, group advantages (rl/advantages), the batch by algorithm (rl/batch)
//   3. samples   one per generated turn: the token ids the policy was given and the ids it sampled (with
//                their sampling log-probs); the loss is on the sampled ids only, never on tool responses
//   4. update    the clipped token-level loss with clip-higher (rl/loss) in `updatesPerBatch` optimiser
//                steps (train/rl-update); no optimiser step when the plan says skip
//   5. record    rollouts/step-N.jsonl (header: the plan and the metrics; then every trajectory), the metrics
//                record, held-out pass@1 every evalEvery, a checkpoint every checkpointEvery
// Steps continue the run's global counter (SFT 1..N, RL N+1..N+M): one metrics stream, one checkpoint list.
// A kill loses at most the steps since the last checkpoint; resuming deletes the rollouts files after it.
//
// Old log-probs (the ratio's denominator): strictly on-policy (sync, one update per batch) uses the new
// log-probs without gradient (ratio 1; rl/loss 'on_policy'); several updates per batch compute them once
// before the first update; async uses the log-probs recorded while sampling, so a stale sample's ratio
// corrects for the policy having moved (at temperature 1 and top-p 1 these are the policy's own).
// With several updates per batch each update is a token-level mean over its own mini-batch.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import type { QA, Trajectory } from '../formats';
import { TRAJ_FORMAT } from '../formats';
import { LabError } from '../errors';
import { readJsonl, writeFileAtomic } from '../store/files';
import { createRng, seedFrom } from '../util/rng';
import type { PolicyFactory } from '../agent/policies';
import { renderStepParts, type AgentStep } from '../agent/react';
import type { Limits, Policy, Toolset } from '../agent/runtime';
import { rolloutDataset, rolloutOne, type RolloutOptions } from '../agent/rollout';
import type { GPT } from '../model/gpt';
import type { Tokenizer } from '../model/tokenizer';
import type { AdamW } from '../model/optim';
import { createOptimizer, resolveTrainConfig, type TrainConfig } from '../model/train';
import { saveCheckpoint } from '../model/checkpoint';
import { groupAdvantages, isTruncatedNoAnswer, type GroupAdvantages } from '../rl/advantages';
import { dapoFill, dropTooEasy, planDapo, planDupo, planGrpo, type RolloutGroup } from '../rl/batch';
import { oldLogProbsFor, type PgSample, type PgStats } from '../rl/loss';
import { AsyncBuffer, GroupAssembler } from '../rl/async';
import { rlMetrics } from '../rl/metrics';
import type { RunConfig, RlConfig } from '../contract/run-config';
import { checkpointDir, dataDir, rolloutSteps, rolloutsFile } from '../runs/layout';
import { throwIfCancelled, type JobContext } from '../jobs/context';
import { checkpointPolicy, policyPrompt, TURN_TOKENS, type SampledTurn } from './policy';
import { rlUpdate } from './rl-update';
import { RolloutThread } from './rollout-thread';

export interface RlStageInput {
  ctx: JobContext;
  runId: string;
  config: RunConfig;
  model: GPT;
  tok: Tokenizer;
  /** The questions RL draws its batches from (data.rlDatasetId, else the training set). */
  rlQas: readonly QA[];
  tools: Toolset;
  /** The limits SFT's evaluation uses (tool calls, tokens per episode). */
  limits: Partial<Limits>;
  /** The run's last completed step: SFT's last step, or the RL checkpoint being resumed. */
  step: number;
  /** Steps before the RL stage (SFT's steps; 0 for a run from init.checkpoint). RL step k is step baseStep + k. */
  baseStep: number;
  /** When resuming inside the RL stage: the checkpoint's optimiser and policy version. */
  resumed: { opt: AdamW | null; version: number } | null;
  /** The checkpoint RL starts from, `<run>/<step>`: the lineage parent of every RL checkpoint. */
  parent: string;
  emit: (step: number, metrics: Record<string, number>) => void;
  /** Held-out evaluation of the current weights at a step (sft-job evaluatePolicy). */
  evaluate: (step: number) => Promise<Record<string, number>>;
  /** The progress bar's fraction at a global step. */
  fraction: (step: number) => number;
  /**
   * Test and bench seam: the policy that acts in a rollout instead of the model's own (`model`, which records
   * its turns); a scripted one may delegate some turns or rollouts to it. The update always trains the model.
   */
  rolloutPolicy?: (qa: QA, sample: number, model: Policy) => Policy;
}

/** One rollout: the scored trajectory, the turns the model sampled, the policy version it started under. */
interface Rollout {
  traj: Trajectory;
  turns: SampledTurn[];
  version: number;
}

/** The G rollouts of one question, scored, with their advantages. */
interface Group extends RolloutGroup {
  id: string;
  qa: QA;
  rollouts: Rollout[];
  /** Oldest start version of its rollouts. */
  version: number;
  adv: GroupAdvantages;
}

/** What the batch plan made of a step's groups, in the shape of the rollouts file's header. */
interface StepPlan {
  /** Index into the step's groups for each slot of the training batch (a copied group repeats). */
  slots: number[];
  skip: boolean;
  metrics: Record<string, number>;
  refilled: number;
}

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

export async function runRlStage(input: RlStageInput): Promise<{ step: number; version: number }> {
  const { ctx, runId, config, model, tok, baseStep } = input;
  if (!config.rl) throw new LabError('bad_request', 'runRlStage needs config.rl');
  const rl: RlConfig = config.rl;
  const G = rl.groupSize;
  const lastStep = baseStep + rl.steps;
  const pad = tok.special('<|pad|>');
  const progress = (step: number, message: string, done?: number, total?: number): void =>
    ctx.progress({ fraction: input.fraction(step), message, ...(done !== undefined ? { done, total } : {}) });

  // ---- 0. setup
  const trainCfg: TrainConfig = resolveTrainConfig({
    lr: rl.lr,
    minLr: rl.schedule === 'cosine' ? rl.lr / 10 : rl.lr,
    warmupSteps: rl.warmupSteps,
    decaySteps: rl.steps * rl.updatesPerBatch,
    maxSteps: rl.steps * rl.updatesPerBatch,
    weightDecay: rl.weightDecay,
    gradClip: rl.gradClip,
    batchSize: rl.batchQuestions * G,
    seqLen: model.config.blockSize,
    seed: config.rng,
  });
  const ownOpt = !input.resumed?.opt;
  const opt = input.resumed?.opt ?? createOptimizer(model, trainCfg);
  let version = input.resumed?.version ?? 0;
  let step = input.step;
  // Which weights a policy version is, as a trajectory's `policy`: the starting checkpoint, then the weights
  // after the step whose update made the version (named like a checkpoint even when none was saved there).
  const versionName = new Map<number, string>([[version, input.resumed ? `ckpt:${runId}/${step}` : `ckpt:${input.parent}`]]);
  const policyName = (v: number): string => versionName.get(v) ?? `ckpt:${runId}/${step}`;
  for (const s of rolloutSteps(ctx.home, runId)) if (s > step) rmSync(rolloutsFile(ctx.home, runId, s), { force: true });
  if (step > baseStep) ctx.log(`RL: resumed at step ${step} (RL step ${step - baseStep} of ${rl.steps}), policy version ${version}`);

  const rolloutOpts = (seed: number): RolloutOptions => ({
    n: G,
    seed,
    limits: input.limits,
    reward: { formatWeight: rl.reward.format, answerWeight: rl.reward.answer, mode: rl.reward.answerMode, formatCredit: rl.reward.formatCredit },
    concurrency: rl.workers,
  });
  let stopRollouts = false;
  /** A policy factory whose policies record their sampled turns into `turns[qa.id/sample]`. */
  const recording = (name: string, turns: Map<string, SampledTurn[]>): PolicyFactory => ({
    spec: name,
    kind: 'ckpt',
    forQA: (qa, sample) => {
      const mine: SampledTurn[] = [];
      turns.set(`${qa.id}/${sample}`, mine);
      const own = checkpointPolicy(model, tok, { name, temperature: rl.temperature, topP: rl.topP, maxTurnTokens: TURN_TOKENS, onTurn: (t) => mine.push(t) });
      const inner = input.rolloutPolicy?.(qa, sample, own) ?? own;
      return {
        name,
        generate: async (context, g) => {
          // Async rollouts still running when the stage ends stop at their next turn.
          if (stopRollouts) throw new LabError('cancelled', 'the RL stage ended');
          return inner.generate(context, g);
        },
      };
    },
  });
  const makeGroup = (id: string, qa: QA, rollouts: Rollout[]): Group => {
    const rewards = rollouts.map((r) => r.traj.reward.total);
    const adv = groupAdvantages(rewards, { mode: rl.advantage, excludeTruncatedNegatives: rl.excludeTruncatedNegatives }, rollouts.map((r) => isTruncatedNoAnswer(r.traj)));
    return { id, qaId: qa.id, qa, rewards, answers: rollouts.map((r) => r.traj.reward.answer), rollouts, version: Math.min(...rollouts.map((r) => r.version)), adv };
  };
  /** G rollouts of each question with the current weights (sync mode and the too-easy filter). */
  const rolloutGroups = async (qas: readonly QA[], ids: readonly string[], seed: number, report: (done: number, total: number) => void): Promise<Group[]> => {
    const turns = new Map<string, SampledTurn[]>();
    const v = version;
    const trajs = await rolloutDataset(qas, recording(policyName(v), turns), input.tools, rolloutOpts(seed), (done, total) => {
      report(done, total);
      throwIfCancelled(ctx);
    });
    return qas.map((qa, q) =>
      makeGroup(
        ids[q]!,
        qa,
        trajs.slice(q * G, (q + 1) * G).map((traj, i) => ({ traj, turns: turns.get(`${qa.id}/${i}`) ?? [], version: v })),
      ),
    );
  };

  // The question pool: a seeded subset of the RL questions, as many as the run can ask (steps x batchQuestions).
  let pool = createRng(seedFrom(`${runId}/rl/pool`))
    .shuffle([...input.rlQas])
    .slice(0, Math.min(input.rlQas.length, rl.steps * rl.batchQuestions));
  if (pool.length === 0) throw new LabError('conflict', 'RL has no training questions');
  const firstMetrics: Record<string, number> = { 'rl/pool_questions': pool.length };
  if (rl.algorithm === 'dupo' && rl.dropTooEasy) {
    const file = join(dataDir(ctx.home, runId), 'rl-pool.jsonl');
    let dropped: string[];
    if (existsSync(file)) {
      dropped = ((readJsonl(file).records[0]?.value ?? {}) as { dropped?: string[] }).dropped ?? [];
    } else {
      const groups = await rolloutGroups(pool, pool.map((qa) => `pool/${qa.id}`), seedFrom(`${runId}/rl/pool`), (done, total) =>
        progress(step, `DUPO: dropping too-easy questions, the starting policy's rollouts ${done} of ${total}`, done, total),
      );
      const easy = dropTooEasy(groups);
      dropped = easy.dropped.map((g) => g.qaId);
      const header = { format: TRAJ_FORMAT, kind: 'rl_pool', run: runId, policy: policyName(version), questions: pool.length, dropped };
      writeFileAtomic(file, [header, ...groups.flatMap((g) => g.rollouts.map((r) => ({ ...r.traj, group: g.id })))].map((x) => JSON.stringify(x)).join('\n') + '\n');
    }
    const easy = new Set(dropped);
    ctx.log(`DUPO: ${easy.size} of ${pool.length} questions are too easy (all ${G} rollouts of the starting policy correct) and are left out`);
    pool = pool.filter((qa) => !easy.has(qa.id));
    firstMetrics['rl/pool_questions'] = pool.length;
    firstMetrics['rl/too_easy_dropped'] = easy.size;
    if (pool.length === 0) throw new LabError('conflict', `every one of the ${easy.size} pool questions is solved by the starting policy in all ${G} rollouts: nothing left to learn from`);
  }
  // The question stream: epoch after epoch of the pool, each epoch in its own seeded order.
  const epochs = new Map<number, QA[]>();
  const questionAt = (i: number): QA => {
    const e = Math.floor(i / pool.length);
    if (!epochs.has(e)) epochs.set(e, createRng(seedFrom(`${runId}/rl/epoch/${e}`)).shuffle([...pool]));
    return epochs.get(e)![i % pool.length]!;
  };
  const stepQuestions = (k: number): QA[] => {
    const out = new Map<string, QA>();
    for (let i = (k - 1) * rl.batchQuestions; out.size < Math.min(rl.batchQuestions, pool.length); i++) out.set(questionAt(i).id, questionAt(i));
    return [...out.values()];
  };

  // Async rollouts of the model's own policy play on a thread of their own where the backend computes on the
  // calling thread (wasm, cpu), so that rollouts and updates overlap on two cores (rollout-thread.ts).
  const thread =
    rl.mode === 'async' && !input.rolloutPolicy && ['wasm', 'cpu'].includes(tf.getBackend())
      ? await RolloutThread.start(model, version, tok, {
          backend: tf.getBackend(),
          graphFile: join(ctx.home, 'graphs', `${config.data.graphId}.json`),
          web: { topK: config.env.topK, snippetChars: config.env.snippetChars, maxEvidence: config.env.maxEvidence },
          policy: { temperature: rl.temperature, topP: rl.topP },
          rollout: { n: G, limits: input.limits, reward: rolloutOpts(0).reward, concurrency: rl.workers },
        })
      : null;
  if (thread) ctx.log(`RL: rollouts play on their own thread (${tf.getBackend()}), the updates on this one`);
  const asyncRollouts = rl.mode === 'async' ? new AsyncRollouts(rl, questionAt, (step - baseStep) * rl.batchQuestions, () => version, async (qa, groupId, sample) => {
    if (thread) return thread.run(qa, sample, seedFrom(`${runId}/rl/async/${groupId}`), policyName(version));
    const turns = new Map<string, SampledTurn[]>();
    const v = version;
    const traj = await rolloutOne(qa, sample, recording(policyName(v), turns), input.tools, rolloutOpts(seedFrom(`${runId}/rl/async/${groupId}`)));
    return { traj, turns: turns.get(`${qa.id}/${sample}`) ?? [], version: v };
  }, makeGroup) : null;

  try {
    while (step < lastStep) {
      throwIfCancelled(ctx);
      const k = step - baseStep + 1; // RL step, 1-based
      const s = step + 1; // global step
      const label = `RL step ${k} of ${rl.steps} (step ${s})`;
      const startVersion = version;

      // ---- 1. rollouts (and 2. the plan)
      const t0 = performance.now();
      let groups: Group[];
      let plan: StepPlan;
      let asyncMetrics: Record<string, number> | null = null;
      if (asyncRollouts) {
        const got = await asyncRollouts.next(version, s, (message) => progress(step, `${label}: ${message}`));
        groups = got.groups;
        asyncMetrics = got.metrics;
        plan = planStep(rl, groups, s, got.looked, ctx);
      } else {
        const firstQs = stepQuestions(k);
        let rounds = 0;
        const used = new Set(firstQs.map((q) => q.id));
        const refill = createRng(seedFrom(`${runId}/rl/refill/${k}`)).shuffle(pool.filter((q) => !used.has(q.id)));
        const sampled: Group[] = [];
        const sampleMore = async (n: number): Promise<Group[]> => {
          const qs = rounds++ === 0 ? firstQs : refill.splice(0, n);
          if (qs.length === 0) return [];
          const got = await rolloutGroups(qs, qs.map((q) => `${s}/${q.id}`), seedFrom(`${runId}/rl/${s}/${rounds}`), (done, total) =>
            progress(step, `${label}: rollouts ${done} of ${total}${rounds > 1 ? ` (DAPO refill round ${rounds})` : ''}`, done, total),
          );
          sampled.push(...got);
          return got;
        };
        if (rl.algorithm === 'dapo') {
          const fill = await dapoFill(sampleMore, rl.batchQuestions, rl.dapoMaxRounds);
          groups = sampled;
          plan = { slots: fill.groups.map((g) => sampled.indexOf(g)), skip: fill.skip, metrics: fill.metrics, refilled: fill.extraGroups };
          if (!fill.full) {
            ctx.log(
              `${label}: DAPO dynamic sampling stopped (${fill.stop === 'source_exhausted' ? 'no question left in the pool' : `${rl.dapoMaxRounds} rounds used`}) ` +
                `with ${fill.groups.length} of ${rl.batchQuestions} groups with signal after ${fill.sampledGroups} groups; ` +
                (fill.skip ? 'no update this step' : `training on ${fill.groups.length}`),
            );
          }
        } else {
          groups = await sampleMore(rl.batchQuestions);
          plan = planStep(rl, groups, s, groups.length, ctx);
        }
      }
      const rolloutSeconds = (performance.now() - t0) / 1000;

      // ---- 3. samples and 4. the update
      const t1 = performance.now();
      progress(step, `${label}: update on ${plan.slots.length} groups`);
      let pg: PgStats | null = null;
      let update: { gradNorm: number; lr: number } | null = null;
      if (!plan.skip) {
        const r = await train(plan.slots.map((i) => groups[i]!));
        pg = r?.pg ?? null;
        update = r?.update ?? null;
        if (r) {
          version++;
          thread?.publish(model, version);
        }
      }
      const skipped = update === null;
      const updateSeconds = (performance.now() - t1) / 1000;
      step = s;
      if (!versionName.has(version)) versionName.set(version, `ckpt:${runId}/${s}`);

      // ---- 5. record
      const all = groups.flatMap((g) => g.rollouts);
      const sampledTokens = all.reduce((a, r) => a + (r.turns.length ? r.turns.reduce((b, t) => b + t.tokens.length, 0) : r.traj.tokens.generated), 0);
      const m: Record<string, number> = {
        ...rlMetrics({ rollouts: all.map((r) => r.traj), pg, update, plan: { metrics: plan.metrics, skip: skipped }, async: asyncMetrics ? { metrics: asyncMetrics } : null }),
        'timing/rollout_s': rolloutSeconds,
        'timing/update_s': updateSeconds,
        'perf/tokens_per_s': sampledTokens / Math.max(1e-9, rolloutSeconds + updateSeconds),
        'rl/policy_version': version,
        ...(k === 1 ? firstMetrics : {}),
      };
      if (k % rl.evalEvery === 0 || s === lastStep) {
        // Only the evaluation's own names: reward/* and rollout/* of this step are the training rollouts'.
        for (const [key, v] of Object.entries(await input.evaluate(s))) if (key.startsWith('eval/') || key === 'timing/eval_s') m[key] = v;
      }
      writeRollouts(input, s, startVersion, groups, plan, skipped, m, policyName);
      input.emit(s, m);
      progress(step, `${label}: reward ${(m['reward/mean'] ?? 0).toFixed(3)}${skipped ? ', no update (no group with signal)' : ''}${m['eval/pass@1'] !== undefined ? `, held-out pass@1 ${m['eval/pass@1'].toFixed(3)}` : ''}`, k, rl.steps);
      if (k % rl.checkpointEvery === 0 || s === lastStep) {
        await saveCheckpoint(
          checkpointDir(ctx.home, runId, s),
          { model, step: s, optimizer: opt, tokenizer: tok, train: trainCfg, lineage: { run: runId, dataset: config.data.datasetId, stage: 'rl', parent: input.parent }, metrics: m },
          { overwrite: true },
        );
      }
    }
  } finally {
    stopRollouts = true;
    thread?.stop();
    await asyncRollouts?.stop();
    await thread?.close();
    if (ownOpt) opt.dispose();
  }
  return { step, version };

  /** The update on the batch's groups (copies included): `updatesPerBatch` optimiser steps. */
  async function train(batch: Group[]): Promise<{ pg: PgStats; update: { gradNorm: number; lr: number } } | null> {
    const U = Math.min(rl.updatesPerBatch, batch.length);
    const per = batch.map((g) =>
      g.rollouts.flatMap((r, i) => (g.adv.weights[i] === 0 ? [] : samplesOf(g.qa, r, g.adv.advantages[i]!))),
    );
    let all = per.flat();
    // Old log-probs (see the top of this file): async keeps the sampling ones (when the policy reported them),
    // several updates per batch compute them once now, one update per batch is on-policy (none needed).
    const keepSampled = rl.mode === 'async' && all.length > 0 && all.every((x) => x.oldLogProbs !== undefined);
    if (!keepSampled && U > 1) {
      const old = await oldLogProbsFor(model, all);
      all = all.map((x, i) => ({ ...x, oldLogProbs: old[i]! }));
    } else if (!keepSampled) {
      all = all.map(({ oldLogProbs: _drop, ...x }) => x);
    }
    // Mini-batches of whole groups, in order.
    const sizes = per.map((p) => p.length);
    const results: Awaited<ReturnType<typeof rlUpdate>>[] = [];
    let at = 0;
    for (let u = 0; u < U; u++) {
      const from = Math.floor((u * batch.length) / U);
      const to = Math.floor(((u + 1) * batch.length) / U);
      const n = sizes.slice(from, to).reduce((a, x) => a + x, 0);
      const r = await rlUpdate(model, opt, all.slice(at, at + n), trainCfg, { epsLow: rl.epsLow, epsHigh: rl.epsHigh }, pad);
      at += n;
      if (r) results.push(r);
    }
    const done = results.filter((r): r is NonNullable<typeof r> => r !== null);
    if (done.length === 0) return null;
    const tokens = done.reduce((a, r) => a + r.pg.tokens, 0) || 1;
    const w = (f: (p: PgStats) => number): number => done.reduce((a, r) => a + f(r.pg) * r.pg.tokens, 0) / tokens;
    const ent = done.every((r) => r.pg.entropy !== null) ? w((p) => p.entropy!) : null;
    return {
      pg: { pgLoss: w((p) => p.pgLoss), clipfrac: w((p) => p.clipfrac), clipfracLow: w((p) => p.clipfracLow), clipfracHigh: w((p) => p.clipfracHigh), approxKl: w((p) => p.approxKl), entropy: ent, tokens },
      update: { gradNorm: done.reduce((a, r) => a + r.update.gradNorm, 0) / done.length, lr: done.at(-1)!.update.lr },
    };
  }

  /**
   * One sample per generated turn: the context the policy was given followed by what it sampled, the loss
   * on the sampled ids. A policy that reports no turns (a scripted one) gets its turns as the model would
   * have been given and would have written them: the same prompt, the turn's text tokenised.
   */
  function samplesOf(qa: QA, r: Rollout, advantage: number): PgSample[] {
    const turns: Array<Pick<SampledTurn, 'prompt' | 'tokens'> & { logProbs?: number[] }> = r.turns.length
      ? r.turns
      : (r.traj.steps as AgentStep[]).map((st, j, steps) => {
          const { think, action } = renderStepParts(st);
          return { prompt: policyPrompt(tok, qa.question, steps.slice(0, j), model.config.blockSize, TURN_TOKENS), tokens: [...tok.encode(think), ...tok.encode(action)] };
        });
    return turns
      .filter((t) => t.tokens.length > 0)
      .map((t) => {
        const tokens = t.tokens.slice(0, model.config.blockSize + 1 - t.prompt.length);
        return {
          ids: [...t.prompt, ...tokens],
          mask: [...t.prompt.map(() => 0), ...tokens.map(() => 1)],
          advantage,
          ...(t.logProbs ? { oldLogProbs: [...new Array<number>(t.prompt.length - 1).fill(0), ...t.logProbs.slice(0, tokens.length)] } : {}),
        };
      });
  }
}

/** DUPO and GRPO on a step's groups (DAPO's sync refill is dapoFill in the loop; async DAPO plans here). */
function planStep(rl: RlConfig, groups: readonly Group[], step: number, looked: number, ctx: JobContext): StepPlan {
  if (rl.algorithm === 'dupo') {
    const p = planDupo(groups, Math.max(rl.batchQuestions, groups.length), createRng(seedFrom(`dupo/${step}`)));
    return { slots: p.slots, skip: p.skip, metrics: p.metrics, refilled: 0 };
  }
  if (rl.algorithm === 'grpo') {
    const p = planGrpo(groups);
    return { slots: p.slots, skip: p.skip, metrics: p.metrics, refilled: 0 };
  }
  const p = planDapo(groups, rl.batchQuestions);
  if (!p.full) ctx.log(`step ${step}: DAPO (async) looked at ${looked} finished groups, ${p.kept.length} of ${rl.batchQuestions} with signal; ${p.skip ? 'no update this step' : `training on ${p.kept.length}`}`);
  return { slots: p.slots, skip: p.skip, metrics: { ...p.metrics, 'batch/refill_rounds': Math.max(0, Math.ceil(groups.length / rl.batchQuestions) - 1) }, refilled: Math.max(0, groups.length - rl.batchQuestions) };
}

/** runs/<id>/rollouts/step-N.jsonl: the header (plan, metrics), then every rollout of the step. */
function writeRollouts(
  input: RlStageInput,
  step: number,
  version: number,
  groups: readonly Group[],
  plan: StepPlan,
  skipped: boolean,
  summary: Record<string, number>,
  policyName: (v: number) => string,
): void {
  const copies = groups.map((_, i) => plan.slots.filter((x) => x === i).length);
  const header = {
    format: TRAJ_FORMAT,
    kind: 'rl',
    run: input.runId,
    step,
    policy_version: version,
    plan: {
      method: input.config.rl?.algorithm,
      groups: groups.map((g, i) => ({
        group: g.id,
        qa_id: g.qaId,
        rewards: g.rewards,
        mean: round4(g.adv.mean),
        std: round4(g.adv.std),
        advantages: g.adv.advantages.map(round4),
        status: copies[i] === 0 ? 'dropped' : copies[i]! > 1 ? 'duplicated' : 'kept',
        copies: copies[i],
      })),
      zero_std: groups.filter((g) => g.adv.zeroStd).length,
      duplicated: copies.reduce((a, c) => a + Math.max(0, c - 1), 0),
      refilled: plan.refilled,
      skip: skipped,
    },
    summary,
  };
  const lines = groups.flatMap((g) =>
    g.rollouts.map((r, i) => ({
      ...r.traj,
      id: `${g.id}/${i}`,
      policy: policyName(r.version),
      // Each step's sampled token ids and their log-probs (4 decimals), in step order.
      steps: r.traj.steps.map((st, j) => (r.turns[j] ? { ...st, gen: { ids: r.turns[j]!.tokens, logprobs: r.turns[j]!.logProbs.map(round4) } } : st)),
      group: g.id,
      advantage: round4(g.adv.advantages[i]!),
      weight: g.adv.weights[i],
      policy_version: r.version,
      staleness: version - r.version,
    })),
  );
  writeFileAtomic(rolloutsFile(input.ctx.home, input.runId, step), [header, ...lines].map((x) => JSON.stringify(x)).join('\n') + '\n');
}

/**
 * Asynchronous rollouts (ASearcher; rl/async.ts has the rules): `workers` rollouts in flight at all times,
 * each started with the weights of the moment and tagged with that policy version; finished rollouts
 * assemble into groups of G (a group's version is its oldest member's), and groups wait in an AsyncBuffer
 * that drops those more than maxStaleness versions old. A step takes groups one by one as they are there:
 * batchQuestions of them (DAPO: batchQuestions with signal, looking at most at dapoMaxRounds x as many).
 * Nothing waits for a rollout still running, so a long trajectory never stalls a step.
 */
class AsyncRollouts {
  private readonly buffer: AsyncBuffer<Group>;
  private readonly assembler: GroupAssembler<{ groupId: string; version: number; sample: number; rollout: Rollout }>;
  private readonly workers: Promise<void>[] = [];
  private nextJob: number;
  private stopped = false;
  private error: unknown = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly rl: RlConfig,
    private readonly questionAt: (i: number) => QA,
    firstGroup: number,
    private readonly version: () => number,
    private readonly run: (qa: QA, groupId: string, sample: number) => Promise<Rollout>,
    private readonly makeGroup: (id: string, qa: QA, rollouts: Rollout[]) => Group,
  ) {
    // Each group is one whole buffer "sample": it is released alone, so a step can take them one at a time.
    this.buffer = new AsyncBuffer<Group>({ batchSize: 1, maxStaleness: rl.maxStaleness });
    this.assembler = new GroupAssembler(rl.groupSize);
    this.nextJob = firstGroup * rl.groupSize;
    for (let w = 0; w < rl.workers; w++) this.workers.push(this.worker());
  }

  private async worker(): Promise<void> {
    try {
      while (!this.stopped) {
        const j = this.nextJob++;
        const g = Math.floor(j / this.rl.groupSize);
        const sample = j % this.rl.groupSize;
        const qa = this.questionAt(g);
        const rollout = await this.run(qa, `g${g}`, sample);
        if (this.stopped) break;
        const done = this.assembler.add({ groupId: `g${g}`, version: rollout.version, sample, rollout });
        if (done) {
          const ordered = [...done.members].sort((a, b) => a.sample - b.sample).map((m) => m.rollout);
          this.buffer.push(this.makeGroup(`g${g}`, qa, ordered), this.version());
          this.notify();
        }
      }
    } catch (err) {
      this.error = err;
      this.notify();
    }
  }

  private notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  /** The groups of the next step, named `<step>/<qa_id>`, with rollout/staleness_max and rollout/stale_dropped. */
  async next(version: number, step: number, say: (message: string) => void): Promise<{ groups: Group[]; looked: number; metrics: Record<string, number> }> {
    const taken: Group[] = [];
    let stalenessMax = 0;
    let dropped = 0;
    const enough = (): boolean => {
      if (this.rl.algorithm !== 'dapo') return taken.length >= this.rl.batchQuestions;
      const signal = taken.filter((g) => !g.adv.zeroStd).length;
      return signal >= this.rl.batchQuestions || taken.length >= this.rl.batchQuestions * this.rl.dapoMaxRounds;
    };
    while (!enough()) {
      if (this.error) throw this.error;
      const b = this.buffer.release(version);
      if (b) {
        taken.push(b.samples[0]!);
        stalenessMax = Math.max(stalenessMax, b.stalenessMax);
        dropped += b.droppedStale;
        continue;
      }
      say(`waiting for finished groups (${taken.length} so far, ${this.assembler.pending} rollouts of open groups done)`);
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    // Name the groups by step and question (a question twice in one step gets #2, #3).
    const seen = new Map<string, number>();
    const groups = taken.map((g) => {
      const n = (seen.get(g.qaId) ?? 0) + 1;
      seen.set(g.qaId, n);
      return { ...g, id: `${step}/${g.qaId}${n > 1 ? `#${n}` : ''}` };
    });
    return { groups, looked: taken.length, metrics: { 'rollout/staleness_max': stalenessMax, 'rollout/stale_dropped': dropped } };
  }

  /** Stops the workers: running rollouts end at their next turn; waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.workers);
  }
}
