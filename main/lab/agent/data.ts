// Readers for the agent's inputs: a `sailor.qa/1` dataset (synth/dataset's reader: errors name
// file:line: field) and trajectories (`sailor.traj/1`). Graphs are read by kg/io's readGraphFile.
import type { QA, Trajectory } from '../formats/index';
import { TRAJ_FORMAT } from '../formats/index';
import { readDataset } from '../synth/dataset';
import { inputError } from '../base/errors';
import { readJsonl } from '../store/files';

export interface QaDataset {
  header: Record<string, unknown> | null;
  qas: QA[];
}

/** Reads a `sailor.qa/1` dataset with the synthesis engine's reader (one reader for the format). */
export function readQaDataset(path: string): QaDataset {
  const { header, qas } = readDataset(path);
  return { header, qas };
}

export interface TrajectorySet {
  /** The header line (`format` and what made the set), or null for a file without one. */
  header: Record<string, unknown> | null;
  trajectories: Trajectory[];
}

/** Reads trajectories written by `sailor rollout` (header line optional). */
export function readTrajectories(path: string): Trajectory[] {
  return readTrajectorySet(path).trajectories;
}

/** Reads a trajectory set with its header (the first line with a `format`; optional). */
export function readTrajectorySet(path: string): TrajectorySet {
  const { records } = readJsonl(path);
  let header: Record<string, unknown> | null = null;
  const trajectories: Trajectory[] = [];
  for (const rec of records) {
    const v = rec.value as Record<string, unknown> | null;
    if (v && typeof v === 'object' && 'format' in v) {
      if (v.format !== TRAJ_FORMAT) throw inputError(path, `expected format '${TRAJ_FORMAT}', got '${String(v.format)}'`, { line: rec.line, field: 'format' });
      header ??= v;
      continue;
    }
    if (!v || typeof v.qa_id !== 'string' || !Array.isArray(v.steps)) {
      throw inputError(path, 'not a trajectory (needs qa_id and steps)', { line: rec.line });
    }
    trajectories.push(v as unknown as Trajectory);
  }
  return { header, trajectories };
}
