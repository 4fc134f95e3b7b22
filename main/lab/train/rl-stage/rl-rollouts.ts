// The RL stage's rollouts: G attempts at each question by the current policy, scored and grouped with their
// advantages (rl/advantages). Two ways to get them (docs/pipeline.md, 'RL (DUPO, DAPO, GRPO)'):
//   sync   a step rolls out its questions with the current weights and waits for all of them; stepSampler
//          gives DAPO's refill rounds new questions of the pool;
//   async  (ASearcher) rollouts run all the time and never wait for the trainer: AsyncRollouts
//          (async-rollouts.ts) keeps `workers` in flight, each tagged with the policy version it started under,
//          never further ahead than maxStaleness lets their groups be used, and a step takes the first finished
//          groups at most maxStaleness versions old. On wasm and cpu they play on a thread
//          of their own (rollout-thread.ts), so rollouts and updates overlap on two cores.
// Every rollout keeps the turns the model sampled (token ids and log-probs): the update trains on exactly those.
import * as tf from '@tensorflow/tfjs';
import type { QA, Trajectory } from '../../formats';
import { LabError } from '../../base/errors';
import { createRng, seedFrom } from '../../util/rng';
import { graphFile } from '../../store/layout';
import type { PolicyFactory } from '../../agent/policies';
import { rolloutDataset, rolloutOne, type RolloutOptions } from '../../agent/rollout';
import type { GroupAdvantages } from '../../rl/advantages';
import type { TurnReward } from '../policy/turn-rewards';
import { scoreGroup } from './rl-turns';
import type { RolloutGroup } from '../../rl/batch';
import { AsyncRollouts } from './async-rollouts';
import { PLANNERS } from './rl-plan';
import { throwIfCancelled } from '../../jobs/context';
import type { TurnSampler } from '../../model/acting-threads';
import { checkpointPolicy, EPISODES_IN_FLIGHT, TURN_TOKENS, type SampledTurn } from '../policy/policy';
import { RolloutThread } from './rollout-thread';
import { runActing } from '../policy/run';
import { policyName, progress, type RlStage } from './rl-stage';
import type { QuestionPool } from './rl-pool';

/** One rollout: the scored trajectory, the turns the model sampled, the policy version it started under. */
export interface Rollout {
  traj: Trajectory;
  turns: SampledTurn[];
  version: number;
}

/** The G rollouts of one question, scored, with their advantages. */
export interface Group extends RolloutGroup {
  id: string;
  qa: QA;
  rollouts: Rollout[];
  /** Oldest start version of its rollouts. */
  version: number;
  adv: GroupAdvantages;
  /** Turn rewards and per-turn advantages (rl-turns.ts; null when off). */
  turnRewards: TurnReward[][] | null;
  turnAdvantages: number[][] | null;
}

function rolloutOptions(stage: RlStage, seed: number): RolloutOptions {
  const { rl } = stage;
  return {
    n: rl.groupSize,
    seed,
    limits: stage.run.limits,
    reward: { formatWeight: rl.reward.format, answerWeight: rl.reward.answer, mode: rl.reward.answerMode, formatCredit: rl.reward.formatCredit },
    concurrency: rl.workers,
  };
}

/**
 * A policy factory whose policies record their sampled turns into `turns[qa.id/sample]`; with `decoder`,
 * every episode in flight decodes its turns in that one batch.
 */
function recording(stage: RlStage, name: string, turns: Map<string, SampledTurn[]>, decoder?: TurnSampler): PolicyFactory {
  const { model, tok, hooks } = stage.run;
  return {
    spec: name,
    kind: 'ckpt',
    forQA: (qa, sample) => {
      const mine: SampledTurn[] = [];
      turns.set(`${qa.id}/${sample}`, mine);
      const own = checkpointPolicy(model, tok, { name, temperature: stage.rl.temperature, topP: stage.rl.topP, maxTurnTokens: TURN_TOKENS, onTurn: (t) => mine.push(t), decoder });
      const inner = hooks.rolloutPolicy?.(qa, sample, own) ?? own;
      return {
        name,
        generate: async (context, g) => {
          // Async rollouts still running when the stage ends stop at their next turn.
          if (stage.stopped) throw new LabError('cancelled', 'the RL stage ended');
          return inner.generate(context, g);
        },
      };
    },
  };
}

export function makeGroup(stage: RlStage, id: string, qa: QA, rollouts: Rollout[]): Group {
  const { rewards, adv, turnRewards, turnAdvantages, turnSignal } = scoreGroup(stage, qa, rollouts.map((r) => r.traj));
  return {
    id, qaId: qa.id, qa, rewards, answers: rollouts.map((r) => r.traj.reward.answer), rollouts, version: Math.min(...rollouts.map((r) => r.version)), adv,
    turnRewards, turnAdvantages, turnSignal,
  };
}

/**
 * G rollouts of each question with the current weights (sync mode and the too-easy filter), EPISODES_IN_FLIGHT
 * at once with their turns decoded as one batch (the weights do not change while they play).
 */
export async function rolloutGroups(stage: RlStage, qas: readonly QA[], ids: readonly string[], seed: number, report: (done: number, total: number) => void): Promise<Group[]> {
  const G = stage.rl.groupSize;
  const turns = new Map<string, SampledTurn[]>();
  const v = stage.version;
  const decoder = await runActing(stage.run); // the run's decoding threads, with this version's weights
  const opts = { ...rolloutOptions(stage, seed), concurrency: Math.max(stage.rl.workers, EPISODES_IN_FLIGHT * decoder.size) }; // a full batch for each thread
  const trajs = await rolloutDataset(qas, recording(stage, policyName(stage, v), turns, decoder), stage.run.tools, opts, (done, total) => {
    report(done, total);
    throwIfCancelled(stage.run.ctx);
  });
  return qas.map((qa, q) =>
    makeGroup(
      stage,
      ids[q]!,
      qa,
      trajs.slice(q * G, (q + 1) * G).map((traj, i) => ({ traj, turns: turns.get(`${qa.id}/${i}`) ?? [], version: v })),
    ),
  );
}

/**
 * Sync mode's rollouts for RL step k (global step s): the first call rolls out the step's own questions,
 * each later one (DAPO's refill) n more questions of the pool in a seeded order, never one of the step's.
 */
export function stepSampler(stage: RlStage, pool: QuestionPool, k: number, s: number, label: string): (n: number) => Promise<Group[]> {
  const { runId } = stage.run;
  const firstQs = pool.forStep(k);
  const used = new Set(firstQs.map((q) => q.id));
  const refill = createRng(seedFrom(`${runId}/rl/refill/${k}`)).shuffle(pool.questions.filter((q) => !used.has(q.id)));
  let rounds = 0;
  return async (n) => {
    const qs = rounds++ === 0 ? firstQs : refill.splice(0, n);
    if (qs.length === 0) return [];
    return rolloutGroups(stage, qs, qs.map((q) => `${s}/${q.id}`), seedFrom(`${runId}/rl/${s}/${rounds}`), (done, total) =>
      progress(stage, stage.step, `${label}: rollouts ${done} of ${total}${rounds > 1 ? ` (DAPO refill round ${rounds})` : ''}`, done, total),
    );
  };
}

/** An async stage's rollouts, and the thread they play on where there is one. */
export interface AsyncSource {
  rollouts: AsyncRollouts<QA, Rollout, Group>;
  thread: RolloutThread | null;
}

/** Starts the async rollouts (sync mode: null), on their own thread where the backend computes on this one. */
export async function startAsyncRollouts(stage: RlStage, pool: QuestionPool): Promise<AsyncSource | null> {
  const { rl } = stage;
  const { ctx, runId, config, model, tok, hooks } = stage.run;
  if (rl.mode !== 'async') return null;
  const thread =
    !hooks.rolloutPolicy && ['wasm', 'cpu'].includes(tf.getBackend())
      ? await RolloutThread.start(model, stage.version, tok, {
          backend: tf.getBackend(),
          graphFile: graphFile(ctx.home, config.data.graphId),
          web: { topK: config.env.topK, snippetChars: config.env.snippetChars, maxEvidence: config.env.maxEvidence },
          policy: { temperature: rl.temperature, topP: rl.topP },
          rollout: { n: rl.groupSize, limits: stage.run.limits, reward: rolloutOptions(stage, 0).reward, concurrency: rl.workers },
        })
      : null;
  if (thread) ctx.log(`RL: rollouts play on their own thread (${tf.getBackend()}), the updates on this one`);
  const play = async (qa: QA, groupId: string, sample: number): Promise<Rollout> => {
    const seed = seedFrom(`${runId}/rl/async/${groupId}`);
    if (thread) return thread.run(qa, sample, seed, policyName(stage, stage.version));
    const turns = new Map<string, SampledTurn[]>();
    const v = stage.version;
    const traj = await rolloutOne(qa, sample, recording(stage, policyName(stage, v), turns), stage.run.tools, rolloutOptions(stage, seed));
    return { traj, turns: turns.get(`${qa.id}/${sample}`) ?? [], version: v };
  };
  const firstGroup = (stage.step - stage.baseStep) * rl.batchQuestions;
  const rollouts = new AsyncRollouts<QA, Rollout, Group>({
    groupSize: rl.groupSize, inFlight: rl.workers, maxStaleness: rl.maxStaleness, groupsPerStep: PLANNERS[rl.algorithm].maxGroups(rl),
    questionAt: pool.at, firstGroup, version: () => stage.version, run: play, makeGroup: (id, qa, rs) => makeGroup(stage, id, qa, rs),
  });
  return { rollouts, thread };
}
