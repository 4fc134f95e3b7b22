// What the dashboard knows about agentic RL: which steps of a run are RL steps, the RL section's charts,
// and the group view's colours and advantage histogram. Pure functions, so they are tested without a page.
import type { RlGroupView, RlStepView } from '@contract';

/** A chart of the dashboard: one or more metrics of every selected run. */
export interface ChartDef {
  id: string;
  title: string;
  metrics: string[];
  /** Points are evaluations: clicking one opens its trajectories. */
  evalPoints?: boolean;
  /** Only the RL phase (from the run's first RL step on): the same names mean evaluation rollouts under SFT. */
  rlPhase?: boolean;
  /** false: auto-range the y axis even when every value is within [0, 1] (small fractions). */
  unitRange?: boolean;
}

/** Keys only an RL step writes (main/lab/rl/metrics.ts): a step that has one is an RL step. */
export const RL_MARKERS = ['batch/skipped', 'reward/std', 'actor/pg_loss', 'batch/zero_std_frac'] as const;

/** The RL section, in reading order: outcome, then the update, then the rollouts, then the batch and the clock. */
export const RL_CHARTS: ChartDef[] = [
  { id: 'rl-reward', title: 'reward: mean, format, answer', metrics: ['reward/mean', 'reward/format', 'reward/answer'], rlPhase: true },
  { id: 'rl-pass1', title: 'eval/pass@1', metrics: ['eval/pass@1'], evalPoints: true },
  { id: 'rl-reward-std', title: 'reward/std', metrics: ['reward/std'], rlPhase: true },
  { id: 'rl-entropy', title: 'actor/entropy', metrics: ['actor/entropy'], rlPhase: true },
  { id: 'rl-pg-loss', title: 'actor/pg_loss', metrics: ['actor/pg_loss'], rlPhase: true },
  { id: 'rl-clipfrac', title: 'clip fraction: all, low, high', metrics: ['actor/pg_clipfrac', 'actor/pg_clipfrac_low', 'actor/pg_clipfrac_high'], rlPhase: true, unitRange: false },
  { id: 'rl-grad-norm', title: 'actor/grad_norm', metrics: ['actor/grad_norm'], rlPhase: true },
  { id: 'rl-tool-calls', title: 'rollout/tool_calls_mean', metrics: ['rollout/tool_calls_mean'], rlPhase: true },
  { id: 'rl-response-tokens', title: 'rollout/response_tokens_mean', metrics: ['rollout/response_tokens_mean'], rlPhase: true },
  { id: 'rl-turns', title: 'rollout/num_turns_mean', metrics: ['rollout/num_turns_mean'], rlPhase: true },
  { id: 'rl-batch', title: 'batch: no signal, duplicated, signal per turn only', metrics: ['batch/zero_std_frac', 'batch/duplicated_frac', 'batch/turn_signal_frac'], rlPhase: true },
  // Turn rewards from the graph (rl.turnRewards): mean per rollout by kind; what a wrong answer gives back is negative.
  {
    id: 'rl-turn-rewards',
    title: 'turn rewards by kind (per rollout)',
    metrics: ['turn/seen', 'turn/hop', 'turn/answer', 'turn/answered_bridge', 'turn/dropped', 'turn/repeat'],
    rlPhase: true,
    unitRange: false,
  },
  // The data-policy loop's pool (rl.pool frontier): questions made fresh, kept at the frontier, dropped either way.
  {
    id: 'rl-pool',
    title: 'question pool: size, made, kept, too easy, too hard',
    metrics: ['rl/pool_size', 'rl/pool_made', 'rl/pool_kept', 'rl/pool_too_easy', 'rl/pool_too_hard'],
    rlPhase: true,
    unitRange: false,
  },
  { id: 'rl-staleness', title: 'async: staleness max, mean, stale dropped', metrics: ['rollout/staleness_max', 'rollout/staleness_mean', 'rollout/stale_dropped'], rlPhase: true, unitRange: false },
  { id: 'rl-tokens-per-s', title: 'perf/tokens_per_s', metrics: ['perf/tokens_per_s'], rlPhase: true },
  { id: 'rl-timing', title: 'timing: rollout, update (s)', metrics: ['timing/rollout_s', 'timing/update_s'], rlPhase: true },
];

/** Above the RL section when a run has one: what SFT left (the loss) and the rate over the whole run. */
/** The learning rate (about 1e-3) auto-ranges: on a [0, 1] axis it draws as a flat line at 0. */
export const LR_CHART: ChartDef = { id: 'actor/lr', title: 'actor/lr', metrics: ['actor/lr'], unitRange: false };

export const SFT_CHARTS_WITH_RL: ChartDef[] = [
  { id: 'loss', title: 'loss: sft/loss, val/loss', metrics: ['sft/loss', 'val/loss'] },
  LR_CHART,
];

/** A run's RL steps, ascending: the union of the steps of its RL-only metrics. */
export function rlStepsOf(byName: ReadonlyMap<string, { steps: readonly number[] }>): number[] {
  const seen = new Set<number>();
  for (const k of RL_MARKERS) for (const s of byName.get(k)?.steps ?? []) seen.add(s);
  return [...seen].sort((a, b) => a - b);
}

/** The last step of an ascending list at or before `step` (else the first), or null for an empty list. */
export function stepAtOrBefore(steps: readonly number[], step: number): number | null {
  if (!steps.length) return null;
  let best = steps[0]!;
  for (const s of steps) if (s <= step) best = s;
  return best;
}

/** The step of an ascending list nearest to `step`, or null. */
export function nearestStep(steps: readonly number[], step: number): number | null {
  let best: number | null = null;
  for (const s of steps) if (best === null || Math.abs(s - step) < Math.abs(best - step)) best = s;
  return best;
}

function hex(c: string): [number, number, number] {
  const n = parseInt(c.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}
function mix(a: string, b: string, t: number): string {
  const [x, y] = [hex(a), hex(b)];
  const c = x.map((v, i) => Math.round(v + (y[i]! - v) * Math.max(0, Math.min(1, t))));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

const BAD = '#ef6461';
const WARN = '#e8b04b';
const OK = '#4cc38a';
const ZERO = '#2a3541';

/** A reward in [0, 1] as a cell colour: red (0) through amber (0.5) to green (1). */
export function rewardColour(r: number): string {
  if (!Number.isFinite(r)) return ZERO;
  const t = Math.max(0, Math.min(1, r));
  return t < 0.5 ? mix(BAD, WARN, t / 0.5) : mix(WARN, OK, (t - 0.5) / 0.5);
}

/** An advantage as a diverging colour around a neutral grey: green above 0, red below, by |a| / scale. */
export function advantageColour(a: number, scale: number): string {
  if (!Number.isFinite(a) || scale <= 0) return ZERO;
  const t = Math.min(1, Math.abs(a) / scale);
  return mix(ZERO, a >= 0 ? OK : BAD, 0.25 + 0.75 * t);
}

/** Slots of the training batch a group fills: none when dropped, its copies otherwise (at least one). */
export const batchWeight = (g: Pick<RlGroupView, 'status' | 'copies'>): number => (g.status === 'dropped' ? 0 : Math.max(1, g.copies));

export interface HistBin {
  lo: number;
  hi: number;
  /** Rollouts in the batch with an advantage in [lo, hi) (the last bin includes hi), copies counted. */
  count: number;
}

export interface AdvantageHistogram {
  bins: HistBin[];
  /** Half-width of the symmetric range (max |A|, at least 1e-6). */
  scale: number;
  /** Rollouts counted (copies counted). */
  total: number;
  /** Rollouts of dropped groups (advantage 0, not in the batch), not counted. */
  dropped: number;
  maxCount: number;
}

/**
 * The advantages the update trained on: every rollout of each group in the batch, once per slot it fills
 * (DUPO's copies count), in `bins` equal bins over [-max|A|, max|A|] (an odd count puts 0 in the middle one).
 */
export function advantageHistogram(view: Pick<RlStepView, 'groups'>, bins = 17): AdvantageHistogram {
  const values: Array<[number, number]> = [];
  let dropped = 0;
  for (const g of view.groups) {
    const w = batchWeight(g);
    if (w === 0) dropped += g.rollouts.length;
    else for (const r of g.rollouts) values.push([r.advantage, w]);
  }
  const scale = Math.max(1e-6, ...values.map(([a]) => Math.abs(a)));
  const width = (2 * scale) / bins;
  const out: HistBin[] = Array.from({ length: bins }, (_, i) => ({ lo: -scale + i * width, hi: -scale + (i + 1) * width, count: 0 }));
  let total = 0;
  for (const [a, w] of values) {
    const i = Math.min(bins - 1, Math.max(0, Math.floor((a + scale) / width)));
    out[i]!.count += w;
    total += w;
  }
  return { bins: out, scale, total, dropped, maxCount: Math.max(0, ...out.map((b) => b.count)) };
}

/** Short number for cells and read-outs: 1, 0.1, -0.87, 12.4. */
export function short(v: number): string {
  if (!Number.isFinite(v)) return '–';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (Number.isInteger(v)) return String(v);
  if (a >= 10) return v.toFixed(1);
  return v.toFixed(2).replace(/0$/, '');
}
