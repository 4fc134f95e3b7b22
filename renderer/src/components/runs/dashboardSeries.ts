// The dashboard's chart series, as pure functions of what the runs store holds: where each run's points sit
// on a chart's x axis (steps on the shared axis, seconds, or, in the RL section on its own axis, RL steps
// counted from the SFT end), the series of one chart, and a rebuild that keeps a chart's old series array when
// its data did not change (so a training step redraws the step charts and leaves the evaluation ones alone).
// useDashboardSeries.ts holds them in Vue state; tests call them directly.
import type { MetricSeries, RlAxis, RunMetrics, XAxis } from '../../stores/runs';
import { phase, shortName, sigOf, tint } from './dashboard';
import type { ChartDef } from './rlView';
import { shiftSteps } from './stepAxis';
import type { RunSummary } from '@contract';

/** One series as MetricChart.vue draws it (its ChartSeries, with plain arrays); a .ts file cannot import a .vue's types under tsc. */
export interface ChartSeries {
  key: string;
  label: string;
  color: string;
  xs: number[];
  ys: number[];
  dash?: number[];
}

/** Which part of the dashboard a chart is drawn in: the RL section may have its own axis. */
export type ChartSection = 'main' | 'rl' | 'all';

/** What the series of the selected runs are built from. */
export interface SeriesSource {
  ids: readonly string[];
  xAxis: XAxis;
  rlAxis: RlAxis;
  metricsOf(id: string): RunMetrics | null;
  runOf(id: string): RunSummary | undefined;
  colourOf(id: string): string;
  /** Where the run's step 1 sits on the shared step axis, less one. */
  offsetOf(id: string): number;
  /** The run's first RL step, or null. */
  rlStart(id: string): number | null;
}

/**
 * How one run is placed on one chart: from which of its steps (null: all) and the step drawn at x = 0 (its
 * shared-axis origin, or, on the RL stage's own axis, the SFT end). null: the run has nothing on this chart.
 */
export interface Frame {
  from: number | null;
  origin: number;
}

export function frameOf(def: ChartDef, section: ChartSection, src: SeriesSource, id: string): Frame | null {
  const start = src.rlStart(id);
  // A run without RL steps has no RL phase to chart.
  if (def.rlPhase && start === null) return null;
  if (section === 'rl' && src.rlAxis === 'rl') {
    if (start === null) return null; // no RL stage: nothing to draw on RL steps
    // The SFT end (the step before RL's first) is RL step 0: its evaluation is the baseline RL starts from. The
    // RL-phase metrics start at RL's first step, as the same names before it are SFT's evaluation rollouts.
    return { from: def.rlPhase ? start : start - 1, origin: start - 1 };
  }
  return { from: def.rlPhase ? start : null, origin: -src.offsetOf(id) };
}

/** A series' x values in a frame: seconds (since the origin's time on the RL axis), or steps less the origin. */
export function framedXs(s: MetricSeries, frame: Frame, xAxis: XAxis, m: RunMetrics, rlAxis: boolean): number[] {
  if (xAxis === 'time') {
    if (!rlAxis) return s.times;
    const t0 = timeAtStep(m, frame.origin);
    return s.times.map((t) => t - t0);
  }
  return shiftSteps(s.steps, -frame.origin);
}

/** The time (seconds) of the last record at or before a step, else of the first record. */
function timeAtStep(m: RunMetrics, step: number): number {
  let t = m.times[0] ?? 0;
  for (let i = 0; i < m.steps.length && m.steps[i]! <= step; i++) t = m.times[i]!;
  return t;
}

/** One chart's series and its signature: equal signatures mean equal series. */
export interface ChartEntry {
  sig: string;
  series: ChartSeries[];
}

export function chartEntry(def: ChartDef, section: ChartSection, src: SeriesSource): ChartEntry {
  const parts: string[] = [src.xAxis, src.rlAxis, section];
  const series: ChartSeries[] = [];
  const onRlAxis = section === 'rl' && src.rlAxis === 'rl';
  for (const id of src.ids) {
    const m = src.metricsOf(id);
    if (!m) continue;
    const frame = frameOf(def, section, src, id);
    if (!frame) continue;
    const colour = src.colourOf(id);
    const run = src.runOf(id);
    def.metrics.forEach((name, i) => {
      const raw = m.byName.get(name);
      parts.push(`${id}|${name}|${colour}|${sigOf(raw)}|${frame.from}|${frame.origin}`);
      if (!raw || !raw.values.length) return;
      const s = phase(raw, frame.from);
      if (!s.values.length) return;
      const label = def.metrics.length > 1 ? (src.ids.length > 1 ? `${shortName(run, id)} ${name}` : name) : shortName(run, id);
      // A run's second and third metric on one chart: lighter tints of its colour.
      series.push({
        key: `${id}|${name}`,
        label,
        color: i === 0 ? colour : tint(colour, i === 1 ? 0.45 : 0.6),
        xs: framedXs(s, frame, src.xAxis, m, onRlAxis),
        ys: s.values,
        ...(i === 2 ? { dash: [6, 4] } : {}),
      });
    });
  }
  return { sig: parts.join('/'), series };
}

/** The charts' series, each chart keeping its previous entry (the same array) when its signature is unchanged. */
export function rebuild(defs: readonly ChartDef[], section: ChartSection, src: SeriesSource, prev: ReadonlyMap<string, ChartEntry> | undefined): Map<string, ChartEntry> {
  const next = new Map<string, ChartEntry>();
  for (const def of defs) {
    const entry = chartEntry(def, section, src);
    const old = prev?.get(def.id);
    next.set(def.id, old && old.sig === entry.sig ? old : entry);
  }
  return next;
}

/** The run's step (its own count) of the point nearest to where a click landed (x on the chart's axis). */
export function stepAtX(def: ChartDef, section: ChartSection, src: SeriesSource, id: string, x: number): number | null {
  const m = src.metricsOf(id);
  const frame = m && frameOf(def, section, src, id);
  if (!m || !frame) return null;
  let best: { d: number; step: number } | null = null;
  for (const name of def.metrics) {
    const raw = m.byName.get(name);
    if (!raw) continue;
    const s = phase(raw, frame.from);
    const xs = framedXs(s, frame, src.xAxis, m, section === 'rl' && src.rlAxis === 'rl');
    for (let i = 0; i < xs.length; i++) {
      const d = Math.abs(xs[i]! - x);
      if (!best || d < best.d) best = { d, step: s.steps[i]! };
    }
  }
  return best?.step ?? null;
}
