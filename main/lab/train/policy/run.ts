// What the stages of one training run share: the SFT loop, its held-out evaluations and the RL stage all
// take one TrainRun instead of the same ten arguments handed down call by call. Also the two things every
// stage does with it: stream a step's metrics, and evaluate the current weights on the held-out questions.
import type { QA, Trajectory } from '../../formats';
import type { RunConfig } from '../../contract/run-config';
import { writeTrajectorySet } from '../../store/traj-set';
import type { PolicyFactory } from '../../agent/policies';
import { rolloutDataset } from '../../agent/rollout';
import type { Policy, Toolset } from '../../agent/runtime';
import { evaluate, sampleFromTrajectory } from '../../agent/eval';
import { evaluationSummary } from '../../agent/summary';
import { goldLookup } from '../../agent/failures';
import type { GPT } from '../../model/gpt';
import type { Tokenizer } from '../../model/tokenizer';
import { openMetrics } from '../../runs/metrics';
import { evalFile, metricsFile } from '../../runs/layout';
import type { JobContext } from '../../jobs/context';
import { ActingThreads } from '../../model/acting-threads';
import { checkpointPolicy, EPISODES_IN_FLIGHT, TURN_TOKENS } from './policy';
import { evalSeed } from './eval-setup';
import type { RunClock } from './run-clock';
import { levelBreakdown, levelOfQuestion, questionScores, breakdownMetrics } from '../../contract/level-breakdown';

/** Test and bench seams of a training run (the job passes none). */
export interface TrainHooks {
  /** A policy that acts in the RL rollouts instead of the model's (`model`); RL still updates the model. */
  rolloutPolicy?: (qa: QA, sample: number, model: Policy) => Policy;
}

export interface TrainRun {
  ctx: JobContext;
  runId: string;
  config: RunConfig;
  model: GPT;
  tok: Tokenizer;
  /** The questions RL draws its batches from (data.rlDatasetId, else the training set). */
  rlQas: readonly QA[];
  /** The held-out questions every evaluation asks. */
  heldOut: readonly QA[];
  tools: Toolset;
  /** Tool calls and tokens per turn, in evaluation and RL rollouts alike. */
  limits: { maxToolCalls: number; maxNewTokens: number };
  /** Writes a step's metrics record and sends it to every client. */
  emit: (step: number, metrics: Record<string, number>) => void;
  /** The progress bar's fraction at a global step. */
  fraction: (step: number) => number;
  hooks: TrainHooks;
  /** The run's RFT expert: its pass@1 on the held-out questions is each level's ceiling in the evaluation's breakdown. */
  expert?: PolicyFactory;
  /** What the run has done of each stage, for the progress bar and time left (run-clock.ts); absent in tests and benches. */
  clock?: RunClock;
  /** The threads that decode its evaluations' and sync RL rollouts' turns, started by the first (runActing). */
  acting?: ActingThreads;
}

/**
 * The run's decoding threads (model/acting-threads.ts: the run's `workers`, every core by default), started
 * once and given the model's current weights: call with no turn of the run's episodes in flight.
 */
export async function runActing(run: TrainRun): Promise<ActingThreads> {
  const { workers } = run.config;
  run.acting ??= await ActingThreads.start(run.model, workers === 'auto' ? undefined : workers);
  run.acting.sync();
  return run.acting;
}

/**
 * A training job's progress at global step `step` of `totalSteps` (SFT and RL steps together): the share of
 * the run's steps done, the same count the dashboard shows ("SFT step 200 of 2000" is 10 %, not the 23 % a
 * fixed share for data preparation made it). Data preparation comes before step 0 and reads 0. Pure.
 */
export function stepFraction(step: number, totalSteps: number): number {
  if (!(totalSteps > 0) || !Number.isFinite(step)) return 0;
  return Math.min(1, Math.max(0, step / totalSteps));
}

/**
 * The run's metrics stream after the checkpoint at `step` (a resume truncates what came after it; STARTS_OVER when
 * the run has no checkpoint and begins at step 0), and its emitter.
 */
export function openRunMetrics(ctx: JobContext, runId: string, step: number): { emit: TrainRun['emit']; close: () => void } {
  const metrics = openMetrics(metricsFile(ctx.home, runId), step);
  const emit = (s: number, m: Record<string, number>): void => {
    metrics.write(s, m);
    ctx.publish('run.metrics', { runId, records: [{ step: s, time: new Date().toISOString(), metrics: m }] });
  };
  return { emit, close: () => metrics.close() };
}

/** The current weights under the evaluation's protocol (its temperature), every episode in flight decoded in one batch. */
async function evaluationFactory(run: TrainRun, spec: string): Promise<PolicyFactory> {
  const { config, model, tok } = run;
  // Every episode in flight decodes its turns in one batch, the batches on every core: the same trajectories
  // as one at a time, sooner.
  const decoder = await runActing(run);
  return {
    spec,
    kind: 'ckpt',
    forQA: () => checkpointPolicy(model, tok, { name: spec, temperature: config.eval.temperature, maxTurnTokens: TURN_TOKENS, decoder }),
    inFlight: EPISODES_IN_FLIGHT * decoder.size, // a full batch for each thread
  };
}

/** pass@1 of the current weights on `qas` under the evaluation's own protocol (what the dashboard reports), without recording it. */
export async function evaluationPassAt1(run: TrainRun, qas: readonly QA[], spec: string): Promise<number> {
  const trajs = await rolloutDataset(qas, await evaluationFactory(run, spec), run.tools, { n: run.config.eval.samples, seed: evalSeed(run.config.rng), limits: run.limits });
  return evaluate(trajs.map((t) => sampleFromTrajectory(t)), run.config.eval.samples)['pass@1'];
}

/** Rollouts of the current policy on the held-out QAs; trajectories saved to evals/step-N.jsonl. */
export async function evaluatePolicy(run: TrainRun, step: number): Promise<Record<string, number>> {
  const { ctx, runId, config } = run;
  const t0 = performance.now();
  const spec = `ckpt:${runId}/${step}`;
  const factory = await evaluationFactory(run, spec);
  run.clock?.begin('eval');
  const trajs: Trajectory[] = await rolloutDataset(run.heldOut, factory, run.tools, { n: config.eval.samples, seed: evalSeed(config.rng), limits: run.limits }, (done, total) => {
    run.clock?.soFar('eval', done);
    ctx.progress({ fraction: run.fraction(step), message: `step ${step}: evaluating on held-out questions ${done} of ${total}` });
  });
  const { report, summary } = evaluationSummary(trajs, config.eval.samples, goldLookup(run.heldOut));
  summary['timing/eval_s'] = (performance.now() - t0) / 1000;
  const samples = trajs.map((t) => sampleFromTrajectory(t));
  const breakdown = levelBreakdown(questionScores(samples), new Map(run.heldOut.map((q) => [q.id, levelOfQuestion(q)])), await expertScores(run));
  Object.assign(summary, breakdownMetrics(breakdown));
  writeTrajectorySet(evalFile(ctx.home, runId, step), { kind: 'eval', run: runId, step, policy: spec, summary, report: { ...report, breakdown } }, trajs);
  return summary;
}

const expertCache = new WeakMap<readonly QA[], Map<string, number>>();

/** The expert's pass@1 per held-out question (one episode each, the evaluation's seed), made once per run. */
async function expertScores(run: TrainRun): Promise<Map<string, number> | undefined> {
  if (!run.expert) return undefined;
  const cached = expertCache.get(run.heldOut);
  if (cached) return cached;
  const trajs = await rolloutDataset(run.heldOut, run.expert, run.tools, { n: 1, seed: evalSeed(run.config.rng), limits: run.limits });
  const scores = questionScores(trajs.map((t) => sampleFromTrajectory(t)));
  expertCache.set(run.heldOut, scores);
  return scores;
}
