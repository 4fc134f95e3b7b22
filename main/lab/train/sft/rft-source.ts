// The RFT data from a trajectory set instead of the expert (run config `data.trajectoriesId`): a policy's own
// samples of the training questions, which the usual RFT filters then cut to the correct, well-formed ones.
// SFT on them is rejection fine-tuning (expert iteration), the control RL must beat at the same rollout budget.
//
// A set names its questions by qa_id only, and every dataset numbers its questions alike (qa-000001 ...): a set
// played on another dataset would match the wrong questions. So a set whose header says it was played on
// another dataset (its `datasetSha256`, or for a rollout job's set from before that field, the dataset its
// `datasetId` names in the store) is refused; a set that cannot tell is taken as played on the training set,
// with a warning.
import { LabError } from '../../base/errors';
import type { QA, Trajectory } from '../../formats';
import { readTrajectorySet } from '../../agent/data';
import { artefactFile, datasetFile } from '../../store/layout';
import { datasetSha256 } from '../../store/traj-set';

/** The run's training set: its id (data.datasetId) and questions. */
export interface TrainingSet {
  datasetId: string;
  qas: readonly QA[];
}

/**
 * The set's trajectories of the training questions (others are left out); a clear error when none is one or
 * when the set was played on another dataset. `warn` hears, once, that the set does not say which.
 */
export function ownSamples(home: string, trajectoriesId: string, training: TrainingSet, warn: (message: string) => void): Trajectory[] {
  const { path } = artefactFile(home, 'trajectories', trajectoriesId);
  const { header, trajectories: all } = readTrajectorySet(path);
  const theirs = playedOn(home, header);
  if (!theirs) {
    warn(`trajectory set ${trajectoriesId} does not record the dataset it was played on (no datasetSha256 in its header): its qa_ids are taken as questions of the training set ${training.datasetId}`);
  } else {
    const ours = datasetSha256(datasetFile(home, training.datasetId));
    if (theirs.sha256 !== ours) {
      throw new LabError(
        'conflict',
        `trajectory set ${trajectoriesId} was played on dataset ${theirs.name} (sha256 ${theirs.sha256.slice(0, 12)}), not on the training set ${training.datasetId} (sha256 ${ours.slice(0, 12)}): ` +
        'datasets number their questions alike, so its qa_ids would name other questions; use a set played on the training set, or train on the set\'s dataset',
      );
    }
  }
  const ids = new Set(training.qas.map((q) => q.id));
  const mine = all.filter((t) => ids.has(t.qa_id));
  if (mine.length === 0) throw new LabError('conflict', `trajectory set ${trajectoriesId}: none of its ${all.length} trajectories answers a question of the training set (data.datasetId)`);
  return mine;
}

/**
 * The dataset a set's header says it was played on, by name (`datasetId`, or the `dataset` path the CLI
 * records) and content hash; undefined when the header cannot tell.
 */
export function playedOn(home: string, header: Record<string, unknown> | null): { name: string; sha256: string } | undefined {
  const id = typeof header?.datasetId === 'string' ? header.datasetId : undefined;
  const name = id ?? (typeof header?.dataset === 'string' ? header.dataset : 'unnamed');
  if (typeof header?.datasetSha256 === 'string') return { name, sha256: header.datasetSha256 };
  if (id === undefined) return undefined;
  try {
    return { name, sha256: datasetSha256(artefactFile(home, 'datasets', id).path) };
  } catch (err) {
    if (err instanceof LabError && err.code === 'not_found') return undefined; // the dataset is gone: no way to tell
    throw err;
  }
}
