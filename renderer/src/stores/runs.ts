// Training runs: the run list (kept current by job.updated and run.metrics events), the runs selected
// for the dashboard, and the metric series of the runs that are open. A series can hold 100k+ points:
// it lives in plain arrays that are appended to in place, behind a shallowRef, and a per-run version
// counter (bumped at most once per animation frame) tells the charts to redraw. Only user settings
// (smoothing, log-y, the axes) and the selection persist; bulk data always comes from the run store in main.
import { defineStore } from 'pinia';
import { computed, ref, shallowRef, triggerRef, watch } from 'vue';
import { RUN_STATUS_OF_JOB, checkpointInWords, summarise, type JobRecord, type MethodParams, type RlStepView, type RunDetail, type RunMeasurements, type RunSummary } from '@contract';
import type { MetricRecord } from '@formats';
import { lab, onLab } from '../api/client';
import { message } from '../util/errors';
import { PALETTE } from '../util/palette';
import { originOf } from '../components/runs/importedRun';

/** One metric of one run: parallel arrays sorted by step (x in steps or in seconds since the run's first record). */
export interface MetricSeries {
  steps: number[];
  times: number[];
  values: number[];
}

export interface RunMetrics {
  runId: string;
  /** Every step the run recorded, with its time: the step <-> time mapping and the scrubber's range. */
  steps: number[];
  times: number[];
  byName: Map<string, MetricSeries>;
  /** Time origin (ms since epoch) of the `times` columns: the first record's time. */
  t0: number | null;
  loaded: boolean;
  error: string | null;
}

export type XAxis = 'step' | 'time';
/** The RL section's step axis: the whole run's steps, or RL steps counted from the SFT end (its own axis). */
export type RlAxis = 'run' | 'rl';

export interface RunSettings {
  smoothing: number;
  logY: boolean;
  xAxis: XAxis;
  rlAxis: RlAxis;
}

const SETTINGS_KEY = 'sailor.runs.settings';
/** Past this many steps, live redraws are throttled to one a second. */
const LONG_RUN = 20_000;
const DEFAULT_SETTINGS: RunSettings = { smoothing: 0.6, logY: false, xAxis: 'step', rlAxis: 'rl' };
const SELECTION_KEY = 'sailor.runs.selected';

function loadSettings(): RunSettings {
  try {
    const raw = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? '{}') as Partial<RunSettings>;
    return {
      smoothing: typeof raw.smoothing === 'number' && raw.smoothing >= 0 && raw.smoothing < 1 ? raw.smoothing : DEFAULT_SETTINGS.smoothing,
      logY: typeof raw.logY === 'boolean' ? raw.logY : DEFAULT_SETTINGS.logY,
      xAxis: raw.xAxis === 'time' ? 'time' : 'step',
      rlAxis: raw.rlAxis === 'run' ? 'run' : DEFAULT_SETTINGS.rlAxis,
    };
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

/** The runs charted before a reload (ids of runs since deleted leave when the list loads). */
export function parseSelection(raw: string | null): string[] {
  try {
    const ids: unknown = JSON.parse(raw ?? '[]');
    return Array.isArray(ids) ? [...new Set(ids.filter((id): id is string => typeof id === 'string' && id.length > 0))] : [];
  } catch {
    return [];
  }
}

function storageGet(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null; // storage disabled: nothing was kept
  }
}

function storageSet(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Storage full or disabled: it simply does not persist.
  }
}

/** First index whose value is >= x in an ascending array. */
export function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function emptyMetrics(runId: string): RunMetrics {
  return { runId, steps: [], times: [], byName: new Map(), t0: null, loaded: false, error: null };
}

/**
 * Adds records to a run's series in place. A record at or before a step already held (a resumed run
 * re-doing the steps after its checkpoint) first drops everything from that step on, so the newest
 * records win and steps stay unique and ascending. Returns whether anything changed.
 */
export function appendRecords(m: RunMetrics, records: readonly MetricRecord[]): boolean {
  let changed = false;
  for (const r of records) {
    const t = Date.parse(r.time);
    if (m.t0 === null && Number.isFinite(t)) m.t0 = t;
    const last = m.steps.at(-1);
    if (last !== undefined && r.step <= last) {
      const cut = lowerBound(m.steps, r.step);
      m.steps.length = cut;
      m.times.length = cut;
      for (const s of m.byName.values()) {
        const c = lowerBound(s.steps, r.step);
        s.steps.length = c;
        s.times.length = c;
        s.values.length = c;
      }
    }
    const secs = Number.isFinite(t) && m.t0 !== null ? (t - m.t0) / 1000 : (m.times.at(-1) ?? 0);
    m.steps.push(r.step);
    m.times.push(secs);
    for (const [name, v] of Object.entries(r.metrics)) {
      if (typeof v !== 'number' || !Number.isFinite(v)) continue;
      let s = m.byName.get(name);
      if (!s) m.byName.set(name, (s = { steps: [], times: [], values: [] }));
      s.steps.push(r.step);
      s.times.push(secs);
      s.values.push(v);
    }
    changed = true;
  }
  return changed;
}

export const useRuns = defineStore('runs', () => {
  // ---------- the run list ----------
  const list = shallowRef<RunSummary[]>([]);
  const listError = ref<string | null>(null);
  const loaded = ref(false);
  const actionError = ref<string | null>(null);
  /** When the list was fetched: durations of running runs count on from here. */
  const fetchedAt = ref(Date.now());
  const now = ref(Date.now());
  let ticker: ReturnType<typeof setInterval> | null = null;

  const byId = computed(() => new Map(list.value.map((r) => [r.artefact.id, r])));
  const anyRunning = computed(() => list.value.some((r) => r.status === 'running'));

  // A one-second clock for the durations of running runs (display only; no data is fetched).
  watch(
    anyRunning,
    (on) => {
      if (on && !ticker) ticker = setInterval(() => (now.value = Date.now()), 1000);
      if (!on && ticker) {
        clearInterval(ticker);
        ticker = null;
      }
    },
    { immediate: true },
  );

  function seconds(r: RunSummary): number {
    // A followed verl run's time is its records' span, which grows with them, not with the clock.
    return r.status === 'running' && originOf(r).clockRuns ? r.seconds + Math.max(0, now.value - fetchedAt.value) / 1000 : r.seconds;
  }

  let loading: Promise<void> | null = null;
  async function load(): Promise<void> {
    loading ??= (async () => {
      try {
        const runs = await lab().call('runs.list');
        fetchedAt.value = now.value = Date.now();
        list.value = runs;
        listError.value = null;
        loaded.value = true;
        // Runs that are gone leave the selection.
        const ids = new Set(runs.map((r) => r.artefact.id));
        if (selected.value.some((id) => !ids.has(id))) selected.value = selected.value.filter((id) => ids.has(id));
      } catch (err) {
        listError.value = message(err);
      } finally {
        loading = null;
      }
    })();
    return loading;
  }

  let reloadTimer: ReturnType<typeof setTimeout> | null = null;
  function reloadSoon(ms = 300): void {
    if (reloadTimer) return;
    reloadTimer = setTimeout(() => {
      reloadTimer = null;
      void load();
    }, ms);
  }

  function patch(id: string, f: (r: RunSummary) => RunSummary): void {
    let hit = false;
    const next = list.value.map((r) => {
      if (r.artefact.id !== id) return r;
      hit = true;
      return f(r);
    });
    if (hit) list.value = next;
  }

  function put(summary: RunSummary): void {
    const id = summary.artefact.id;
    if (byId.value.has(id)) patch(id, () => summary);
    else list.value = [summary, ...list.value];
  }

  function onJob(job: JobRecord): void {
    if (job.kind !== 'train') return;
    const run = list.value.find((r) => r.jobId === job.id);
    if (!run) {
      // A run started or resumed elsewhere (another window, the CLI): fetch the list once.
      reloadSoon();
      return;
    }
    const status = RUN_STATUS_OF_JOB[job.status];
    // The trainer reports evaluation phases without a fraction (clamped to 0 in main): keep the bar where it was.
    const prev = run.progress;
    const progress = prev && status === 'running' && job.progress.fraction < prev.fraction ? { ...job.progress, fraction: prev.fraction } : job.progress;
    patch(run.artefact.id, (r) => ({ ...r, status, progress, ...(job.error ? { error: job.error } : {}), ...(job.endedAt ? { endedAt: job.endedAt } : {}) }));
    // A finished job: fetch the authoritative summary (wall time of all jobs, final metrics), and any
    // records the event stream did not deliver.
    if (status !== 'running') {
      reloadSoon(100);
      void catchUp(run.artefact.id);
    }
  }

  function onMetrics(runId: string, records: MetricRecord[]): void {
    if (!records.length) return;
    if (!byId.value.has(runId)) reloadSoon();
    else if (records[0]!.step <= byId.value.get(runId)!.lastStep) {
      // A resumed run re-does the steps after its checkpoint: main's summary of the truncated stream is the truth.
      reloadSoon(500);
    } else {
      patch(runId, (r) => ({ ...r, lastStep: records.at(-1)!.step, metrics: summarise(records, r.metrics) }));
    }
    const m = metricsById.get(runId);
    if (!m) return;
    if (!m.loaded) {
      pending.get(runId)?.push(...records);
      return;
    }
    const queued = catching.get(runId);
    if (queued) {
      queued.push(...records);
      return;
    }
    // Steps missing in between (events dropped while the WebSocket reconnected): fetch them first.
    const last = m.steps.at(-1);
    if (last !== undefined && records[0]!.step > last + 1) {
      void catchUp(runId, records);
      return;
    }
    if (appendRecords(m, records)) bump(runId);
  }

  /** Records that arrived while a catch-up fetch was out, per run. */
  const catching = new Map<string, MetricRecord[]>();

  /** Fetches the records after the last step held, then applies the ones that arrived meanwhile. */
  async function catchUp(runId: string, arrived: MetricRecord[] = []): Promise<void> {
    const m = metricsById.get(runId);
    if (!m || !m.loaded || catching.has(runId)) return;
    const queue = [...arrived];
    catching.set(runId, queue);
    try {
      const missed = await lab().call('runs.metrics', { id: runId, since: m.steps.at(-1) ?? -1 });
      if (metricsById.get(runId) === m) appendRecords(m, missed);
    } catch (err) {
      m.error = message(err);
    } finally {
      catching.delete(runId);
    }
    // The events are the newer truth: a step they hold replaces the fetched one (appendRecords cuts there).
    if (metricsById.get(runId) === m) appendRecords(m, queue);
    bump(runId);
  }

  // ---------- metric series of the open runs ----------
  const metricsById = new Map<string, RunMetrics>();
  /** Events that arrived while a run's history was loading: applied after it (dedupe makes overlap harmless). */
  const pending = new Map<string, MetricRecord[]>();
  /** Per-run version counters: the charts' computeds read them, so an append redraws only what it touches. */
  const versions = shallowRef(new Map<string, number>());
  const dirty = new Set<string>();
  let frame: number | null = null;

  function bump(runId: string): void {
    dirty.add(runId);
    if (frame !== null) return;
    const flush = (): void => {
      frame = null;
      for (const id of dirty) versions.value.set(id, (versions.value.get(id) ?? 0) + 1);
      dirty.clear();
      triggerRef(versions);
    };
    // Several events in one frame cost one redraw; a hidden page (no frames) still gets its updates. A
    // long run redraws at most once a second: a chart of 3 x 100k points takes ~100 ms to redraw
    // (bench/speed/chart.ts), and a run sends a record per step.
    const long = (metricsById.get(runId)?.steps.length ?? 0) > LONG_RUN;
    if (long) frame = setTimeout(flush, 1000) as unknown as number;
    else frame = typeof requestAnimationFrame === 'function' && document.visibilityState === 'visible' ? requestAnimationFrame(flush) : (setTimeout(flush, 50) as unknown as number);
  }

  /** The series of a run; reading it inside a computed subscribes to its updates. */
  function metricsOf(runId: string): RunMetrics | null {
    void versions.value.get(runId);
    return metricsById.get(runId) ?? null;
  }

  async function openMetrics(runId: string): Promise<void> {
    if (metricsById.has(runId)) return;
    const m = emptyMetrics(runId);
    metricsById.set(runId, m);
    pending.set(runId, []);
    try {
      const records = await lab().call('runs.metrics', { id: runId, since: -1 });
      appendRecords(m, records);
      appendRecords(m, pending.get(runId) ?? []);
    } catch (err) {
      m.error = message(err);
    } finally {
      pending.delete(runId);
      m.loaded = true;
      bump(runId);
    }
  }

  function closeMetrics(runId: string): void {
    metricsById.delete(runId);
    pending.delete(runId);
    versions.value.delete(runId);
    triggerRef(versions);
  }

  // ---------- selection (the runs overlaid in the dashboard) ----------
  // Kept across reloads, like the settings: a reload shows the same runs charted.
  const selected = ref<string[]>(parseSelection(storageGet(SELECTION_KEY)));
  watch(selected, (ids) => storageSet(SELECTION_KEY, JSON.stringify(ids)));
  /** Colour per run, fixed while it stays selected, so a run keeps its colour when others come and go. */
  const colours = new Map<string, string>();

  function colourOf(runId: string): string {
    let c = colours.get(runId);
    if (!c) {
      const used = new Set(selected.value.map((id) => colours.get(id)).filter(Boolean));
      c = PALETTE.find((p) => !used.has(p)) ?? PALETTE[colours.size % PALETTE.length]!;
      colours.set(runId, c);
    }
    return c;
  }

  watch(
    selected,
    (ids, old) => {
      for (const id of ids) {
        colourOf(id);
        void openMetrics(id);
      }
      for (const id of old ?? []) {
        if (!ids.includes(id)) {
          colours.delete(id);
          closeMetrics(id);
        }
      }
    },
    { immediate: true },
  );

  function toggle(runId: string, on?: boolean): void {
    const has = selected.value.includes(runId);
    const want = on ?? !has;
    if (want && !has) selected.value = [...selected.value, runId];
    if (!want && has) selected.value = selected.value.filter((id) => id !== runId);
  }

  function only(runId: string): void {
    selected.value = [runId];
  }

  // ---------- run details (checkpoints, evaluations) ----------
  const details = shallowRef(new Map<string, RunDetail>());
  async function loadDetail(runId: string): Promise<RunDetail | null> {
    try {
      const d = await lab().call('runs.get', { id: runId });
      const next = new Map(details.value);
      next.set(runId, d);
      details.value = next;
      return d;
    } catch (err) {
      actionError.value = message(err);
      return null;
    }
  }

  /** One stored RL step's batch, group by group (the dashboard's group view). */
  function rlStep(runId: string, step: number): Promise<RlStepView> {
    return lab().call('runs.rlStep', { id: runId, step });
  }

  // ---------- actions ----------
  const busy = ref<string | null>(null);

  async function act(runId: string, method: 'runs.resume' | 'runs.cancel'): Promise<void> {
    busy.value = runId;
    actionError.value = null;
    try {
      put(await lab().call(method, { id: runId }));
    } catch (err) {
      actionError.value = message(err);
    } finally {
      busy.value = null;
    }
  }

  /** Starts a run (with the wizard's warm-up, `measured`, its time left starts from); throws the server's message (it names the fields) for the wizard to show. */
  async function start(config: Record<string, unknown>, measured?: RunMeasurements): Promise<RunSummary> {
    const summary = await lab().call('runs.start', { config, ...(measured ? { measured } : {}) });
    put(summary);
    only(summary.artefact.id);
    return summary;
  }

  /** Imports a verl run from files on the lab's machine; throws the server's message (it names file and line). */
  async function importVerl(params: MethodParams<'runs.importVerl'>): Promise<RunSummary> {
    const summary = await lab().call('runs.importVerl', params);
    put(summary);
    only(summary.artefact.id);
    return summary;
  }

  // ---------- settings (kept across sessions, with the selection) ----------
  const settings = ref<RunSettings>(loadSettings());
  watch(settings, (s) => storageSet(SETTINGS_KEY, JSON.stringify(s)), { deep: true });

  onLab('job.updated', onJob);
  onLab('run.metrics', ({ runId, records }) => onMetrics(runId, records));

  /** A checkpoint `<run>/<step>` in words, as a run's default name has it ("SFT run (step 60)"); the ref itself when unknown. */
  function checkpointName(ref: string): string {
    const [runId, step] = ref.split('/');
    const run = runId ? byId.value.get(runId) : undefined;
    return run && /^\d+$/.test(step ?? '') ? checkpointInWords(run.artefact.name, Number(step)) : ref;
  }

  return {
    checkpointName,
    list,
    listError,
    loaded,
    actionError,
    byId,
    anyRunning,
    seconds,
    load,
    selected,
    toggle,
    only,
    colourOf,
    metricsOf,
    versions,
    details,
    loadDetail,
    rlStep,
    busy,
    resume: (id: string) => act(id, 'runs.resume'),
    cancel: (id: string) => act(id, 'runs.cancel'),
    start,
    importVerl,
    settings,
  };
});
