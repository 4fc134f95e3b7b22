// Rollouts over a dataset: n attempts per QA with a seeded rng per (seed, QA, attempt), reasoning
// reconstruction for expert trajectories, and the reward. Used by the CLI, RFT, eval and the bench.
import type { QA, Trajectory } from '../formats/index';
import { createRng, seedFrom } from '../util/rng';
import { reconstructTrajectory } from './expert';
import type { PolicyFactory } from './policies';
import { type AgentStep, renderStepParts } from './react';
import { type RewardOptions, type Judge, scoreTrajectory } from './reward';
import { type Limits, type TokenCounter, type Toolset, runEpisode } from './runtime';
import { approxTokens } from './text';

export interface RolloutOptions {
  n: number; // attempts per QA
  seed: number;
  limits?: Partial<Limits>;
  reward?: Partial<RewardOptions>;
  judge?: Judge;
  countTokens?: TokenCounter;
  concurrency?: number;
}

export function generatedTokens(steps: readonly AgentStep[], count: TokenCounter): number {
  return steps.reduce((sum, s) => {
    const p = renderStepParts(s);
    return sum + count(p.think + p.action);
  }, 0);
}

/** One attempt at one QA, scored. */
export async function rolloutOne(qa: QA, sample: number, factory: PolicyFactory, tools: Toolset, opts: RolloutOptions): Promise<Trajectory> {
  const rng = createRng(seedFrom(`${opts.seed}/${qa.id}/${sample}`));
  const count = opts.countTokens ?? approxTokens;
  let traj = await runEpisode({
    id: `${qa.id}/${sample}`,
    qaId: qa.id,
    question: qa.question,
    policy: factory.forQA(qa, sample, rng),
    tools,
    limits: opts.limits,
    countTokens: count,
    rng,
  });
  if (factory.reconstruct) {
    traj = await reconstructTrajectory(traj, qa.question, factory.reconstruct, rng);
    traj.tokens = { ...traj.tokens, generated: generatedTokens(traj.steps, count) };
  }
  traj.reward = await scoreTrajectory(traj, qa, opts.reward, opts.judge);
  return traj;
}

/** Runs `n` attempts per QA (QA-major order), `concurrency` episodes at a time; calls `progress` after each. */
export async function rolloutDataset(
  qas: readonly QA[],
  factory: PolicyFactory,
  tools: Toolset,
  opts: RolloutOptions,
  progress?: (done: number, total: number) => void,
): Promise<Trajectory[]> {
  const jobs: { qa: QA; sample: number }[] = [];
  for (const qa of qas) for (let i = 0; i < opts.n; i++) jobs.push({ qa, sample: i });
  const out: Trajectory[] = new Array<Trajectory>(jobs.length);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const j = next++;
      const job = jobs[j]!;
      out[j] = await rolloutOne(job.qa, job.sample, factory, tools, opts);
      progress?.(++done, jobs.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 1, jobs.length)) }, worker));
  return out;
}
