// The RL stage's rollouts: G attempts at each question by the current policy, scored and grouped with their
// advantages (rl/advantages). Two ways to get them (docs/pipeline.md, 'RL (DUPO, DAPO, GRPO)'):
//   sync   a step rolls out its questions with the current weights and waits for all of them; stepSampler
//          gives DAPO's refill rounds new questions of the pool;
//   async  (ASearcher) rollouts run all the time and never wait for the trainer: AsyncRollouts keeps
//          `workers` in flight, each tagged with the policy version it started under, and a step takes the
//          first finished groups at most maxStaleness versions old. On wasm and cpu they play on a thread
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
import { AsyncBuffer, GroupAssembler } from '../../rl/async';
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
  const opts = { ...rolloutOptions(stage, seed), concurrency: Math.max(stage.rl.workers, EPISODES_IN_FLIGHT) };
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
  rollouts: AsyncRollouts;
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
  const rollouts = new AsyncRollouts(rl.groupSize, rl.workers, rl.maxStaleness, pool.at, firstGroup, () => stage.version, play, (id, qa, rs) => makeGroup(stage, id, qa, rs));
  return { rollouts, thread };
}

/**
 * Asynchronous rollouts (ASearcher; rl/async.ts has the rules): `workers` rollouts in flight at all times,
 * each started with the weights of the moment and tagged with that policy version; finished rollouts
 * assemble into groups of G (a group's version is its oldest member's), and groups wait in an AsyncBuffer
 * that drops those more than maxStaleness versions old. A step takes groups one by one as they are there,
 * until its planner says it has enough (rl-plan.ts). Nothing waits for a rollout still running, so a long
 * trajectory never stalls a step.
 */
export class AsyncRollouts {
  private readonly buffer: AsyncBuffer<Group>;
  private readonly assembler: GroupAssembler<{ groupId: string; version: number; sample: number; rollout: Rollout }>;
  private readonly workers: Promise<void>[] = [];
  private nextJob: number;
  private stopped = false;
  private error: unknown = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly groupSize: number,
    workers: number,
    maxStaleness: number,
    private readonly questionAt: (i: number) => QA,
    firstGroup: number,
    private readonly version: () => number,
    private readonly run: (qa: QA, groupId: string, sample: number) => Promise<Rollout>,
    private readonly makeGroup: (id: string, qa: QA, rollouts: Rollout[]) => Group,
  ) {
    // Each group is one whole buffer "sample": it is released alone, so a step can take them one at a time.
    this.buffer = new AsyncBuffer<Group>({ batchSize: 1, maxStaleness });
    this.assembler = new GroupAssembler(groupSize);
    this.nextJob = firstGroup * groupSize;
    for (let w = 0; w < workers; w++) this.workers.push(this.worker());
  }

  private async worker(): Promise<void> {
    try {
      while (!this.stopped) {
        const j = this.nextJob++;
        const g = Math.floor(j / this.groupSize);
        const sample = j % this.groupSize;
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

  /**
   * The groups of the next step, taken until `enough` says so, named `<step>/<qa_id>`; with
   * rollout/staleness_max and rollout/stale_dropped.
   */
  async next(
    version: number,
    step: number,
    enough: (taken: readonly Group[]) => boolean,
    say: (message: string) => void,
  ): Promise<{ groups: Group[]; looked: number; metrics: Record<string, number> }> {
    const taken: Group[] = [];
    let stalenessMax = 0;
    let dropped = 0;
    while (!enough(taken)) {
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
