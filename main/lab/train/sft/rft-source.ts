// The RFT data from a trajectory set instead of the expert (run config `data.trajectoriesId`): a policy's own
// samples of the training questions, which the usual RFT filters then cut to the correct, well-formed ones.
// SFT on them is rejection fine-tuning (expert iteration), the control RL must beat at the same rollout budget.
import { LabError } from '../../base/errors';
import type { QA, Trajectory } from '../../formats';
import { readTrajectories } from '../../agent/data';
import { artefactFile } from '../../store/layout';

/** The set's trajectories of the training questions (others are left out); a clear error when none is one. */
export function ownSamples(home: string, trajectoriesId: string, trainQas: readonly QA[]): Trajectory[] {
  const { path } = artefactFile(home, 'trajectories', trajectoriesId);
  const ids = new Set(trainQas.map((q) => q.id));
  const all = readTrajectories(path);
  const mine = all.filter((t) => ids.has(t.qa_id));
  if (mine.length === 0) throw new LabError('conflict', `trajectory set ${trajectoriesId}: none of its ${all.length} trajectories answers a question of the training set (data.datasetId)`);
  return mine;
}
