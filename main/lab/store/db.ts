// The run store's metadata: one lowdb document (db.json) in the data directory. The adapter below is
// what makes it safe: writes are atomic (temp file + fsync + rename), and a file that is corrupt or
// was written by a newer Sailor Lab is refused with a clear error and left exactly as it is.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Low, type Adapter } from 'lowdb';
import type { ArtefactRecord, JobRecord } from '../contract';

export type { ArtefactRecord };
import { LabError } from '../errors';
import { writeJsonAtomic } from './files';

export const STORE_FORMAT = 'sailor.store';
export const STORE_VERSION = 1;

export interface StoreData {
  format: typeof STORE_FORMAT;
  version: number;
  projects: ArtefactRecord[];
  graphs: ArtefactRecord[];
  datasets: ArtefactRecord[];
  runs: ArtefactRecord[];
  checkpoints: ArtefactRecord[];
  /** Trajectory sets (rollouts): one JSON Lines file each, `sailor.traj/1`. */
  trajectories: ArtefactRecord[];
  comparisons: ArtefactRecord[];
  jobs: Array<JobRecord & { owner?: { pid: number; session: string } }>;
}

export function emptyStore(): StoreData {
  return {
    format: STORE_FORMAT,
    version: STORE_VERSION,
    projects: [],
    graphs: [],
    datasets: [],
    runs: [],
    checkpoints: [],
    trajectories: [],
    comparisons: [],
    jobs: [],
  };
}

/** Checks a parsed db.json; returns it with any collections that an older version lacked filled in. */
export function checkStoreData(file: string, value: unknown): StoreData {
  const moveAside = `It was left untouched; move it aside to start a fresh store.`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new LabError('corrupt', `${file}: expected a JSON object. ${moveAside}`);
  }
  const rec = value as Record<string, unknown>;
  if (rec.format !== STORE_FORMAT) {
    throw new LabError('corrupt', `${file}: format is ${JSON.stringify(rec.format)}, expected "${STORE_FORMAT}". ${moveAside}`);
  }
  if (typeof rec.version !== 'number' || !Number.isInteger(rec.version)) {
    throw new LabError('corrupt', `${file}: version is missing or not an integer. ${moveAside}`);
  }
  if (rec.version > STORE_VERSION) {
    throw new LabError(
      'unsupported',
      `${file}: written by a newer Sailor Lab (store version ${rec.version}, this build reads up to ${STORE_VERSION}). ` +
        `Not opened, so that it is not overwritten; update Sailor Lab or use another SAILOR_HOME.`,
    );
  }
  const data = { ...emptyStore(), ...rec } as StoreData;
  for (const key of ['projects', 'graphs', 'datasets', 'runs', 'checkpoints', 'trajectories', 'comparisons', 'jobs'] as const) {
    if (!Array.isArray(data[key])) throw new LabError('corrupt', `${file}: "${key}" must be an array. ${moveAside}`);
  }
  return data;
}

class GuardedJsonAdapter implements Adapter<StoreData> {
  constructor(private readonly file: string) {}

  async read(): Promise<StoreData | null> {
    if (!existsSync(this.file)) return null;
    const text = readFileSync(this.file, 'utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new LabError(
        'corrupt',
        `${this.file}: not valid JSON (${(err as Error).message}). It was left untouched; move it aside to start a fresh store.`,
      );
    }
    return checkStoreData(this.file, value);
  }

  async write(data: StoreData): Promise<void> {
    writeJsonAtomic(this.file, data, true);
  }
}

export type StoreDb = Low<StoreData>;

export async function openStoreDb(home: string): Promise<StoreDb> {
  const db = new Low<StoreData>(new GuardedJsonAdapter(join(home, 'db.json')), emptyStore());
  await db.read();
  return db;
}
