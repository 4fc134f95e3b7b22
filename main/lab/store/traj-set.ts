// The one writer of trajectory sets (`sailor.traj/1` JSON Lines, docs/formats.md): a header line that
// names the format and says what the set is (a rollout job, RFT data, an evaluation, an RL step or the RL
// pool), then one record per line. Written atomically, so a reader never sees half a set.
import { createHash } from 'node:crypto';
import { TRAJ_FORMAT } from '../formats';
import { readInputBytes, writeFileAtomic } from './files';

export function writeTrajectorySet(path: string, header: Record<string, unknown>, records: readonly unknown[]): void {
  writeFileAtomic(path, [{ format: TRAJ_FORMAT, ...header }, ...records].map((x) => JSON.stringify(x)).join('\n') + '\n');
}

/**
 * The SHA-256 (hex) of a `sailor.qa/1` file, which a set's header records as `datasetSha256`: datasets number
 * their questions alike (qa-000001 ...), so only the dataset's content tells which questions a set's qa_ids
 * name. A dataset imported into the store keeps its bytes (cli/import.ts), and with them its hash.
 */
export function datasetSha256(datasetPath: string): string {
  return createHash('sha256').update(readInputBytes(datasetPath)).digest('hex');
}
