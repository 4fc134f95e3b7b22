// Which questions a new comparison asks when nothing is picked yet, and how many. A run's held-out set when
// there is a run to follow; otherwise the newest dataset whose recorded role is held-out (how runs use it, or
// how its synthesis was made: util/labels.ts datasetRoles), never just the newest dataset, which may be a
// training or RL set. Without a run's protocol the count is the whole set, so the form and the set's
// summary agree. Pure: unit-tested.
import type { ArtefactRecord, DatasetInfo } from '@contract';
import { datasetCount, datasetRoles, type RunUse } from '../../util/labels';

/** The ids of datasets that serve as held-out questions, by their recorded roles. */
export function heldOutIds(datasets: readonly ArtefactRecord<DatasetInfo>[], uses: readonly RunUse[]): Set<string> {
  return new Set(datasets.filter((d) => datasetRoles(d, uses).includes('held-out')).map((d) => d.id));
}

/** The run's held-out set, else the first held-out dataset in the list (newest first), else '' (the user picks). */
export function defaultQuestionSet(runHeldOut: string | null, datasets: readonly ArtefactRecord<DatasetInfo>[], uses: readonly RunUse[]): string {
  if (runHeldOut) return runHeldOut;
  const held = heldOutIds(datasets, uses);
  return datasets.find((d) => held.has(d.id))?.id ?? '';
}

/** The question count a form without a run's protocol starts from: the whole set (null while it is not known). */
export function defaultQuestionCount(datasets: readonly ArtefactRecord<DatasetInfo>[], id: string): number | null {
  const d = datasets.find((x) => x.id === id);
  return d ? datasetCount(d) : null;
}
