// Where the store keeps its artefacts in the data directory: one place for the paths that jobs, runs and
// the CLI would otherwise each rebuild by hand (a run's own files are laid out in runs/layout.ts).
//
//   graphs/<id>.json            sailor.graph/1
//   datasets/<id>.jsonl         sailor.qa/1
//   trajectories/<id>.jsonl     sailor.traj/1 (a rollout job's set)
//   comparisons/<id>.json       a checkpoint comparison
//   runs/<id>/                  a training run (runs/layout.ts)
import { existsSync } from 'node:fs';
import { isAbsolute, join, normalize } from 'node:path';
import { LabError } from '../base/errors';
import type { ArtefactRecord } from './db';
import { readJsonFile } from './files';

const EXT = { graphs: '.json', datasets: '.jsonl', trajectories: '.jsonl', comparisons: '.json' } as const;

/** The collections whose artefacts are one file each. */
export type FileCollection = keyof typeof EXT;

/** `<collection>/<id><ext>`, relative to the data directory: where an artefact made or imported here goes. */
export const artefactRel = (collection: FileCollection, id: string): string => join(collection, `${id}${EXT[collection]}`);
export const graphFile = (home: string, graphId: string): string => join(home, artefactRel('graphs', graphId));
export const datasetFile = (home: string, datasetId: string): string => join(home, artefactRel('datasets', datasetId));
/** `runs/<id>`, relative to the data directory. */
export const runRel = (runId: string): string => join('runs', runId);

/**
 * Where a graph's or dataset's file is: the path the store records for it (a read-only look at db.json,
 * since the main thread owns writes), else the conventional one. Never outside the data directory.
 */
export function artefactFile(home: string, collection: 'graphs' | 'datasets' | 'trajectories', id: string): { path: string; info: Record<string, unknown> } {
  let rel: string | undefined;
  let info: Record<string, unknown> = {};
  const dbFile = join(home, 'db.json');
  if (existsSync(dbFile)) {
    const db = readJsonFile(dbFile) as Record<string, unknown>;
    const list = Array.isArray(db[collection]) ? (db[collection] as ArtefactRecord[]) : [];
    const rec = list.find((a) => a && a.id === id);
    if (rec) {
      rel = rec.path;
      info = rec.info ?? {};
    }
  }
  rel ??= artefactRel(collection, id);
  const clean = normalize(rel);
  if (isAbsolute(clean) || clean.startsWith('..')) throw new LabError('corrupt', `${collection} ${id}: stored path ${rel} is outside the data directory`);
  const path = join(home, clean);
  if (!existsSync(path)) throw new LabError('not_found', `no ${{ graphs: 'graph', datasets: 'dataset', trajectories: 'trajectory set' }[collection]} with id '${id}' (looked for ${clean})`);
  return { path, info };
}
