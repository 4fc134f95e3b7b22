// Ids both sides read and write: the pattern every artefact id follows, and the ids of a run's own trajectory
// sets (`eval:<run>:<step>`, `rl:<run>:<step>`, `relabel:<run>:<round>`, `rft:<run>`), built and parsed here only.
// No Node imports.
import { z } from 'zod';

/** An artefact's id (graph, dataset, run, job …): safe as a file name and in a URL. */
export const ID_PATTERN = /^[A-Za-z0-9._:-]+$/;
export const artefactId = z.string().min(1).max(200).regex(ID_PATTERN, 'letters, digits and . _ : - only');

/**
 * Where a run's own trajectory sets come from: an evaluation at a step (`eval:<run>:<step>`), an RL step's
 * rollouts (`rl:<run>:<step>`), a relabeling round's labelled episodes (`relabel:<run>:<round>`, rounds from 1)
 * or the expert's RFT demonstrations (`rft:<run>`).
 */
export const RUN_SET_KINDS = ['eval', 'rl', 'relabel', 'rft'] as const;
export type RunSetKind = (typeof RUN_SET_KINDS)[number];

/** One of a run's sets by its parts; `step` is the round for a relabeling round, 0 for the RFT data (one per run). */
export interface RunSetRef {
  kind: RunSetKind;
  runId: string;
  step: number;
}

/** A run set's id: `eval:<run>:<step>`, `rl:<run>:<step>`, `relabel:<run>:<round>` or `rft:<run>`. */
export function runSetId({ kind, runId, step }: RunSetRef): string {
  return kind === 'rft' ? `rft:${runId}` : `${kind}:${runId}:${step}`;
}

// A run id inside a set id has no colon, so the parts split one way only.
const RUN_SET = /^(eval|rl|relabel):([A-Za-z0-9._-]+):(\d+)$|^rft:([A-Za-z0-9._-]+)$/;

/** A run set's id as its parts, or null when it is not one (a stored set's id). */
export function parseRunSetId(id: string): RunSetRef | null {
  const m = RUN_SET.exec(id);
  if (!m) return null;
  if (m[4] !== undefined) return { kind: 'rft', runId: m[4], step: 0 };
  return { kind: m[1] as 'eval' | 'rl' | 'relabel', runId: m[2]!, step: Number(m[3]) };
}
