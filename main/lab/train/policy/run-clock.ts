// A running run's clock: what it has done of each stage and the seconds it measured doing it, turned into the
// progress bar's fraction and the time left over every stage (contract/run-timeline.ts does the arithmetic).
// Stages report finished units with their measured seconds (an SFT step's update time, an RL step's rollouts
// and update, from the metrics record), or their units so far while a long piece of work runs (expert
// rollouts, an evaluation's episodes, the too-easy filter's rollouts), timed from when it began.
import { existsSync } from 'node:fs';
import type { JobProgress, RunMeasurements } from '../../contract';
import type { JobContext } from '../../jobs/context';
import { evalCount, planStages, ratesFromParts, timeline, type PlanCounts, type StageDone, type StageKey, type StagePlan, type StageRates, type Timeline } from '../../contract/run-timeline';
import type { RunConfig } from '../../contract/run-config';
import { readJsonFile } from '../../store/files';
import { estimateFile } from '../../runs/layout';
import { estimateRun } from './estimate-run';

/** The estimate's seconds per unit of each stage, recomputed for the run's actual question counts. */
export function priorRates(config: RunConfig, counts: PlanCounts, measured: RunMeasurements | undefined): StageRates {
  if (!measured) return {};
  const m = { ...measured, trainQuestions: counts.trainQuestions, heldOutQuestions: counts.heldOutQuestions, rlQuestions: counts.rlQuestions };
  return ratesFromParts(planStages(config, counts), estimateRun(config, m).parts);
}

/** The launch's measurements, when the run has them (a run started from the CLI has none). */
export function readLaunchEstimate(home: string, runId: string): RunMeasurements | undefined {
  const f = estimateFile(home, runId);
  return existsSync(f) ? (readJsonFile(f) as { measured?: RunMeasurements }).measured : undefined;
}

export class RunClock {
  private readonly done: Partial<Record<StageKey, StageDone>> = {};
  /** A stage's units and seconds when its current piece of work began, and when. */
  private readonly begun = new Map<StageKey, { units: number; seconds: number; at: number }>();

  constructor(
    readonly plan: readonly StagePlan[],
    private readonly prior: StageRates,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Units finished with the seconds they took (an SFT or RL step). */
  add(key: StageKey, units: number, seconds: number): void {
    const d = this.done[key] ?? { units: 0, seconds: 0 };
    this.done[key] = { ...d, units: d.units + units, seconds: d.seconds + seconds };
  }

  /** A long piece of work begins (an evaluation, the RFT rollouts, the filter): `soFar` counts from here. */
  begin(key: StageKey): void {
    const d = this.done[key] ?? { units: 0, seconds: 0 };
    this.begun.set(key, { units: d.units, seconds: d.seconds, at: this.now() });
  }

  /**
   * A step's metrics record: an SFT step's update time (steps 1..sftSteps), an RL step's rollouts and update
   * (the steps after). Evaluations are timed apart (begin/soFar), so their seconds are not counted here.
   */
  record(step: number, sftSteps: number, m: Record<string, number>): void {
    const update = m['timing/update_s'];
    if (step <= 0 || update === undefined) return;
    if (step > sftSteps) this.add('rl', 1, update + (m['timing/rollout_s'] ?? 0));
    else this.add('sft', 1, update);
  }

  /** `units` of the piece begun last are done, timed since it began. */
  soFar(key: StageKey, units: number): void {
    if (!this.begun.has(key)) this.begin(key);
    const b = this.begun.get(key)!;
    this.done[key] = { ...this.done[key], units: b.units + units, seconds: b.seconds + (this.now() - b.at) / 1000 };
  }

  /** Units done before this job (a resumed run's): counted as done, no seconds to learn from; all of the stage without `units`. */
  skip(key: StageKey, units?: number): void {
    const n = units ?? this.plan.find((s) => s.key === key)?.units ?? 0;
    const d = this.done[key] ?? { units: 0, seconds: 0 };
    if (n > 0) this.done[key] = { units: d.units + n, seconds: d.seconds, untimed: (d.untimed ?? 0) + n };
  }

  timeline(): Timeline {
    return timeline(this.plan, this.done, this.prior);
  }

  /** The largest fraction shown so far: a re-estimate (an evaluation slower than estimated) holds the bar, never moves it back. */
  private shown = 0;

  /**
   * The progress record for a message: fraction and time left by the timeline, or `fallback` while a stage has no
   * rate yet. The fraction never goes back (the third walk saw 20 % -> 16 % -> 19 % around an evaluation).
   */
  progress(message: string, fallback: number, extra: Pick<JobProgress, 'done' | 'total'> = {}): JobProgress {
    const t = this.timeline();
    this.shown = Math.max(this.shown, Math.min(1, t.fraction ?? fallback));
    return {
      fraction: this.shown,
      message,
      ...extra,
      ...(t.secondsLeft !== null ? { secondsLeft: t.secondsLeft } : {}),
      stages: t.stages.map((s) => ({ label: s.label, done: s.units ? s.done / s.units : 1, leftSeconds: s.leftSeconds, basis: s.basis })),
    };
  }
}

/** `ctx` with its progress fraction and time left by the clock (`fallback`: the fraction it was given). */
export function timedContext(ctx: JobContext, clock: RunClock): JobContext {
  return {
    jobId: ctx.jobId,
    home: ctx.home,
    dir: ctx.dir,
    stream: ctx.stream,
    signal: ctx.signal,
    log: (message) => ctx.log(message),
    publish: (name, payload) => ctx.publish(name, payload),
    progress: (p) => ctx.progress(clock.progress(p.message, p.fraction, { ...(p.done !== undefined ? { done: p.done, total: p.total } : {}) })),
  };
}

/** A run's plan from its config and its actual question sets. */
export function runPlanCounts(config: RunConfig, sets: { train: number; heldOut: number; rl: number }, trainsTokenizer: boolean): PlanCounts {
  return { trainQuestions: sets.train, heldOutQuestions: Math.min(sets.heldOut, config.eval.questions), rlQuestions: sets.rl, trainsTokenizer };
}

/** The run's clock: its plan, and the launch estimate's rates for its actual question counts. */
export function openRunClock(home: string, runId: string, config: RunConfig, counts: PlanCounts): RunClock {
  return new RunClock(planStages(config, counts), priorRates(config, counts, readLaunchEstimate(home, runId)));
}

/** Evaluations a run has made by global step `step` (a resumed run's, done before this job). */
export function evalsBy(config: RunConfig, step: number): number {
  const sft = Math.min(step, config.sft.steps);
  const rl = Math.max(0, step - config.sft.steps);
  // evalCount counts the one at a stage's end too: a stage not yet at its end has not made it.
  const made = (n: number, of: number, every: number): number => evalCount(n, every) - (n < of && n % every ? 1 : 0);
  return made(sft, config.sft.steps, config.eval.every) + (config.rl ? made(rl, config.rl.steps, config.rl.evalEvery) : 0);
}
