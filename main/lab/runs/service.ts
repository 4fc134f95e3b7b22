// Training runs as the app sees them. A run is a directory (runs/layout.ts) plus a record in the store;
// the work is done by `train` jobs (one per start or resume), so a run's status is its latest job's.
// Lives in the main thread: it validates, creates, lists and reads; it never trains.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { totalmem } from 'node:os';
import { randomUUID } from 'node:crypto';
import { RUN_STATUS_OF_JOB, canResume, summarise, type ArtefactRecord, type DatasetInfo, type ParsedParams, type VerlImportSource, type JobRecord, type MetricSummary, type RunDetail, type RunInfo, type RunMeasurements, type RunSummary } from '../contract';
import type { MetricRecord } from '../formats';
import { LabError } from '../base/errors';
import type { StoreDb } from '../store/db';
import { writeJsonAtomic } from '../store/files';
import { artefactRel, runRel } from '../store/layout';
import { openJsonlAppender } from '../store/jsonl';
import { writeTrajectorySet } from '../store/traj-set';
import { errorMessage } from '../base/errors';
import { readVerlRun, VerlFollower, writeVerlRun } from './verl-import';
import type { JobManager } from '../jobs/manager';
import { checkpointInWords, defaultRunName, parseRunConfig } from '../contract/run-config';
import { presetOfRun, uniqueName, withPreset } from '../contract/preset-data';
import { readMetrics } from './metrics';
import { tooBigForMachine } from '../contract/model-footprint';
import { claimLock } from '../store/lockfile';
import type { TrainParams } from '../contract/jobs';
import { checkpointRef, checkpointSteps, estimateFile, evalFile, evalSteps, metricsFile, resolveCheckpoint, rolloutSteps, RUN_FORMAT, runDir, runFile, trainerLockFile } from './layout';

/** A run's info as db.json holds it: the contract's RunInfo, which start() writes. */
type StoredRunInfo = RunInfo & Record<string, unknown>;

export class RunsService {
  private readonly metricsCache = new Map<string, { mtimeMs: number; size: number; records: MetricRecord[] }>();
  /** Imported verl runs being followed in this process, and why a follow stopped with an error. */
  private readonly following = new Map<string, { stop: (lastPoll?: boolean) => void; end: Promise<string | null> }>();
  private readonly followErrors = new Map<string, string>();
  private metricsListener: (runId: string, records: MetricRecord[]) => void = () => {};
  private noticeListener: (runId: string, message: string) => void = () => {};
  /** How often a followed verl run's files are read (ms). */
  followEveryMs = 500;

  constructor(
    private readonly home: string,
    private readonly db: StoreDb,
    private readonly jobs: JobManager,
  ) {
    jobs.setClaim('train', (params, jobId) => this.claimTrainer((params as TrainParams).runId, jobId));
  }

  list(): RunSummary[] {
    return [...this.db.data.runs].reverse().map((a) => this.summary(a));
  }

  get(id: string): RunDetail {
    const artefact = this.find(id);
    const info = artefact.info as StoredRunInfo;
    return {
      ...this.summary(artefact),
      config: info.config as unknown as Record<string, unknown>,
      checkpoints: checkpointSteps(this.home, id).map((step) => ({ step, ref: checkpointRef(id, step) })),
      evals: evalSteps(this.home, id).map((step) => ({ step, summary: readEvalSummary(evalFile(this.home, id, step)) })),
      rlSteps: rolloutSteps(this.home, id),
    };
  }

  metrics(id: string, since: number): MetricRecord[] {
    this.find(id);
    return this.readMetricsCached(id).filter((r) => r.step > since);
  }

  async start(rawConfig: unknown, measured?: RunMeasurements): Promise<RunSummary> {
    const config = parseRunConfig(rawConfig);
    const tooBig = tooBigForMachine(config, totalmem());
    if (tooBig) throw new LabError('bad_request', tooBig);
    this.requireArtefact('graphs', config.data.graphId, 'data.graphId');
    this.requireArtefact('datasets', config.data.datasetId, 'data.datasetId');
    this.requireArtefact('datasets', config.data.heldOutDatasetId, 'data.heldOutDatasetId');
    if (config.data.rlDatasetId !== undefined) this.requireArtefact('datasets', config.data.rlDatasetId, 'data.rlDatasetId');
    const id = `${new Date().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14)}-run-${randomUUID().slice(0, 6)}`;
    const createdAt = new Date().toISOString();
    // The starting checkpoint in words for the default name: its run's name and step, not the run's id.
    let from: string | undefined;
    if (config.init) {
      try {
        const ckpt = resolveCheckpoint(config.init.checkpoint, this.home);
        const parent = this.db.data.runs.find((r) => r.id === ckpt.runId);
        if (parent) from = checkpointInWords(parent.name, ckpt.step);
      } catch (err) {
        throw new LabError('not_found', `init.checkpoint: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    // The default name says the preset (by the config and its data's recorded shape) and is never another run's.
    const params = (id: string | undefined) => (id ? (this.db.data.datasets.find((d) => d.id === id)?.info as DatasetInfo | undefined)?.params : undefined);
    const preset = presetOfRun(config, { train: params(config.data.datasetId), heldOut: params(config.data.heldOutDatasetId) });
    const name = config.name ?? uniqueName(withPreset(defaultRunName(config, from), preset), this.db.data.runs.map((r) => r.name));
    mkdirSync(runDir(this.home, id), { recursive: true });
    writeJsonAtomic(runFile(this.home, id), { format: RUN_FORMAT, id, name, config, createdAt }, true);
    if (measured) writeJsonAtomic(estimateFile(this.home, id), { measured }, true);
    const artefact: ArtefactRecord = { id, name, path: runRel(id), createdAt, info: { config, jobIds: [] } satisfies RunInfo };
    await this.db.update((data) => void data.runs.push(artefact));
    return this.launch(artefact, false);
  }

  /** Where new metric records of followed verl runs go (the core publishes them as `run.metrics`). */
  onMetrics(listener: (runId: string, records: MetricRecord[]) => void): void {
    this.metricsListener = listener;
  }

  /**
   * A verl run as a lab run (verl-import.ts): every file is read and checked first, then the run directory is
   * renamed into place and recorded. With `follow`, this process reads on as verl writes.
   */
  async importVerl(p: ParsedParams<'runs.importVerl'>): Promise<RunSummary> {
    const src: VerlImportSource = { metrics: resolve(p.metrics) };
    for (const k of ['rollouts', 'validation', 'episodes'] as const) if (p[k] !== undefined) src[k] = resolve(p[k]);
    const id = `${new Date().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14)}-verl-${randomUUID().slice(0, 6)}`;
    const createdAt = new Date().toISOString();
    const files = readVerlRun(id, src, { follow: p.follow });
    const name = p.name ?? `verl · ${basename(src.metrics).replace(/\.jsonl$/, '')}`;
    writeVerlRun(this.home, id, name, src, files, createdAt);
    const artefact: ArtefactRecord = { id, name, path: runRel(id), createdAt, info: { jobIds: [], verl: src } satisfies RunInfo };
    const episodesId = `${id}-episodes`;
    try {
      if (files.episodesOnly.length) {
        writeTrajectorySet(`${this.home}/${artefactRel('trajectories', episodesId)}`, { kind: 'verl-episodes', run: id, policy: 'verl', source: src.episodes }, files.episodesOnly);
      }
      await this.db.update((data) => {
        data.runs.push(artefact);
        if (files.episodesOnly.length) {
          const info = { runId: id, policy: 'verl', n: 1, counts: { trajectories: files.episodesOnly.length } };
          data.trajectories.push({ id: episodesId, name: `${name} · episodes without a dump line`, path: artefactRel('trajectories', episodesId), createdAt, info });
        }
      });
    } catch (err) {
      rmSync(runDir(this.home, id), { recursive: true, force: true });
      throw err;
    }
    if (p.follow) this.follow(id, src, files);
    return this.summary(artefact);
  }

  private follow(id: string, src: VerlImportSource, files: ReturnType<typeof readVerlRun>): void {
    const follower = new VerlFollower(src, id, this.home, { bytes: files.metricsBytes, lines: files.metricsLines, lastStep: files.records.at(-1)?.step ?? -1, dumps: files.dumps });
    const out = openJsonlAppender(metricsFile(this.home, id));
    let ended!: (error: string | null) => void;
    const end = new Promise<string | null>((resolve) => (ended = resolve));
    const poll = (): boolean => {
      try {
        const { records, notes, error } = follower.poll();
        for (const note of notes) this.noticeListener(id, note);
        if (records.length) {
          for (const r of records) out.append(r);
          this.metricsListener(id, records);
        }
        if (error !== null) throw error;
        return true;
      } catch (err) {
        this.followErrors.set(id, errorMessage(err));
        return false;
      }
    };
    const stop = (lastPoll = false): void => {
      if (!this.following.has(id)) return;
      clearInterval(timer);
      if (lastPoll) poll(); // what verl wrote up to the stop is imported, whole lines only
      out.close();
      this.following.delete(id);
      ended(this.followErrors.get(id) ?? null);
    };
    // Unref'd: following never keeps a process alive by itself (the CLI waits for a signal, the app for its window).
    const timer = setInterval(() => poll() || stop(), this.followEveryMs);
    timer.unref?.();
    this.following.set(id, { stop, end });
  }

  /**
   * Stops following a verl run, after one last read of its files; resolves to the error that stopped it
   * earlier (a bad line, a file that cannot be read), null when it was following until now or not at all.
   */
  async stopFollowing(id?: string): Promise<string | null> {
    if (id === undefined) {
      for (const f of [...this.following.values()]) f.stop();
      return null;
    }
    const f = this.following.get(id);
    if (!f) return this.followErrors.get(id) ?? null;
    f.stop(true);
    return f.end;
  }

  /** Resolves when following `id` ends by itself: with the error that ended it. Never while it goes on. */
  followEnded(id: string): Promise<string | null> {
    return this.following.get(id)?.end ?? Promise.resolve(this.followErrors.get(id) ?? null);
  }

  /** Where notes on followed files go (a metrics file truncated, rotated or gone). */
  onFollowNotice(listener: (runId: string, message: string) => void): void {
    this.noticeListener = listener;
  }

  async resume(id: string): Promise<RunSummary> {
    const artefact = this.find(id);
    if ((artefact.info as StoredRunInfo).verl) throw new LabError('conflict', `run ${id} was imported from verl; import it again with follow to read on`);
    const status = this.summary(artefact).status;
    if (status === 'running') throw new LabError('conflict', `run ${id} is already running`);
    // Not a conflict that passes (as 'already running' does): nothing about this run will ever resume it (CLI exit 2).
    if (!canResume(status)) throw new LabError('bad_request', `run ${id} has finished; start a new run to train further`);
    return this.launch(artefact, true);
  }

  async cancel(id: string): Promise<RunSummary> {
    const artefact = this.find(id);
    this.following.get(id)?.stop();
    const jobId = lastJobId(artefact);
    if (jobId) await this.jobs.cancel(jobId);
    return this.summary(artefact);
  }

  private async launch(artefact: ArtefactRecord, resume: boolean): Promise<RunSummary> {
    // The job carries the run's name: the Jobs page and the status bar say which run is training.
    const job = await this.jobs.start('train', { runId: artefact.id, resume }, { title: `Training run: ${artefact.name}` });
    return this.summary(this.find(artefact.id), job);
  }

  /**
   * One trainer per run, whichever path starts it (runs.start/resume, jobs.start, the CLI) and in whichever
   * process: the trainer holds runs/<id>/trainer.lock while it runs. The job joins the run's job list here.
   */
  private async claimTrainer(runId: string, jobId: string): Promise<() => void> {
    this.find(runId);
    mkdirSync(runDir(this.home, runId), { recursive: true });
    const lock = await claimLock(trainerLockFile(this.home, runId), { staleMs: TRAINER_LOCK_STALE_MS, note: jobId });
    if (!lock.acquired) {
      const by = lock.holder ? ` by process ${lock.holder.pid}${lock.holder.note ? ` (job ${lock.holder.note})` : ''} since ${lock.holder.since}` : '';
      throw new LabError('conflict', `run ${runId} is already being trained${by}; wait for it to end or cancel it`);
    }
    try {
      await this.db.update((data) => {
        const run = data.runs.find((r) => r.id === runId);
        (run?.info as StoredRunInfo | undefined)?.jobIds.push(jobId);
      });
    } catch (err) {
      lock.release();
      throw err;
    }
    return lock.release;
  }

  private summary(artefact: ArtefactRecord, known?: JobRecord): RunSummary {
    const info = artefact.info as StoredRunInfo;
    const jobs = info.jobIds.map((jid) => (known?.id === jid ? known : this.jobOrNull(jid))).filter((j): j is JobRecord => j !== null);
    const last = jobs.at(-1);
    const records = this.readMetricsCached(artefact.id);
    // An imported run took verl's time, the span of its records (the time axis of its charts), not the lab's jobs'.
    const seconds = info.verl
      ? records.length ? Math.max(0, (Date.parse(records.at(-1)!.time) - Date.parse(records[0]!.time)) / 1000) : 0
      : jobs.reduce((sum, j) => sum + (j.startedAt ? ((j.endedAt ? Date.parse(j.endedAt) : Date.now()) - Date.parse(j.startedAt)) / 1000 : 0), 0);
    const metrics: Record<string, MetricSummary> = summarise(records);
    return {
      artefact: artefact as ArtefactRecord<StoredRunInfo>, // start() records every run with a RunInfo
      status: info.verl ? this.verlStatus(artefact.id) : last ? RUN_STATUS_OF_JOB[last.status] : 'created',
      ...(last ? { jobId: last.id, progress: last.progress, startedAt: jobs[0]!.startedAt, ...(last.endedAt ? { endedAt: last.endedAt } : {}) } : {}),
      ...(last?.error ? { error: last.error } : this.followErrors.has(artefact.id) ? { error: this.followErrors.get(artefact.id)! } : {}),
      seconds,
      lastStep: records.at(-1)?.step ?? 0,
      metrics,
    };
  }

  /** An imported verl run runs while this process follows it; a follow stopped by a bad line failed. */
  private verlStatus(id: string): RunSummary['status'] {
    if (this.following.has(id)) return 'running';
    return this.followErrors.has(id) ? 'failed' : 'finished';
  }

  private jobOrNull(id: string): JobRecord | null {
    try {
      return this.jobs.get(id);
    } catch {
      return null;
    }
  }

  private readMetricsCached(id: string): MetricRecord[] {
    const file = metricsFile(this.home, id);
    if (!existsSync(file)) return [];
    const { mtimeMs, size } = statSync(file);
    const hit = this.metricsCache.get(id);
    if (hit && hit.mtimeMs === mtimeMs && hit.size === size) return hit.records;
    const records = readMetrics(file);
    this.metricsCache.set(id, { mtimeMs, size, records });
    return records;
  }

  private find(id: string): ArtefactRecord {
    const a = this.db.data.runs.find((r) => r.id === id);
    if (!a) throw new LabError('not_found', `no run with id '${id}'`);
    return a;
  }

  private requireArtefact(collection: 'graphs' | 'datasets', id: string, field: string): void {
    if (!this.db.data[collection].some((a) => a.id === id)) {
      throw new LabError('bad_request', `run config: ${field}: no ${collection === 'graphs' ? 'graph' : 'dataset'} with id '${id}'`);
    }
  }
}

/** A trainer beats every few seconds; one killed frees its run this long after its last beat. */
const TRAINER_LOCK_STALE_MS = 10_000;

function lastJobId(artefact: ArtefactRecord): string | undefined {
  return (artefact.info as StoredRunInfo).jobIds.at(-1);
}

/** The summary an evaluation file carries in its header line (`{"format": "sailor.traj/1", "summary": {…}}`). */
function readEvalSummary(file: string): Record<string, number> {
  try {
    const first = readFileSync(file, 'utf8').split('\n', 1)[0] ?? '';
    const header = JSON.parse(first) as { summary?: Record<string, number> };
    return header.summary ?? {};
  } catch {
    return {};
  }
}
