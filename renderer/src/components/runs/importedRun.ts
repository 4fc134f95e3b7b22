// What a run imported from verl (`runs.importVerl`) does differently from a run the lab trained, in one
// object: every place that treats the two apart asks `originOf(run)` rather than testing `info.verl` itself.
// An import brought verl's metrics (and, when given, its rollout and validation dumps), not a training loop
// the lab ran: the lab's own words ("no update yet: only zero-std groups", "synchronous RL", "no evaluation
// yet") would be wrong for it, its clock is its records' span, and its weights stay in verl's checkpoints.
// Pure: unit-tested, no DOM.
import type { RunSummary } from '@contract';
import type { ChartDef } from './rlView';

/** What an imported run brought besides its metrics. */
export interface ImportedParts {
  /** RL steps whose rollouts were imported (verl's trainer.rollout_data_dir). */
  rollouts: boolean;
  /** Steps whose validation generations were imported (trainer.validation_data_dir). */
  validation: boolean;
}

/** How the app treats a run of one origin. */
export interface RunOrigin {
  imported: boolean;
  /** The run trains no SFT steps (so no SFT loss to chart). null: its config says. */
  rlOnly: boolean | null;
  /** A running run's duration counts on with the clock (a followed verl run's is its records' span). */
  clockRuns: boolean;
  /** What an empty chart says; null: the lab's own words, which depend on the run's state. */
  emptyNote(def: ChartDef): string | null;
  /** The hint above a chart: what a click on a point opens, or nothing. */
  pickNote(def: ChartDef, parts: ImportedParts): string | null;
  /** Whether a click at an RL step opens its rollouts (an import's only where they were imported). */
  opensRollouts(storedRlSteps: readonly number[]): boolean;
  /** The steps a click on an evaluation chart may open: the evaluations stored, or every point charted. */
  evalSteps(storedEvalSteps: readonly number[], chartedSteps: readonly number[]): readonly number[];
  /** The RL section when no rollouts were stored; null: the group view says it. */
  noRollouts: string | null;
  /** The evaluations card when none was stored; null: the lab's "none yet" with its interval. */
  noValidation: string | null;
  /** Where Compare would list checkpoints and there are none. */
  noCheckpoints: string;
}

export const LAB_RUN: RunOrigin = {
  imported: false,
  rlOnly: null,
  clockRuns: true,
  emptyNote: () => null,
  pickNote: (def) => (def.rlPhase ? 'click a point: that step’s rollouts' : def.evalPoints ? 'click a point: its trajectories' : null),
  opensRollouts: () => true,
  evalSteps: (_stored, charted) => charted,
  noRollouts: null,
  noValidation: null,
  noCheckpoints: 'no checkpoints yet',
};

export const IMPORTED_RUN: RunOrigin = {
  imported: true,
  rlOnly: true,
  clockRuns: false,
  emptyNote(def) {
    if (def.id === 'rl-staleness') return 'not in verl’s metrics: staleness is the lab’s asynchronous RL measure';
    if (def.evalPoints) return 'no validation score in the imported metrics';
    return 'not in the imported verl metrics';
  },
  pickNote(def, parts) {
    if (def.rlPhase) return parts.rollouts ? 'click a point: that step’s rollouts' : null;
    if (def.evalPoints) return parts.validation ? 'click a point: its validation generations' : null;
    return null;
  },
  opensRollouts: (stored) => stored.length > 0,
  // Its evaluation chart has verl's validation scores at steps with no dump behind them.
  evalSteps: (stored) => stored,
  noRollouts:
    'No rollouts were imported: the RL charts are verl’s metrics. Import the run again with its rollout dumps (verl’s trainer.rollout_data_dir) to see each step’s groups and trajectories.',
  noValidation:
    'No validation generations were imported: the evaluation chart’s points are verl’s validation scores from its metrics. Import the run again with its validation dumps (verl’s trainer.validation_data_dir) to open the answers behind them.',
  noCheckpoints:
    'imported from verl: its weights stay in verl’s checkpoints; serve a step (vLLM, SGLang) and save it under Endpoints as serving that step to compare it',
};

export const originOf = (r: RunSummary | null | undefined): RunOrigin => (r?.artefact.info.verl ? IMPORTED_RUN : LAB_RUN);
