// What the run dashboard computes without a page: its chart list, which metrics are evaluation results,
// a run's colour tints and short name, values at a step, the config fields that differ between runs,
// the context warning and a running run's time left. Pure functions (RunDashboard.vue draws them).
import { ANSWER_IN_WINDOW_MIN, type RunSummary } from '@contract';
import { lowerBound, type MetricSeries } from '../../stores/runs';
import { LR_CHART, type ChartDef } from './rlView';
import { formatDuration, labelOf } from './runConfig';
import { formatNumber } from '../../util/format';
import { originOf } from './importedRun';

/** The charts of a run without RL steps (with RL: SFT_CHARTS_WITH_RL and the RL section, rlView.ts). */
export const MAIN_CHARTS: ChartDef[] = [
  { id: 'loss', title: 'loss: sft/loss, val/loss', metrics: ['sft/loss', 'val/loss'] },
  { id: 'eval/pass@1', title: 'eval/pass@1', metrics: ['eval/pass@1'], evalPoints: true },
  { id: 'rollout/tool_calls_mean', title: 'rollout/tool_calls_mean', metrics: ['rollout/tool_calls_mean'], evalPoints: true },
  { id: 'rollout/response_tokens_mean', title: 'rollout/response_tokens_mean', metrics: ['rollout/response_tokens_mean'], evalPoints: true },
  { id: 'perf/tokens_per_s', title: 'perf/tokens_per_s', metrics: ['perf/tokens_per_s'] },
  LR_CHART,
  { id: 'actor/grad_norm', title: 'actor/grad_norm', metrics: ['actor/grad_norm'] },
];
/** The read-out's columns: the key values at the scrubbed step. */
export const READOUT = ['sft/loss', 'val/loss', 'eval/pass@1', 'rollout/tool_calls_mean', 'actor/lr'];
export const READOUT_RL = ['sft/loss', 'reward/mean', 'eval/pass@1', 'actor/entropy', 'rollout/tool_calls_mean', 'batch/zero_std_frac', 'actor/lr'];

/** Metrics written at evaluation steps (names: docs/formats.md): their points open the evaluation's trajectories. */
export const isEvalMetric = (name: string): boolean => /^(eval|rollout|reward|val)\/|^timing\/eval_s$/.test(name);
/** A chart of evaluation results only: its points open evaluations, even at RL steps. */
export const isEvalChart = (def: ChartDef): boolean => def.metrics.every((m) => m.startsWith('eval/'));

export function shortName(r: RunSummary | undefined, id: string): string {
  const n = r?.artefact.name ?? id;
  return n.length > 32 ? `${n.slice(0, 31)}…` : n;
}

/** A lighter tint of a #rrggbb colour, for a run's second metric on the same chart (val/loss beside sft/loss). */
export function tint(hex: string, amount = 0.5): string {
  const n = parseInt(hex.slice(1), 16);
  const mix = (c: number): string => Math.round(c + (255 - c) * amount).toString(16).padStart(2, '0');
  return `#${mix((n >> 16) & 255)}${mix((n >> 8) & 255)}${mix(n & 255)}`;
}

/** What a series looks like in a cache key: its length and ends change whenever its data does. */
export function sigOf(s: MetricSeries | undefined): string {
  if (!s || !s.values.length) return '0';
  return `${s.values.length}:${s.steps.at(-1)}:${s.values.at(-1)}:${s.steps[0]}`;
}

/** A series from the run's first RL step on (RL-phase charts), or all of it. */
export function phase(s: MetricSeries, from: number | null): MetricSeries {
  if (from === null || !s.steps.length || s.steps[0]! >= from) return s;
  const i = lowerBound(s.steps, from);
  return { steps: s.steps.slice(i), times: s.times.slice(i), values: s.values.slice(i) };
}

/** A metric's value at or before a step, and the step it was recorded at. */
export function valueAt(s: MetricSeries | undefined, step: number): { v: number; at: number } | null {
  if (!s || !s.steps.length) return null;
  const i = lowerBound(s.steps, step + 1) - 1;
  return i >= 0 ? { v: s.values[i]!, at: s.steps[i]! } : null;
}

/** A read-out number: whole above 1000, three decimals above 1, four above 0.001, else exponent form. */
export function fmt(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1000) return v.toFixed(0);
  if (a >= 1) return v.toFixed(3);
  if (a >= 1e-3) return v.toFixed(4);
  return v.toExponential(2);
}

function flatten(o: unknown, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  if (o && typeof o === 'object' && !Array.isArray(o)) for (const [k, v] of Object.entries(o)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  else out[prefix] = JSON.stringify(o);
  return out;
}

/** The config fields (dotted paths) whose values differ between runs, with each run's value. */
export function configDiff(runs: readonly RunSummary[]): Array<{ key: string; values: string[] }> {
  if (runs.length < 2) return [];
  const flat = runs.map((r) => flatten(r.artefact.info.config ?? {}));
  const keys = [...new Set(flat.flatMap((f) => Object.keys(f)))].sort();
  return keys.filter((k) => new Set(flat.map((f) => f[k])).size > 1).map((k) => ({ key: k, values: flat.map((f) => f[k] ?? '–') }));
}

/**
 * A run whose context is too short for its data: in some RFT answer turns the policy's prompt window no
 * longer shows the answer the expert read (sft/answer_in_window, measured once at step 0). Null when fine.
 */
export function contextWarning(r: RunSummary): string | null {
  const seen = r.metrics['sft/answer_in_window']?.last;
  if (seen === undefined || seen >= ANSWER_IN_WINDOW_MIN) return null;
  return `In ${Math.round(100 * (1 - seen))}% of the RFT answer turns the answer is outside the policy's prompt window: a larger ${labelOf('model.blockSize')} lets it see the evidence it must answer from.`;
}

/**
 * A running run's time left: over every stage by measured time when its job reports it (run-timeline.ts);
 * else (an older job) from its last step's timings, `rlDone` being how many RL steps it has recorded.
 */
export function eta(r: RunSummary, rlDone: number): string | null {
  if (r.status !== 'running') return null;
  if (r.progress?.secondsLeft !== undefined) return formatDuration(r.progress.secondsLeft);
  const cfg = r.artefact.info.config;
  // In the RL phase: the RL steps left at the last step's rollout + update time.
  if (rlDone && cfg?.rl?.steps) {
    const per = (r.metrics['timing/rollout_s']?.last ?? 0) + (r.metrics['timing/update_s']?.last ?? 0);
    return per > 0 ? formatDuration(Math.max(0, cfg.rl.steps - rlDone) * per) : null;
  }
  const total = cfg?.sft?.steps;
  const per = r.metrics['timing/update_s']?.last;
  if (!total || per === undefined) return null;
  const left = Math.max(0, total - r.lastStep);
  const every = cfg?.eval?.every ?? 100;
  const evals = Math.floor(total / every) - Math.floor(r.lastStep / every) + (total % every ? 1 : 0);
  return formatDuration(left * per + Math.max(0, evals) * (r.metrics['timing/eval_s']?.last ?? 0));
}

/** A run that trains no SFT steps: RL from a checkpoint, or a run imported from verl (its SFT loss chart would stay empty). */
export function rlOnly(r: RunSummary): boolean {
  const fixed = originOf(r).rlOnly;
  if (fixed !== null) return fixed;
  const cfg = r.artefact.info.config;
  return !!cfg?.rl && cfg.sft?.steps === 0;
}

/** How often the stage that is running evaluates: RL's `rl.evalEvery` once RL has started (or the run is RL only), else `eval.every`. */
export function evalInterval(r: RunSummary, rlDone: number): string | null {
  const cfg = r.artefact.info.config;
  if (cfg?.rl && (rlDone > 0 || rlOnly(r))) return cfg.rl.evalEvery ? `every ${cfg.rl.evalEvery} RL steps` : null;
  return cfg?.eval?.every ? `every ${cfg.eval.every} steps` : null;
}

/** A number for a table cell: whole numbers as they are, fractions to 4 significant digits (never 0.8760932944606414). */
export function cell(v: number | undefined): string {
  if (v === undefined || !Number.isFinite(v)) return '–';
  return Number.isInteger(v) ? formatNumber(v) : formatNumber(Number(v.toPrecision(4)));
}

/**
 * What "compare" hands to Compare for one run: with both stages, the checkpoint at the SFT end (the last one
 * before RL's first step) against the RL end, which is what RL changed; else the first against the last.
 */
export function compareChoice(checkpoints: ReadonlyArray<{ ref: string; step: number }>, rlStart: number | null): { refs: string[]; label: string } | null {
  if (checkpoints.length < 2) return null;
  const last = checkpoints.at(-1)!;
  const sftEnd = rlStart === null ? undefined : checkpoints.filter((c) => c.step < rlStart).at(-1);
  if (sftEnd && last.step >= rlStart!) return { refs: [sftEnd.ref, last.ref], label: `compare the SFT end (step ${sftEnd.step}) with the RL end (step ${last.step})` };
  return { refs: [checkpoints[0]!.ref, last.ref], label: 'compare the first and last checkpoints' };
}
