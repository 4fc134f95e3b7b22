// The RL algorithms as planners, one entry per `rl.algorithm` (the way verl keeps its advantage estimators
// in one registry, looked up by name): what each does about groups without signal is all that tells DUPO,
// DAPO and GRPO apart (rl/batch.ts has the pure batch planning and why). A planner says
//   dropsTooEasy  whether the stage first leaves out the questions the starting policy always solves (DUPO)
//   sync          how a sync step gets its groups and plan from `sample(n)`, the rollouts of n new questions
//                 (DAPO asks again until the batch has enough signal; the others ask once)
//   enough        when an async step has taken enough finished groups
//   maxGroups     the most groups an async step takes (how far async rollouts may run ahead: async-rollouts.ts)
//   plan          the plan of an async step's groups
// The plan has the shape of the rollouts file's header (rl-record.ts). A new algorithm joins here, and the
// run config's enum makes the table incomplete until it does.
import type { RlConfig } from '../../contract/run-config';
import { createRng, seedFrom } from '../../util/rng';
import { dapoFill, hasSignal, planDapo, planDupo, planGrpo } from '../../rl/batch';
import type { Group } from './rl-rollouts';

/** What a step's plan made of its groups. */
export interface StepPlan {
  /** Index into the step's groups for each slot of the training batch (a copied group repeats). */
  slots: number[];
  skip: boolean;
  metrics: Record<string, number>;
  refilled: number;
}

export interface PlanInput {
  rl: RlConfig;
  /** The global step. */
  step: number;
  /** `RL step k of M (step s)`, for messages. */
  label: string;
  log: (message: string) => void;
}

export interface Planner {
  dropsTooEasy: boolean;
  sync: (sample: (n: number) => Promise<Group[]>, p: PlanInput) => Promise<{ groups: Group[]; plan: StepPlan }>;
  enough: (taken: readonly Group[], rl: RlConfig) => boolean;
  maxGroups: (rl: RlConfig) => number;
  /** `looked`: the finished groups the step took (DAPO's refill metrics count them). */
  plan: (groups: readonly Group[], looked: number, p: PlanInput) => StepPlan;
}

/** One round of batchQuestions questions, then the plan: what DUPO and GRPO do in sync mode. */
const sampleOnce =
  (plan: Planner['plan']): Planner['sync'] =>
    async (sample, p) => {
      const groups = await sample(p.rl.batchQuestions);
      return { groups, plan: plan(groups, groups.length, p) };
    };

const batchFull = (taken: readonly Group[], rl: RlConfig): boolean => taken.length >= rl.batchQuestions;
const oneBatch = (rl: RlConfig): number => rl.batchQuestions;
/** DAPO (async): batchQuestions groups with signal, or at most dapoMaxRounds x batchQuestions looked at (the sync refill's bound). */
const dapoMaxGroups = (rl: RlConfig): number => rl.batchQuestions * rl.dapoMaxRounds;

/** DUPO: every slot of a zero-std group gets a copy of a group with signal (seeded per step). */
const planDupoStep: Planner['plan'] = (groups, _looked, { rl, step }) => {
  const p = planDupo(groups, Math.max(rl.batchQuestions, groups.length), createRng(seedFrom(`dupo/${step}`)));
  return { slots: p.slots, skip: p.skip, metrics: p.metrics, refilled: 0 };
};

/** GRPO dynamic filtering: zero-std groups leave the batch, which shrinks. */
const planGrpoStep: Planner['plan'] = (groups) => {
  const p = planGrpo(groups);
  return { slots: p.slots, skip: p.skip, metrics: p.metrics, refilled: 0 };
};

/** DAPO on an async step's groups: the first batchQuestions with signal, out of all it looked at. */
const planDapoStep: Planner['plan'] = (groups, looked, { rl, step, log }) => {
  const p = planDapo(groups, rl.batchQuestions);
  if (!p.full) log(`step ${step}: DAPO (async) looked at ${looked} finished groups, ${p.kept.length} of ${rl.batchQuestions} with signal; ${p.skip ? 'no update this step' : `training on ${p.kept.length}`}`);
  return { slots: p.slots, skip: p.skip, metrics: { ...p.metrics, 'batch/refill_rounds': Math.max(0, Math.ceil(groups.length / rl.batchQuestions) - 1) }, refilled: Math.max(0, groups.length - rl.batchQuestions) };
};

/** DAPO dynamic sampling in sync mode: rounds of new questions until batchQuestions groups have signal. */
const sampleDapo: Planner['sync'] = async (sample, { rl, label, log }) => {
  const sampled: Group[] = [];
  const fill = await dapoFill(
    async (n) => {
      const got = await sample(n);
      sampled.push(...got);
      return got;
    },
    rl.batchQuestions,
    rl.dapoMaxRounds,
  );
  if (!fill.full) {
    log(
      `${label}: DAPO dynamic sampling stopped (${fill.stop === 'source_exhausted' ? 'no question left in the pool' : `${rl.dapoMaxRounds} rounds used`}) ` +
        `with ${fill.groups.length} of ${rl.batchQuestions} groups with signal after ${fill.sampledGroups} groups; ` +
        (fill.skip ? 'no update this step' : `training on ${fill.groups.length}`),
    );
  }
  return { groups: sampled, plan: { slots: fill.groups.map((g) => sampled.indexOf(g)), skip: fill.skip, metrics: fill.metrics, refilled: fill.extraGroups } };
};

export const PLANNERS: Record<RlConfig['algorithm'], Planner> = {
  dupo: { dropsTooEasy: true, sync: sampleOnce(planDupoStep), enough: batchFull, maxGroups: oneBatch, plan: planDupoStep },
  dapo: {
    dropsTooEasy: false,
    sync: sampleDapo,
    enough: (taken, rl) => taken.filter((g) => hasSignal(g)).length >= rl.batchQuestions || taken.length >= dapoMaxGroups(rl),
    maxGroups: dapoMaxGroups,
    plan: planDapoStep,
  },
  grpo: { dropsTooEasy: false, sync: sampleOnce(planGrpoStep), enough: batchFull, maxGroups: oneBatch, plan: planGrpoStep },
};
