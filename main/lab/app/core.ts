// The lab core: one object that owns the data directory, the store and the jobs, and answers every
// method of the contract. The desktop app, the web server, the CLI and the tests all drive this class.
import { endpointHandlers } from './endpoints';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  validateParams,
  isEventName,
  isMethodName,
  type AppInfo,
  type BackendReport,
  type EventName,
  type EventPayloads,
  type LicenseNotice,
  type MethodName,
  type MethodResult,
  type ParsedParams,
} from '../contract';
import { jsonShapeIssue } from '../util/json-shape';
import { LabError } from '../base/errors';
import { openStoreDb, type StoreDb } from '../store/db';
import { JobManager, type WorkerEntry } from '../jobs/manager';
import { jobSpecs } from '../jobs/specs';
import { electronStatus } from './electron-status';
import { appVersion, resourcesDir } from '../base/paths';
import { ArtefactReader } from './artefacts';
import { TrajectoryReader } from './traj-reader';
import { RunsService } from '../runs/service';

export interface LabCoreOptions {
  home: string;
  workerEntry?: WorkerEntry;
  /** Probe TensorFlow.js backends in the background (off in tests that do not need it). */
  detectBackend?: boolean;
}

/** The job worker script beside this module: job-worker.ts from source, worker.js beside the bundled main. */
export function defaultWorkerEntry(): WorkerEntry {
  const here = dirname(fileURLToPath(import.meta.url));
  return { file: join(here, import.meta.url.endsWith('.ts') ? 'job-worker.ts' : 'worker.js') };
}

type Handlers = { [M in MethodName]: (params: ParsedParams<M>) => Promise<MethodResult<M>> | MethodResult<M> };
type AnyListener = (payload: unknown) => void;

export class LabCore {
  private readonly listeners = new Map<EventName, Set<AnyListener>>();
  private backend: BackendReport | null = null;
  private readonly handlers: Handlers;
  private readonly artefacts: ArtefactReader;
  private readonly trajectories: TrajectoryReader;
  readonly runs: RunsService;

  private constructor(
    readonly home: string,
    readonly db: StoreDb,
    readonly jobs: JobManager,
  ) {
    jobs.onUpdate((job) => this.emit('job.updated', job));
    // Jobs publish live data (a run's metric records …) from their workers; only contract events pass.
    jobs.onEvent((name, payload) => {
      if (isEventName(name)) this.emit(name, payload as EventPayloads[typeof name]);
    });
    this.runs = new RunsService(home, db, jobs);
    // A followed verl run's new records reach clients as the trainer's do.
    this.runs.onMetrics((runId, records) => this.emit('run.metrics', { runId, records }));
    this.artefacts = new ArtefactReader(home, () => db.data);
    this.trajectories = new TrajectoryReader(home, () => db.data, this.artefacts);
    this.handlers = this.makeHandlers();
  }

  static async open(opts: LabCoreOptions): Promise<LabCore> {
    const db = await openStoreDb(opts.home); // makes the folder, or says at once that it cannot write there
    const jobs = new JobManager(db, opts.home, opts.workerEntry ?? defaultWorkerEntry());
    await jobs.recoverInterrupted();
    const core = new LabCore(opts.home, db, jobs);
    if (opts.detectBackend !== false) void core.detectBackend();
    return core;
  }

  /** Validates and runs one contract call. Throws LabError with a message naming what is wrong. */
  async call(method: string, rawParams: unknown): Promise<unknown> {
    if (!isMethodName(method)) throw new LabError('bad_request', `unknown method '${method}'`);
    // Before any schema walks it: a deep value would overflow the stack, and a strict schema drops __proto__.
    const shape = jsonShapeIssue(rawParams);
    if (shape) throw new LabError('bad_request', `${method}: invalid params: ${shape.path}: ${shape.message}`);
    const checked = validateParams(method, rawParams);
    if (!checked.ok) throw new LabError('bad_request', checked.message);
    const handler = this.handlers[method] as (p: unknown) => unknown;
    return await handler(checked.value);
  }

  on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as AnyListener);
    return () => set.delete(listener as AnyListener);
  }

  async close(): Promise<void> {
    await this.runs.stopFollowing();
    await this.jobs.stopAll();
  }

  private emit<E extends EventName>(event: E, payload: EventPayloads[E]): void {
    for (const listener of this.listeners.get(event) ?? []) listener(payload);
  }

  private async detectBackend(): Promise<void> {
    try {
      const { selectBackend } = await import('../model/backend');
      this.backend = (await selectBackend()).report;
    } catch (err) {
      this.backend = { chosen: 'cpu', attempts: [{ name: 'cpu', module: '@tensorflow/tfjs', ok: false, detail: (err as Error).message }] };
    }
    this.emit('app.backend', this.backend);
  }

  private makeHandlers(): Handlers {
    return {
      ...endpointHandlers(this.home, this.db),
      'app.info': (): AppInfo => {
        const electron = electronStatus();
        return {
          name: 'Sailor Lab',
          version: appVersion(),
          home: this.home,
          node: process.versions.node,
          platform: `${process.platform}-${process.arch}`,
          electron: { available: electron.available, detail: electron.detail, ...(electron.version ? { version: electron.version } : {}) },
          backend: this.backend,
        };
      },
      'store.summary': () => {
        const d = this.db.data;
        return {
          projects: d.projects.length,
          graphs: d.graphs.length,
          datasets: d.datasets.length,
          runs: d.runs.length,
          checkpoints: d.checkpoints.length,
          jobs: d.jobs.length,
        };
      },
      'about.licenses': () => readLicenses(),
      'jobs.kinds': () => Object.values(jobSpecs).map(({ kind, title, description }) => ({ kind, title, description })),
      'jobs.list': () => this.jobs.list(),
      'jobs.get': ({ id }) => this.jobs.get(id),
      'jobs.start': ({ kind, params }) => this.jobs.start(kind, params),
      'jobs.cancel': ({ id }) => this.jobs.cancel(id),
      'jobs.stream': ({ id, offset, limit }) => this.jobs.stream(id, offset, limit),
      'graphs.list': () => [...this.db.data.graphs].reverse(),
      'graphs.get': ({ id }) => this.artefacts.graph(id),
      'graphs.layout': ({ id }) => this.artefacts.layout(id),
      'graphs.saveLayout': ({ id, xy }) => this.artefacts.saveLayout(id, xy),
      'datasets.list': () => [...this.db.data.datasets].reverse(),
      'datasets.get': ({ id }) => this.artefacts.dataset(id),
      'datasets.qa': ({ id, qaId }) => this.artefacts.qa(id, qaId),
      'comparisons.list': () => [...this.db.data.comparisons].reverse(),
      'comparisons.get': ({ id }) => this.artefacts.comparison(id),
      'trajectories.list': () => this.trajectories.list(),
      'trajectories.get': ({ id }) => this.trajectories.get(id),
      'trajectories.one': ({ id, trajId }) => this.trajectories.one(id, trajId),
      'runs.list': () => this.runs.list(),
      'runs.get': ({ id }) => this.runs.get(id),
      'runs.metrics': ({ id, since }) => this.runs.metrics(id, since),
      'runs.rlStep': ({ id, step }) => this.trajectories.rlStep(id, step),
      'runs.start': ({ config, measured }) => this.runs.start(config, measured),
      'runs.resume': ({ id }) => this.runs.resume(id),
      'runs.cancel': ({ id }) => this.runs.cancel(id),
      'runs.importVerl': (params) => this.runs.importVerl(params),
    };
  }
}

function readLicenses(): LicenseNotice[] {
  const file = join(resourcesDir(), 'licenses', 'index.json');
  if (!existsSync(file)) return [];
  const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  return Array.isArray(value) ? (value as LicenseNotice[]) : [];
}
