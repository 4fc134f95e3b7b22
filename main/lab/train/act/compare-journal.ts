// A comparison's journal: every episode it has played, appended the moment it ends (jobs/<id>/played.jsonl,
// a head line then one `{ checkpoint, traj }` line per episode). A comparison stopped by the user or by the app
// closing is resumed by a new compare job with `resumeOf: <its id>`: the episodes in the journal are kept as
// they are and only the rest are played. Each episode has its own seeded stream (agent/rollout.ts), so the
// kept and the new ones are the episodes an uninterrupted comparison would have played.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LabError } from '../../base/errors';
import type { Trajectory } from '../../formats';
import type { EvalProtocol } from '../../contract/eval-protocol';
import { readJsonFile, readJsonl } from '../../store/files';
import { openJsonlAppender, type JsonlAppender } from '../../store/jsonl';

export const JOURNAL_FILE = 'played.jsonl';
const JOURNAL_KIND = 'sailor.compare-journal/1';

/** What a journal's episodes were played for: a resume must ask the same. */
export interface JournalHead {
  kind: typeof JOURNAL_KIND;
  checkpoints: string[];
  protocol: EvalProtocol;
}

interface JournalLine {
  checkpoint: number;
  traj: Trajectory;
}

export const journalHead = (checkpoints: readonly string[], protocol: EvalProtocol): JournalHead => ({
  kind: JOURNAL_KIND, checkpoints: [...checkpoints], protocol: { ...protocol },
});

/** Why a journal's head does not fit a comparison, in words; null when it does. */
export function headMismatch(found: unknown, want: JournalHead): string | null {
  const head = found as Partial<JournalHead> | null;
  if (!head || head.kind !== JOURNAL_KIND) return 'its journal has no head line';
  if (JSON.stringify(head.checkpoints) !== JSON.stringify(want.checkpoints)) return `it compared ${head.checkpoints?.join(', ')}, not ${want.checkpoints.join(', ')}`;
  for (const k of Object.keys(want.protocol) as Array<keyof EvalProtocol>) {
    if (head.protocol?.[k] !== want.protocol[k]) return `its ${k} was ${String(head.protocol?.[k])}, not ${String(want.protocol[k])}`;
  }
  return null;
}

/** The stopped job as db.json records it (a worker cannot ask the job manager). */
function storedJob(home: string, id: string): { kind?: string; status?: string } | undefined {
  const file = join(home, 'db.json');
  if (!existsSync(file)) return undefined;
  const jobs = (readJsonFile(file) as { jobs?: Array<{ id?: string; kind?: string; status?: string }> }).jobs;
  return Array.isArray(jobs) ? jobs.find((j) => j.id === id) : undefined;
}

/**
 * The episodes a stopped comparison played, per checkpoint, by trajectory id (`<qa>/<attempt>`). Refused,
 * saying why, when the job is not a stopped comparison of the same checkpoints and protocol.
 */
export function readJournal(home: string, jobId: string, want: JournalHead): JournalLine[] {
  const job = storedJob(home, jobId);
  if (!job) throw new LabError('not_found', `resumeOf: job ${jobId} is not in the store`);
  if (job.kind !== 'compare') throw new LabError('bad_request', `resumeOf: job ${jobId} is a ${job.kind} job, not a comparison`);
  if (job.status === 'running' || job.status === 'queued') throw new LabError('conflict', `resumeOf: comparison ${jobId} is still ${job.status}: stop it first`);
  if (job.status === 'succeeded') throw new LabError('bad_request', `resumeOf: comparison ${jobId} finished: there is nothing left to play`);
  const file = join(home, 'jobs', jobId, JOURNAL_FILE);
  if (!existsSync(file)) throw new LabError('not_found', `resumeOf: comparison ${jobId} left no journal of played episodes (${file}); start it again instead`);
  const [head, ...lines] = readJsonl(file).records.map((r) => r.value);
  const why = headMismatch(head, want);
  if (why) throw new LabError('bad_request', `resumeOf: comparison ${jobId} cannot be resumed with these params: ${why}`);
  return lines.filter((l): l is JournalLine => {
    const line = l as Partial<JournalLine> | null;
    return typeof line?.checkpoint === 'number' && line.checkpoint < want.checkpoints.length && typeof line.traj?.id === 'string';
  });
}

/** A comparison's own journal: the head, the episodes carried over from the stopped one, then each new episode. */
export interface CompareJournal {
  /** Checkpoint i's episodes already played, by trajectory id. */
  played(i: number): Map<string, Trajectory>;
  append(i: number, traj: Trajectory): void;
  close(): void;
  /** Episodes carried over from the stopped comparison. */
  readonly kept: number;
}

export function openJournal(dir: string, head: JournalHead, carried: readonly JournalLine[]): CompareJournal {
  const out: JsonlAppender = openJsonlAppender(join(dir, JOURNAL_FILE));
  out.append(head);
  const byCheckpoint = head.checkpoints.map(() => new Map<string, Trajectory>());
  for (const line of carried) {
    if (byCheckpoint[line.checkpoint]!.has(line.traj.id)) continue;
    byCheckpoint[line.checkpoint]!.set(line.traj.id, line.traj);
    out.append(line);
  }
  return {
    played: (i) => byCheckpoint[i]!,
    append: (checkpoint, traj) => out.append({ checkpoint, traj } satisfies JournalLine),
    close: () => out.close(),
    kept: byCheckpoint.reduce((sum, m) => sum + m.size, 0),
  };
}
