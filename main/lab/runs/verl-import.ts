// A verl run read from its files (docs/verl.md, 'Back into the lab'): the metrics file, the rollout and
// validation dumps and the exported tools' episode file, as the files of a lab run:
//   metrics.jsonl              verl's records with the lab's names (verl-metrics.ts)
//   rollouts/step-N.jsonl      each rollout dump as an RL step's set (header with the group plan)
//   evals/step-N.jsonl         each validation dump as an evaluation
// Everything is read and checked before anything is written (a bad line anywhere stops the import with its
// file and line named); the run directory is then written under a temporary name and renamed into place.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { VerlImportSource } from '../contract';
import type { MetricRecord, Trajectory } from '../formats';
import { evaluationSummary, rolloutSummary } from '../agent/summary';
import { goldOfTrajectory } from '../agent/failures';
import { inputError, LabError } from '../base/errors';
import { readInputFrom, readJsonl, writeFileAtomic, writeJsonAtomic } from '../store/files';
import { writeTrajectorySet } from '../store/traj-set';
import { evalFile, metricsFile, rolloutsFile, RUN_FORMAT, runDir, runFile } from './layout';
import { mapVerlMetrics, parseVerlLines, parseVerlMetricsText, splitCompleteLines, type VerlRecord } from './verl-metrics';
import { checkDumpLine, checkEpisodeLine, dumpTrajectory, groupPlan, type EpisodeLine } from './verl-trajectories';

/** Where a verl run's files are (what `runs.importVerl` and `sailor import verl` take). */
export interface VerlRunFiles {
  records: MetricRecord[];
  /** Bytes and complete lines of the metrics file read (where --follow goes on). */
  metricsBytes: number;
  metricsLines: number;
  /** The dump files read. */
  dumps: string[];
  rl: Map<number, { header: Record<string, unknown>; trajectories: Trajectory[] }>;
  evals: Map<number, { header: Record<string, unknown>; trajectories: Trajectory[] }>;
  /** Episodes that no dump line names (or all of them, without dumps): one set of their own. */
  episodesOnly: Trajectory[];
}

const POLICY = 'verl';

/** A user's file as text: a regular file (a FIFO or a device is refused by name), capped before it is read. */
function readText(path: string, what: string): string {
  try {
    return readTextAt(path, 0).text;
  } catch (err) {
    if (err instanceof LabError && err.code === 'not_found') throw new LabError('not_found', `${what}: no file ${path}`);
    if (err instanceof LabError) throw new LabError(err.code, `${what}: ${err.message}`, err.details);
    throw err;
  }
}

/** The bytes of a file from `offset` on, as text (checked and capped like every file a user names). */
export function readTextAt(path: string, offset: number): { text: string; size: number } {
  const { bytes, size } = readInputFrom(path, offset);
  return { text: bytes.toString('utf8'), size };
}

/** A dump or episode file read strictly: a torn last line is refused, not skipped. */
function readLines<T>(path: string, check: (value: unknown, file: string, line: number) => T): T[] {
  const { records, tornTail } = readJsonl(path);
  if (tornTail) throw inputError(path, 'the last line has no newline yet (still being written, or the file was cut): nothing imported', { line: records.length + 1 });
  return records.map((r) => check(r.value, path, r.line));
}

/** verl's dump files in a directory: `{step}.jsonl` (trainer.rollout_data_dir, trainer.validation_data_dir). */
export function dumpFiles(dir: string): Array<{ step: number; file: string }> {
  return readdirSync(dir)
    .map((name) => /^(\d+)\.jsonl$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ step: Number(m[1]), file: join(dir, m[0]) }))
    .sort((a, b) => a.step - b.step);
}

function checkDir(dir: string, flag: string): Array<{ step: number; file: string }> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new LabError('not_found', `${flag}: no directory ${dir}`);
  const files = dumpFiles(dir);
  if (!files.length) throw new LabError('bad_input', `${flag}: ${dir} holds no {step}.jsonl files (verl's trainer.${flag === '--validation' ? 'validation' : 'rollout'}_data_dir)`);
  return files;
}

/** Lab metric records of verl records; each record's time adds verl's `timing_s/step` to `start` when it has one. */
export function toMetricRecords(records: readonly VerlRecord[], start: number): MetricRecord[] {
  let t = start;
  const out: MetricRecord[] = [];
  for (const r of records) {
    t += (r.data['timing_s/step'] ?? 0) * 1000;
    const metrics = mapVerlMetrics(r.data);
    // One record per step, as the lab's stream has it (a reader takes a repeated step as a rewrite).
    const last = out.at(-1);
    if (last && last.step === r.step) Object.assign(last.metrics, metrics);
    else out.push({ step: r.step, time: new Date(t).toISOString(), metrics });
  }
  return out;
}

/** A dump file's trajectories, joined to their episodes by request_id; the ones joined leave `episodes`. */
export function dumpSet(file: string, episodes: Map<string, EpisodeLine>): Trajectory[] {
  const lines = readLines(file, checkDumpLine);
  const trajectories = lines.map((d, i) => {
    const episode = d.requestId ? episodes.get(d.requestId) : undefined;
    if (episode) episodes.delete(d.requestId!);
    return dumpTrajectory(d, i, POLICY, episode);
  });
  // A group's samples one after another, in the order the questions first appear.
  const order = new Map<string, number>();
  trajectories.forEach((t) => order.has(t.qa_id) || order.set(t.qa_id, order.size));
  return trajectories.map((t, i) => ({ t, i })).sort((a, b) => order.get(a.t.qa_id)! - order.get(b.t.qa_id)! || a.i - b.i).map((x) => x.t);
}

export function rlSetOf(runId: string, step: number, trajectories: Trajectory[], file: string): { header: Record<string, unknown>; trajectories: Trajectory[] } {
  const plan = groupPlan(step, trajectories);
  const summary = rolloutSummary(trajectories);
  return { header: { kind: 'rl', run: runId, step, policy_version: step, plan, summary, policy: POLICY, source: file, advantages: 'recomputed from the dumped scores (GRPO)' }, trajectories };
}

export function evalSetOf(runId: string, step: number, trajectories: Trajectory[], file: string): { header: Record<string, unknown>; trajectories: Trajectory[] } {
  const perQuestion = new Map<string, number>();
  for (const t of trajectories) perQuestion.set(t.qa_id, (perQuestion.get(t.qa_id) ?? 0) + 1);
  const n = Math.max(1, ...perQuestion.values());
  // The dumped rollouts carry their question and gold answers: the failure breakdown reads them.
  const { report, summary } = evaluationSummary(trajectories, n, goldOfTrajectory);
  return { header: { kind: 'eval', run: runId, step, policy: POLICY, n, summary, report, source: file }, trajectories };
}

/**
 * Reads and checks every file of a verl run; throws (naming file and line) before anything is written. With
 * `follow`, an unfinished last line or dump file is left for the follower instead of refused.
 */
export function readVerlRun(runId: string, src: VerlImportSource, opts: { follow?: boolean; start?: number } = {}): VerlRunFiles {
  const text = readText(src.metrics, '--metrics');
  const complete = opts.follow ? text.slice(0, text.lastIndexOf('\n') + 1) : text;
  const parsed = opts.follow ? parseVerlLines(splitCompleteLines(complete).lines, src.metrics) : parseVerlMetricsText(text, src.metrics);
  const episodes = new Map<string, EpisodeLine>();
  if (src.episodes !== undefined) {
    readText(src.episodes, '--episodes');
    for (const e of readLines(src.episodes, checkEpisodeLine)) episodes.set(e.requestId, e);
  }
  const dumps: string[] = [];
  const sets = (dir: string | undefined, flag: string, make: typeof rlSetOf): Map<number, { header: Record<string, unknown>; trajectories: Trajectory[] }> => {
    const out = new Map<number, { header: Record<string, unknown>; trajectories: Trajectory[] }>();
    if (dir === undefined) return out;
    const files = opts.follow && existsSync(dir) ? dumpFiles(dir) : checkDir(dir, flag);
    for (const { step, file } of files) {
      if (opts.follow && !readText(file, flag).endsWith('\n')) continue;
      out.set(step, make(runId, step, dumpSet(file, episodes), file));
      dumps.push(file);
    }
    return out;
  };
  const rl = sets(src.rollouts, '--rollouts', rlSetOf);
  const evals = sets(src.validation, '--validation', evalSetOf);
  const episodesOnly = [...episodes.values()].map((e, i) =>
    dumpTrajectory({ input: '', output: '', golds: [], score: 0, step: 0, requestId: e.requestId, extra: {} }, i, POLICY, e),
  );
  return {
    records: toMetricRecords(parsed, opts.start ?? Date.now()),
    metricsBytes: Buffer.byteLength(complete),
    metricsLines: splitCompleteLines(complete).lines.length,
    dumps,
    rl,
    evals,
    episodesOnly,
  };
}

/** Writes the run's directory under a temporary name, then renames it into place: a run is whole or absent. */
export function writeVerlRun(home: string, runId: string, name: string, src: VerlImportSource, files: VerlRunFiles, createdAt: string): void {
  const final = runDir(home, runId);
  const tmp = `${final}.importing-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    const inTmp = (path: string): string => join(tmp, path.slice(final.length + 1));
    writeJsonAtomic(inTmp(runFile(home, runId)), { format: RUN_FORMAT, id: runId, name, source: { kind: 'verl', ...src }, createdAt }, true);
    writeFileAtomic(inTmp(metricsFile(home, runId)), files.records.map((r) => JSON.stringify(r) + '\n').join(''));
    for (const [step, set] of files.rl) writeTrajectorySet(inTmp(rolloutsFile(home, runId, step)), set.header, set.trajectories);
    for (const [step, set] of files.evals) writeTrajectorySet(inTmp(evalFile(home, runId, step)), set.header, set.trajectories);
    renameSync(tmp, final);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

/** A file's device and inode, or null when there is none at `path`. */
function fileIdentity(path: string): string | null {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Reads on as a verl run's files grow: new complete lines of the metrics file (an unfinished last line waits for
 * its newline) and new dump files once they end with a newline and stopped growing. Each poll is synchronous;
 * the caller schedules it. A metrics file that shrank (verl restarted: its file logger opens with "wb") is read
 * again from the top, and steps already imported are skipped; so is a new file at its path (log rotation), and
 * each such event is noted for the user.
 */
export class VerlFollower {
  private offset: number;
  private lineNo: number;
  private lastStep: number;
  private readonly seenDumps = new Set<string>();
  private readonly pendingDumps = new Map<string, number>();
  /** The metrics file being read (device and inode): another one at its path means the file was rotated. */
  private file: string | null;
  /** What the user should hear of since the last poll: the metrics file truncated, replaced or gone. */
  private notes: string[] = [];
  /** The error of the first metrics line that could not be read: following stops there. */
  private failure: unknown = null;

  constructor(
    private readonly src: VerlImportSource,
    private readonly runId: string,
    private readonly home: string,
    from: { bytes: number; lines: number; lastStep: number; dumps: string[] },
  ) {
    this.offset = from.bytes;
    this.lineNo = from.lines;
    this.lastStep = from.lastStep;
    this.file = fileIdentity(src.metrics);
    for (const d of from.dumps) this.seenDumps.add(d);
  }

  /** New metric records since the last poll (already mapped), the steps whose dumps were added, notes, and the error of a bad line. */
  poll(): { records: MetricRecord[]; rlSteps: number[]; evalSteps: number[]; notes: string[]; error: unknown } {
    const out = { records: this.pollMetrics(), ...this.pollDumps() };
    const { notes, failure } = this;
    this.notes = [];
    return { ...out, notes, error: failure };
  }

  private pollMetrics(): MetricRecord[] {
    const path = this.src.metrics;
    const id = fileIdentity(path);
    if (id === null) {
      if (this.file !== null) this.notes.push(`${path}: gone (rotated or deleted); waiting for it to appear again`);
      this.file = null;
      return [];
    }
    const size = statSync(path).size;
    if (id !== this.file || size < this.offset) {
      const why = id !== this.file ? 'a new file at its path (rotated or recreated)' : `cut to ${size} bytes from ${this.offset} (truncated)`;
      this.notes.push(`${path}: ${why}; reading it from the start, steps up to ${this.lastStep} already imported are skipped`);
      [this.file, this.offset, this.lineNo] = [id, 0, 0];
    }
    if (size === this.offset) return [];
    const { text } = readTextAt(this.src.metrics, this.offset);
    const { lines } = splitCompleteLines(text);
    if (!lines.length) return [];
    // Line by line: the lines before a bad one are imported, then the bad one is the error (thrown by poll).
    const parsed: VerlRecord[] = [];
    let used = 0;
    for (const line of lines) {
      try {
        parsed.push(...parseVerlLines([line], path, this.lineNo + 1));
      } catch (err) {
        this.failure = err;
        break;
      }
      this.offset += Buffer.byteLength(line) + 1;
      this.lineNo++;
      used++;
    }
    if (used === 0 && this.failure !== null) return [];
    // Only steps past the last one read: a restarted verl run logs its steps again from the start.
    const verl = parsed.filter((r) => r.step > this.lastStep);
    const now = Date.now();
    const records = verl.map((r) => ({ step: r.step, time: new Date(now).toISOString(), metrics: mapVerlMetrics(r.data) }));
    if (records.length) this.lastStep = records.at(-1)!.step;
    return records;
  }

  private pollDumps(): { rlSteps: number[]; evalSteps: number[] } {
    const rlSteps: number[] = [];
    const evalSteps: number[] = [];
    for (const [dir, kind] of [
      [this.src.rollouts, 'rl'],
      [this.src.validation, 'eval'],
    ] as const) {
      if (dir === undefined || !existsSync(dir)) continue;
      for (const { step, file } of dumpFiles(dir)) {
        if (this.seenDumps.has(file)) continue;
        // A dump is complete once it ends with a newline and kept its size for one poll.
        const size = statSync(file).size;
        if (this.pendingDumps.get(file) !== size || !readTextAt(file, Math.max(0, size - 1)).text.endsWith('\n')) {
          this.pendingDumps.set(file, size);
          continue;
        }
        this.pendingDumps.delete(file);
        this.seenDumps.add(file);
        const trajectories = dumpSet(file, new Map());
        const set = kind === 'rl' ? rlSetOf(this.runId, step, trajectories, file) : evalSetOf(this.runId, step, trajectories, file);
        writeTrajectorySet((kind === 'rl' ? rolloutsFile : evalFile)(this.home, this.runId, step), set.header, set.trajectories);
        (kind === 'rl' ? rlSteps : evalSteps).push(step);
      }
    }
    return { rlSteps, evalSteps };
  }
}
