// The one writer of trajectory sets (`sailor.traj/1` JSON Lines, docs/formats.md): a header line that
// names the format and says what the set is (a rollout job, RFT data, an evaluation, an RL step or the RL
// pool), then one record per line. Written atomically, so a reader never sees half a set.
import { TRAJ_FORMAT } from '../formats';
import { writeFileAtomic } from './files';

export function writeTrajectorySet(path: string, header: Record<string, unknown>, records: readonly unknown[]): void {
  writeFileAtomic(path, [{ format: TRAJ_FORMAT, ...header }, ...records].map((x) => JSON.stringify(x)).join('\n') + '\n');
}
