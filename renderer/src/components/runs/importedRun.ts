// How the dashboard describes a run imported from verl (`runs.importVerl`): what it brought (verl's metrics,
// and, when given, its rollout and validation dumps) rather than what a lab run would have had by now. The
// lab's own words ("no update yet: only zero-std groups", "synchronous RL", "no evaluation yet") describe a
// training loop the lab ran; for an import they would be wrong. Pure: unit-tested, no DOM.
import type { RunSummary } from '@contract';
import type { ChartDef } from './rlView';

export const isImported = (r: RunSummary | null | undefined): boolean => !!r?.artefact.info.verl;

/** What an imported run brought besides its metrics. */
export interface ImportedParts {
  /** RL steps whose rollouts were imported (verl's trainer.rollout_data_dir). */
  rollouts: boolean;
  /** Steps whose validation generations were imported (trainer.validation_data_dir). */
  validation: boolean;
}

/** What an empty chart of an imported run says: verl did not log it, or logs it under a name the lab does not map. */
export function importedEmptyNote(def: ChartDef): string {
  if (def.id === 'rl-staleness') return 'not in verl’s metrics: staleness is the lab’s asynchronous RL measure';
  if (def.evalPoints) return 'no validation score in the imported metrics';
  return 'not in the imported verl metrics';
}

/** The hint above a chart of imported runs: a point opens what was imported behind it, or nothing is said. */
export function importedPickNote(def: ChartDef, parts: ImportedParts): string | null {
  if (def.rlPhase) return parts.rollouts ? 'click a point: that step’s rollouts' : null;
  if (def.evalPoints) return parts.validation ? 'click a point: its validation generations' : null;
  return null;
}

/** The evaluations card of an imported run without validation dumps. */
export const IMPORTED_NO_VALIDATION =
  'No validation generations were imported: the evaluation chart’s points are verl’s validation scores from its metrics. Import the run again with its validation dumps (verl’s trainer.validation_data_dir) to open the answers behind them.';

/** The RL section of an imported run without rollout dumps. */
export const IMPORTED_NO_ROLLOUTS =
  'No rollouts were imported: the RL charts are verl’s metrics. Import the run again with its rollout dumps (verl’s trainer.rollout_data_dir) to see each step’s groups and trajectories.';

/** Where Compare would list checkpoints. */
export const IMPORTED_NO_CHECKPOINTS = 'imported from verl: its weights stay in verl’s checkpoints; serve a step (vLLM, SGLang) and save it under Endpoints as serving that step to compare it';
