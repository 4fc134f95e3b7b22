// Pure helpers of the checkpoint comparison: reading the per-checkpoint evaluation and counts (loosely
// typed on the wire) into numbers, the rows of the side-by-side table with the best value of each row,
// the per-question outcome of two checkpoints, A against B in one line (intervals, the paired test), and the
// inline validation of the new-comparison form (the compare job's own schema). Which way a metric is better, the
// interval and the test are the contract's (metricDirection, wilsonInterval, mcnemarExactP).
import {
  FAILURE_CLASSES, FAILURE_TEXT, asFailureCounts, formatP, jobParamIssues, labelIssues, mcnemarExactP, metricDirection, wilsonInterval,
  type ComparisonView, type FailureCounts, type FieldIssue,
} from '@contract';

export type Outcome = 'a_only' | 'b_only' | 'both' | 'neither';
export const OUTCOMES: Outcome[] = ['a_only', 'b_only', 'both', 'neither'];

/** Letters for checkpoint columns: A, B, C … (a comparison holds at most 6). */
export const letter = (i: number): string => String.fromCharCode(65 + i);

/** A checkpoint as the columns name it: its run's name and the step ('last checkpoint' for `<run>/last`). */
export interface CheckpointHead {
  ref: string;
  runId: string;
  run: string;
  step: string;
  label: string;
}

export interface CheckpointStats {
  ref: string;
  setId: string;
  questions: number | null;
  trajectories: number | null;
  k: number | null;
  pass1: number | null;
  /** 95% Wilson interval of pass@1 over the trajectories (null without both). */
  pass1Interval: [number, number] | null;
  passk: number | null;
  consk: number | null;
  /** Questions with at least one correct sample. */
  solved: number | null;
  toolCalls: number | null;
  toolCallsByType: Record<string, number>;
  turns: number | null;
  tokens: number | null;
  reward: number | null;
  rewardAnswer: number | null;
  rewardFormat: number | null;
  /** Fraction of trajectories per termination. */
  termination: Record<string, number>;
  /** Samples the infrastructure failed (policy_error, tool_error): in no rate above, counted apart. */
  infraFailures: number;
  /** The evaluation's failure breakdown (contract/failures.ts); null for a set evaluated before it existed. */
  failures: FailureCounts | null;
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
function numMap(v: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (isObj(v)) for (const [k, x] of Object.entries(v)) if (num(x) !== null) out[k] = x as number;
  return out;
}

/** One checkpoint's numbers: the evaluation report first, the set's counts where the report is missing. */
export function statsOf(c: ComparisonView['checkpoints'][number]): CheckpointStats {
  const ev = isObj(c.eval) ? c.eval : {};
  const all = isObj(ev.all) ? ev.all : {};
  const solved = isObj(ev.solved) ? ev.solved : {};
  const counts = isObj(c.counts) ? c.counts : {};
  const trajectories = num(all.trajectories) ?? num(counts.trajectories);
  let termination = numMap(all.termination);
  if (!Object.keys(termination).length) {
    // counts.termination holds counts, not fractions.
    const raw = numMap(counts.termination);
    const total = trajectories ?? Object.values(raw).reduce((a, b) => a + b, 0);
    termination = Object.fromEntries(Object.entries(raw).map(([k, n]) => [k, total ? n / total : 0]));
  }
  const pass1 = num(ev['pass@1']);
  const infraFailures = num(ev.infrastructure_failures) ?? num(counts.infrastructure_failures) ?? 0;
  const scored = trajectories === null ? null : trajectories - infraFailures;
  return {
    ref: c.ref,
    setId: c.setId,
    pass1Interval: pass1 !== null && scored ? wilsonInterval(Math.round(pass1 * scored), scored) : null,
    questions: num(ev.questions) ?? num(counts.questions),
    trajectories,
    k: num(ev.k),
    pass1,
    passk: num(ev['pass@k']),
    consk: num(ev['cons@k']),
    solved: num(solved.questions),
    toolCalls: num(all.tool_calls_mean) ?? num(counts.tool_calls_mean),
    toolCallsByType: numMap(all.tool_calls_by_type),
    turns: num(all.turns_mean),
    tokens: num(all.tokens_mean),
    reward: num(counts['reward/mean']),
    rewardAnswer: num(counts['reward/answer']),
    rewardFormat: num(counts['reward/format']),
    termination,
    infraFailures,
    failures: asFailureCounts(ev.failures),
  };
}

export type Better = 'high' | 'low' | null;

/** A row's direction from the contract's rule: pass@1 and reward up, failure rates down, behaviour neutral (null). */
export function betterOf(key: string): Better {
  const d = metricDirection(key);
  return d === 'up' ? 'high' : d === 'down' ? 'low' : null;
}
export type RowFormat = 'pct' | 'dec2' | 'dec1' | 'int' | 'count';

export interface MetricRow {
  key: string;
  label: string;
  /** What the row means, for the label's tooltip. */
  hint: string;
  group: 'accuracy' | 'reward' | 'behaviour' | 'termination' | 'failures';
  better: Better;
  format: RowFormat;
  values: Array<number | null>;
  /** Columns holding the best value; empty when all are equal or there is no direction. */
  best: number[];
  /** A breakdown of the row above (tool calls by type): indented, not ranked. */
  sub?: boolean;
  /** Termination rows draw a bar for the fraction. */
  bar?: boolean;
  /** Why the row marks no side better although it has a direction (the paired test found no difference). */
  unsure?: string;
}

/** The rows judged by the paired test: with two checkpoints, their accuracy differs only where McNemar says so. */
const PAIRED_ROWS = new Set(['pass@1', 'pass@k', 'cons@k', 'solved']);

/** The columns with the best value; none when every value is the same (nothing to point at). */
export function bestOf(values: ReadonlyArray<number | null>, better: Better): number[] {
  if (!better) return [];
  const present = values.map((v, i) => [v, i] as const).filter((p): p is readonly [number, number] => p[0] !== null);
  if (present.length < 2) return [];
  const target = better === 'high' ? Math.max(...present.map((p) => p[0])) : Math.min(...present.map((p) => p[0]));
  const best = present.filter((p) => Math.abs(p[0] - target) < 1e-9).map((p) => p[1]);
  return best.length === present.length ? [] : best;
}

const TERMINATION_ORDER = ['answer', 'max_steps', 'max_tokens', 'format_error', 'policy_error', 'tool_error'];

/** Why trajectories ended, in words; policy_error and tool_error are failures of the infrastructure, not the model. */
function terminationHint(t: string): string {
  if (t === 'answer') return 'trajectories that ended with an answer';
  if (t === 'policy_error') return 'the policy failed to answer (a checkpoint that does not load, a server that is down): not the model\'s fault';
  if (t === 'tool_error') return 'the tool layer failed: not the model\'s fault';
  return `trajectories cut off by ${t.replace(/_/g, ' ')}`;
}

/**
 * The table's rows. `pairedP`: the exact McNemar p of A against B where the comparison holds those two only; at
 * p >= 0.05 the accuracy rows mark no side better (the third walk saw B coloured better at p = 0.81).
 */
export function metricRows(stats: readonly CheckpointStats[], pairedP: number | null = null): MetricRow[] {
  const rows: MetricRow[] = [];
  const unsure = pairedP !== null && pairedP >= 0.05 ? `no side marked better: McNemar ${formatP(pairedP)}, no significant difference` : undefined;
  const add = (r: Omit<MetricRow, 'best' | 'better'>): void => {
    if (r.values.every((v) => v === null)) return;
    const better = betterOf(r.key);
    const judged = unsure !== undefined && PAIRED_ROWS.has(r.key);
    rows.push({ ...r, better, best: r.sub || judged ? [] : bestOf(r.values, better), ...(judged ? { unsure } : {}) });
  };
  const k = Math.max(1, ...stats.map((s) => s.k ?? 1));
  add({ key: 'pass@1', label: 'pass@1', hint: 'mean accuracy over the samples the model answered (infrastructure failures left out, counted under termination)', group: 'accuracy', format: 'pct', values: stats.map((s) => s.pass1) });
  add({ key: 'pass@k', label: k > 1 ? `pass@${k}` : 'pass@k (k = 1)', hint: `unbiased pass@k with k = ${k} (the samples per question)`, group: 'accuracy', format: 'pct', values: stats.map((s) => s.passk) });
  if (k > 1) add({ key: 'cons@k', label: `cons@${k}`, hint: 'majority vote of the k samples is correct', group: 'accuracy', format: 'pct', values: stats.map((s) => s.consk) });
  add({ key: 'solved', label: 'questions solved', hint: 'questions with at least one correct sample', group: 'accuracy', format: 'count', values: stats.map((s) => s.solved) });
  add({ key: 'reward', label: 'reward', hint: 'mean total reward per trajectory', group: 'reward', format: 'dec2', values: stats.map((s) => s.reward) });
  add({ key: 'reward/answer', label: 'answer', hint: 'mean answer reward', group: 'reward', format: 'dec2', values: stats.map((s) => s.rewardAnswer), sub: true });
  add({ key: 'reward/format', label: 'format', hint: 'mean format reward', group: 'reward', format: 'dec2', values: stats.map((s) => s.rewardFormat), sub: true });
  add({ key: 'tool_calls', label: 'tool calls / traj.', hint: 'mean tool calls per trajectory (no better or worse in itself: a harder question may need more)', group: 'behaviour', format: 'dec1', values: stats.map((s) => s.toolCalls) });
  const types = [...new Set(stats.flatMap((s) => Object.keys(s.toolCallsByType)))].sort();
  for (const t of types) {
    add({ key: `tool_calls/${t}`, label: t, hint: `mean ${t} calls per trajectory`, group: 'behaviour', format: 'dec1', values: stats.map((s) => s.toolCallsByType[t] ?? 0), sub: true });
  }
  add({ key: 'turns', label: 'turns', hint: 'mean turns (model actions) per trajectory (no better or worse in itself: a harder question may need more)', group: 'behaviour', format: 'dec1', values: stats.map((s) => s.turns) });
  add({ key: 'tokens', label: 'tokens', hint: 'mean generated tokens per trajectory (no better or worse in itself: a harder question may need more)', group: 'behaviour', format: 'int', values: stats.map((s) => s.tokens) });
  const terms = [...new Set(stats.flatMap((s) => Object.keys(s.termination)))].sort(
    (a, b) => (TERMINATION_ORDER.indexOf(a) + 1 || 99) - (TERMINATION_ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b),
  );
  for (const t of terms) {
    add({
      key: `termination/${t}`,
      label: t.replace(/_/g, ' '),
      hint: terminationHint(t),
      group: 'termination',

      format: 'pct',
      values: stats.map((s) => s.termination[t] ?? 0),
      bar: true,
    });
  }
  // The failure breakdown as shares of the episodes classified, a bar each (the same colours as FailureBar's).
  const share = (f: FailureCounts | null, c: (typeof FAILURE_CLASSES)[number]): number | null => {
    const total = f ? FAILURE_CLASSES.reduce((a, x) => a + f[x], 0) : 0;
    return f && total > 0 ? f[c] / total : null;
  };
  for (const c of FAILURE_CLASSES) {
    add({ key: `failures/${c}`, label: FAILURE_TEXT[c].label, hint: FAILURE_TEXT[c].hint, group: 'failures', format: 'pct', values: stats.map((s) => share(s.failures, c)), bar: true });
  }
  return rows;
}

export function formatValue(v: number | null, f: RowFormat): string {
  if (v === null) return '–';
  switch (f) {
    case 'pct':
      return `${(100 * v).toFixed(1)}%`;
    case 'dec2':
      return v.toFixed(2);
    case 'dec1':
      return v.toFixed(1);
    case 'int':
      return Math.round(v).toLocaleString('en-US');
    case 'count':
      return String(Math.round(v));
  }
}

/** Whether two values differ (a change worth showing). */
export const differs = (v: number | null, base: number | null): boolean => v !== null && base !== null && Math.abs(v - base) >= 1e-9;

/** The change from the first column, signed, in the row's units ("+12.5 pp" for percentages). */
export function formatDelta(v: number | null, base: number | null, f: RowFormat): string | null {
  if (v === null || base === null) return null;
  const d = v - base;
  if (Math.abs(d) < 1e-9) return '±0';
  const sign = d > 0 ? '+' : '−';
  const a = Math.abs(d);
  if (f === 'pct') return `${sign}${(100 * a).toFixed(1)} pp`;
  if (f === 'int' || f === 'count') return `${sign}${Math.round(a).toLocaleString('en-US')}`;
  return `${sign}${a.toFixed(f === 'dec2' ? 2 : 1)}`;
}

/** Whether a change is for the better (true), the worse (false) or neither (null). */
export function deltaGood(v: number | null, base: number | null, better: Better): boolean | null {
  if (v === null || base === null || !better || Math.abs(v - base) < 1e-9) return null;
  return better === 'high' ? v > base : v < base;
}

// ---------- questions ----------

export interface QuestionRow {
  qaId: string;
  text: string;
  outcome: Outcome;
  a: { correct: number; n: number; trajIds: string[] };
  b: { correct: number; n: number; trajIds: string[] };
  /** Every checkpoint's result, for the small marks of the other columns. */
  all: Array<{ correct: number; n: number }>;
}

export function outcomeOf(a: boolean, b: boolean): Outcome {
  return a && b ? 'both' : a ? 'a_only' : b ? 'b_only' : 'neither';
}

const NONE = { correct: 0, n: 0, trajIds: [] as string[] };

export function questionRows(view: ComparisonView, a: number, b: number): QuestionRow[] {
  return view.questions.map((q) => {
    const ra = q.results[a] ?? NONE;
    const rb = q.results[b] ?? NONE;
    return {
      qaId: q.qa_id,
      text: view.questionText[q.qa_id] ?? '',
      outcome: outcomeOf(ra.correct > 0, rb.correct > 0),
      a: ra,
      b: rb,
      all: q.results.map((r) => ({ correct: r.correct, n: r.n })),
    };
  });
}

export function tallyOutcomes(rows: readonly QuestionRow[]): Record<Outcome, number> {
  const t: Record<Outcome, number> = { a_only: 0, b_only: 0, both: 0, neither: 0 };
  for (const r of rows) t[r.outcome]++;
  return t;
}

// ---------- the new-comparison form ----------

export interface CompareForm {
  name: string;
  checkpoints: string[];
  datasetId: string;
  questions: number | '';
  samples: number | '';
  /** 0: greedy. */
  temperature: number | '';
  rng: number | '';
}

export type FormErrors = Partial<Record<'checkpoints' | 'datasetId' | 'questions' | 'samples' | 'temperature' | 'rng' | 'name', string>>;

/** What the form calls each of the compare job's params: a message starts with it. */
export const COMPARE_LABELS: Readonly<Record<keyof FormErrors, string>> = {
  checkpoints: 'checkpoints', datasetId: 'questions from', questions: 'questions', samples: 'samples', temperature: 'temperature', rng: 'rng', name: 'name',
};

/** The form as the compare job's params: an empty number box is left out of nothing (the schema says "enter a number"). */
const asParams = (f: CompareForm): Record<string, unknown> => ({
  checkpoints: f.checkpoints, datasetId: f.datasetId, questions: f.questions, samples: f.samples, temperature: f.temperature, rng: f.rng,
  ...(f.name.trim() ? { name: f.name.trim() } : {}),
});

/**
 * The compare job's own schema (contract/jobs.ts compareParams) on the form, each issue in words under the
 * field's label; the checkpoint count and a dataset missing from this data directory in the form's own words.
 * `refused`: the fields main refused the last start for (shown the same way).
 */
export function validateForm(f: CompareForm, datasetIds: readonly string[], refused: readonly FieldIssue[] = []): FormErrors {
  const e: FormErrors = {};
  if (f.checkpoints.length < 2) e.checkpoints = `Pick at least 2 checkpoints (${f.checkpoints.length} picked).`;
  else if (f.checkpoints.length > 6) e.checkpoints = `At most 6 checkpoints in one comparison (${f.checkpoints.length} picked).`;
  if (!f.datasetId) e.datasetId = 'Choose the questions to answer.';
  else if (datasetIds.length && !datasetIds.includes(f.datasetId)) e.datasetId = `Dataset ${f.datasetId} is not in this data directory.`;
  const { byField } = labelIssues([...jobParamIssues('compare', asParams(f)), ...refused], COMPARE_LABELS);
  for (const [path, text] of byField) {
    const key = path.split('.')[0] as keyof FormErrors;
    e[key] ??= text;
  }
  return e;
}

// ---------- A against B ----------

/** A rate with its 95% interval as a summary writes it: "62.3 % (57–68)". */
export function pctWithInterval(p: number | null, ci: [number, number] | null): string {
  if (p === null) return '–';
  const pct = `${(100 * p).toFixed(1)} %`;
  return ci ? `${pct} (${Math.round(100 * ci[0])}–${Math.round(100 * ci[1])})` : pct;
}

/**
 * A against B in one line: each one's pass@1 with its interval, the questions only one of them solved, and the
 * exact McNemar test on those: "A 62.3 % (57–68) · B 63.7 % (58–69) · 10 solved only by B, 6 only by A ·
 * McNemar p = 0.45: no significant difference". `aOnly`/`bOnly` are counts of questions (never negative).
 */
export function pairLine(
  names: [string, string], stats: [CheckpointStats | undefined, CheckpointStats | undefined], aOnly: number, bOnly: number,
): { rates: string; flips: string; test: string; p: number } {
  const [A, B] = names;
  const rates = `${A} ${pctWithInterval(stats[0]?.pass1 ?? null, stats[0]?.pass1Interval ?? null)} · ${B} ${pctWithInterval(stats[1]?.pass1 ?? null, stats[1]?.pass1Interval ?? null)}`;
  const q = (n: number): string => `${n} question${n === 1 ? '' : 's'}`;
  const flips = aOnly + bOnly === 0 ? 'no question solved by only one of them' : `${bOnly} solved only by ${B}, ${aOnly} only by ${A}`;
  const p = mcnemarExactP(aOnly, bOnly);
  let test: string;
  if (aOnly + bOnly === 0) test = 'McNemar: nothing to test, they agree on every question';
  else if (p < 0.05) test = `McNemar ${formatP(p)}: ${bOnly > aOnly ? B : A} is better on these questions (${q(Math.max(aOnly, bOnly))} against ${Math.min(aOnly, bOnly)})`;
  else test = `McNemar ${formatP(p)}: no significant difference`;
  return { rates, flips, test, p };
}

/** The size of a comparison job as the form shows it; '?' for a field that is not a valid count yet. */
export function jobSize(checkpoints: number, questions: number | '', samples: number | '', available: number | null): string {
  const count = (v: number | '', max: number): number | null => (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= max ? v : null);
  const plural = (n: number | string, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
  const asked = count(questions, 10_000);
  // The job answers the first N questions of the dataset: no more than it has.
  const q = asked === null ? null : available ? Math.min(asked, available) : asked;
  const k = count(samples, 16);
  const total = q !== null && k !== null ? ` = ${plural(checkpoints * q * k, 'trajectory', 'trajectories')}` : '';
  return `${plural(checkpoints, 'checkpoint')} × ${plural(q ?? '?', 'question')} × ${plural(k ?? '?', 'sample')}${total}`;
}
