// Rollouts over a dataset: n attempts per QA with a seeded rng per (seed, QA, attempt), reasoning
// reconstruction for expert trajectories, and the reward. Used by the CLI, RFT, eval and the bench.
import { isInfrastructureFailure, type QA, type Trajectory } from '../formats/index';
import { errorMessage, LabError } from '../base/errors';
import { createRng, seedFrom } from '../util/rng';
import { reconstructTrajectory } from './thoughts';
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
  /** Episodes already played (a resumed comparison's), by trajectory id `<qa>/<attempt>`: kept as they are, not played again. */
  played?: ReadonlyMap<string, Trajectory>;
}

export function generatedTokens(steps: readonly AgentStep[], count: TokenCounter): number {
  return steps.reduce((sum, s) => {
    const p = renderStepParts(s);
    return sum + count(p.think + p.action);
  }, 0);
}

/** Loads the policy before any episode: one that cannot load fails the command, rather than every episode. */
export async function preparePolicy(factory: PolicyFactory, plan?: { episodes: number }): Promise<void> {
  try {
    await factory.ready?.(plan);
  } catch (err) {
    throw new LabError('internal', `policy ${factory.spec} could not be loaded: ${errorMessage(err)}`);
  }
}

export interface InfrastructureReport {
  /** Episodes that ended in policy_error or tool_error. */
  failed: number;
  total: number;
  byTermination: Record<string, number>;
  firstError: string | null;
}

export function infrastructureReport(trajs: readonly Trajectory[]): InfrastructureReport {
  const failed = trajs.filter((t) => isInfrastructureFailure(t.termination));
  const byTermination: Record<string, number> = {};
  for (const t of failed) byTermination[t.termination] = (byTermination[t.termination] ?? 0) + 1;
  const firstError = failed.find((t) => typeof t.error === 'string')?.error;
  return { failed: failed.length, total: trajs.length, byTermination, firstError: typeof firstError === 'string' ? firstError : null };
}

/**
 * Throws when every episode failed on the infrastructure: their scores would say nothing about the model
 * (pass@1 = 0 from a server that is down). Returns the report otherwise, for a warning when some did.
 */
export function requireSomeModelEpisodes(trajs: readonly Trajectory[], spec: string): InfrastructureReport {
  const report = infrastructureReport(trajs);
  if (report.total > 0 && report.failed === report.total) {
    const kinds = Object.entries(report.byTermination).map(([k, n]) => `${k} ${n}`).join(', ');
    throw new LabError('internal', `policy ${spec}: every episode (${report.total}) failed on the infrastructure, not the model (${kinds})${report.firstError ? `; first error: ${report.firstError}` : ''}`);
  }
  return report;
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

/**
 * Runs `n` attempts per QA (QA-major order), `concurrency` episodes at a time (default: what the policy serves
 * best, PolicyFactory.inFlight, else 1); calls `progress` after each it plays (`done` counts the kept ones of
 * `opts.played` too). Each attempt has its own seeded stream, so the trajectories depend neither on the
 * concurrency nor on which of them were played before a resume.
 */
export async function rolloutDataset(
  qas: readonly QA[],
  factory: PolicyFactory,
  tools: Toolset,
  opts: RolloutOptions,
  progress?: (done: number, total: number, finished: Trajectory) => void,
): Promise<Trajectory[]> {
  const total = qas.length * opts.n;
  const out: Trajectory[] = new Array<Trajectory>(total);
  const jobs: { qa: QA; sample: number; at: number }[] = [];
  for (const [q, qa] of qas.entries()) {
    for (let i = 0; i < opts.n; i++) {
      const kept = opts.played?.get(`${qa.id}/${i}`);
      if (kept) out[q * opts.n + i] = kept;
      else jobs.push({ qa, sample: i, at: q * opts.n + i });
    }
  }
  let next = 0;
  let done = total - jobs.length;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      out[job.at] = await rolloutOne(job.qa, job.sample, factory, tools, opts);
      progress?.(++done, total, out[job.at]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? factory.inFlight ?? 1, jobs.length)) }, worker));
  return out;
}
