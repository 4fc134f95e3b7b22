// The dashboard's live series in one place, with its state explicit: the runs charted, which of their steps
// are RL steps, the chart lists, each section's series (rebuilt from the previous ones by dashboardSeries.ts
// `rebuild`, which keeps a chart's array while its data is unchanged: no cache is written from inside a
// computed), and the step scrubber with the cursor it puts on every chart. RunDashboard.vue draws it.
import { computed, ref, watch } from 'vue';
import type { RunSummary } from '@contract';
import { lowerBound, useRuns, type RunMetrics } from '../../stores/runs';
import { MAIN_CHARTS, READOUT, READOUT_RL, isEvalMetric, rlOnly, shortName, valueAt } from './dashboard';
import { rebuild, stepAtX, type ChartEntry, type ChartSection, type ChartSeries, type SeriesSource } from './dashboardSeries';
import { originOf } from './importedRun';
import { RL_CHARTS, SFT_CHARTS_WITH_RL, rlStepsOf, type ChartDef } from './rlView';
import { stepOffsets } from './stepAxis';

const seriesOnly = (entries: ReadonlyMap<string, ChartEntry>): Map<string, ChartSeries[]> => new Map([...entries].map(([id, e]) => [id, e.series]));

export function useDashboardSeries() {
  const runs = useRuns();
  const settings = computed(() => runs.settings);
  const ids = computed(() => runs.selected);
  const selectedRuns = computed(() => ids.value.map((id) => runs.byId.get(id)).filter((r): r is RunSummary => !!r));
  const metricsOf = (id: string): RunMetrics | null => runs.metricsOf(id);
  const offsets = computed(() => stepOffsets(runs.byId));
  const offsetOf = (id: string): number => offsets.value.get(id) ?? 0;

  // ---------- RL: which steps of each run are RL steps ----------
  const rlSteps = computed(() => new Map(ids.value.map((id) => [id, rlStepsOf(metricsOf(id)?.byName ?? new Map())])));
  const rlStepsFor = (id: string): number[] => rlSteps.value.get(id) ?? [];
  /** The first RL step of a run: the RL section's charts start there. */
  const rlStart = (id: string): number | null => rlStepsFor(id)[0] ?? null;
  const hasRl = computed(() => ids.value.some((id) => rlStepsFor(id).length > 0));
  /** Every RL step of the selected runs skipped its update (batch/skipped = 1): no actor/* record exists. */
  const allSkipped = computed(() => ids.value.every((id) => (metricsOf(id)?.byName.get('batch/skipped')?.values ?? [1]).every((v) => v === 1)));
  /** Every selected run is RL from a checkpoint (or an import): no SFT loss to chart. */
  const allRlOnly = computed(() => selectedRuns.value.length > 0 && selectedRuns.value.every(rlOnly));
  const allImported = computed(() => selectedRuns.value.length > 0 && selectedRuns.value.every((r) => originOf(r).imported));
  /** The first selected run that has RL steps: the RL section's heading and group view follow it. */
  const rlRun = computed(() => selectedRuns.value.find((r) => rlStepsFor(r.artefact.id).length > 0) ?? null);

  // ---------- the chart lists ----------
  const topCharts = computed(() => {
    const defs = hasRl.value || allRlOnly.value ? SFT_CHARTS_WITH_RL : MAIN_CHARTS;
    return allRlOnly.value ? defs.filter((d) => d.id !== 'loss') : defs;
  });
  const readoutNames = computed(() => (hasRl.value ? READOUT_RL : READOUT));
  const namesWhere = (keep: (s: { steps: number[]; values: number[] }) => boolean): string[] => {
    const names = new Set<string>();
    for (const id of ids.value) for (const [name, s] of metricsOf(id)?.byName ?? []) if (keep(s)) names.add(name);
    return [...names].sort();
  };
  /** Metrics recorded once, at step 0 (RFT data report, window counts): a table, not a chart. */
  const onceNames = computed(() => namesWhere((s) => s.values.length === 1 && s.steps[0] === 0));
  const extraCharts = computed<ChartDef[]>(() => {
    const shown = new Set([...topCharts.value, ...(hasRl.value ? RL_CHARTS : [])].flatMap((c) => c.metrics));
    return namesWhere((s) => s.values.length > 1)
      .filter((n) => !shown.has(n))
      .map((n) => ({ id: n, title: n, metrics: [n], evalPoints: isEvalMetric(n) }));
  });
  const showAll = ref(false);

  // ---------- series per section ----------
  // The rebuilds call metricsOf, which reads the run's version counter: an appended record redraws them.
  const source = computed<SeriesSource>(() => ({
    ids: ids.value,
    xAxis: settings.value.xAxis,
    rlAxis: settings.value.rlAxis,
    metricsOf,
    runOf: (id) => runs.byId.get(id),
    colourOf: (id) => runs.colourOf(id),
    offsetOf,
    rlStart,
  }));
  const mainEntries = computed<Map<string, ChartEntry>>((prev) => rebuild(topCharts.value, 'main', source.value, prev));
  const rlEntries = computed<Map<string, ChartEntry>>((prev) => (hasRl.value ? rebuild(RL_CHARTS, 'rl', source.value, prev) : new Map()));
  const extraEntries = computed<Map<string, ChartEntry>>((prev) => (showAll.value ? rebuild(extraCharts.value, 'all', source.value, prev) : new Map()));
  const mainSeries = computed(() => seriesOnly(mainEntries.value));
  const rlSeries = computed(() => seriesOnly(rlEntries.value));
  const extraSeries = computed(() => seriesOnly(extraEntries.value));
  /** The RL section on its own axis: RL steps counted from the SFT end (run-local step), or null. */
  const rlOrigin = computed(() => {
    const start = rlRun.value ? rlStart(rlRun.value.artefact.id) : null;
    return settings.value.rlAxis === 'rl' && start !== null ? start - 1 : null;
  });

  // ---------- the step scrubber (steps on the shared axis) ----------
  const maxStep = computed(() => Math.max(0, ...ids.value.map((id) => (metricsOf(id)?.steps.at(-1) ?? 0) + offsetOf(id))));
  /** The step the scrubber was moved to; null: it follows the latest step. */
  const scrub = ref<number | null>(null);
  watch(ids, () => (scrub.value = null));
  const scrubValue = computed(() => Math.min(scrub.value ?? maxStep.value, maxStep.value));

  /** The first selected run's step on the shared axis -> seconds, for the cursor in time mode. */
  function timeAt(step: number): number | null {
    const first = ids.value[0];
    const m = first ? metricsOf(first) : null;
    if (!first || !m || !m.steps.length) return null;
    const i = Math.min(lowerBound(m.steps, step - offsetOf(first)), m.steps.length - 1);
    return m.times[i]!;
  }
  const cursorX = computed(() => (scrub.value === null ? null : settings.value.xAxis === 'time' ? timeAt(scrub.value) : scrub.value));
  /** The cursor of the RL section: on its own axis, the scrubber's step as an RL step (none in time mode). */
  const rlCursorX = computed(() => {
    if (rlOrigin.value === null || !rlRun.value) return cursorX.value;
    if (scrub.value === null || settings.value.xAxis === 'time') return null;
    return scrub.value - offsetOf(rlRun.value.artefact.id) - rlOrigin.value;
  });

  const readout = computed(() => {
    const step = scrubValue.value;
    return ids.value.map((id) => ({
      id,
      colour: runs.colourOf(id),
      name: shortName(runs.byId.get(id), id),
      values: readoutNames.value.map((name) => {
        const hit = valueAt(metricsOf(id)?.byName.get(name), step - offsetOf(id));
        return { name, hit: hit && { v: hit.v, at: hit.at + offsetOf(id) } };
      }),
    }));
  });

  /** The run's own step nearest to a click at x on a chart of a section. */
  const stepAt = (def: ChartDef, section: ChartSection, id: string, x: number): number | null => stepAtX(def, section, source.value, id, x);

  return {
    settings,
    ids,
    selectedRuns,
    metricsOf,
    offsetOf,
    rlStepsFor,
    rlStart,
    hasRl,
    allSkipped,
    allRlOnly,
    allImported,
    rlRun,
    rlOrigin,
    topCharts,
    readoutNames,
    onceNames,
    extraCharts,
    showAll,
    mainSeries,
    rlSeries,
    extraSeries,
    maxStep,
    scrub,
    scrubValue,
    cursorX,
    rlCursorX,
    readout,
    stepAt,
  };
}
