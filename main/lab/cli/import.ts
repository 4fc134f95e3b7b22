// Bringing files made outside the app (by `sailor kg build`, `sailor synth`, or by hand) into the store,
// so runs and the app can refer to them by id. The file is validated first, then copied atomically.
import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import type { ArtefactRecord } from '../contract';
import type { StoreDb } from '../store/db';
import { readInputBytes, writeFileAtomic } from '../store/files';
import { artefactRel } from '../store/layout';
import { readGraphFile } from '../kg/io';
import { graphStats } from '../kg/stats';
import { readDataset } from '../synth/dataset';
import { readTrajectories } from '../agent/data';

/** Imports a graph, dataset or trajectory file; the same content imported twice gives the same id (no duplicate). */
export async function importArtefact(db: StoreDb, home: string, kind: 'graphs' | 'datasets' | 'trajectories', file: string, extra: Record<string, unknown> = {}): Promise<ArtefactRecord> {
  const bytes = readInputBytes(file);
  const info: Record<string, unknown> =
    kind === 'graphs' ? { stats: graphStats(readGraphFile(file)) } : kind === 'datasets' ? { count: readDataset(file).qas.length } : { count: readTrajectories(file).length };
  const id = `import-${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}`;
  const existing = db.data[kind].find((a) => a.id === id);
  if (existing) return existing;
  const rel = artefactRel(kind, id);
  writeFileAtomic(join(home, rel), bytes);
  const artefact: ArtefactRecord = { id, name: basename(file), path: rel, createdAt: new Date().toISOString(), info: { ...info, ...extra, importedFrom: file } };
  // Another process may have imported the same content since: the first record stays.
  return db.update((data) => {
    const already = data[kind].find((a) => a.id === id);
    if (already) return already;
    data[kind].push(artefact);
    return artefact;
  });
}
