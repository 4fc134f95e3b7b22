// verl's metrics file as the lab's metric records. verl's `trainer.logger=file` backend (verl/utils/tracking.py,
// FileLogger.log) writes one `{"step": N, "data": {"metric/name": value}}` per line with orjson, so a NaN or an
// infinity arrives as null. The names that mean what a lab chart means are renamed onto the lab's names
// (VERL_METRIC_NAMES); every other metric is kept under its own name and shows in the dashboard's "all metrics".
// Pure: the reading of files is in verl-import.ts.
import { excerpt, inputError, jsonSyntaxMessage } from '../base/errors';
import { describeValue } from '../util/fields';

/**
 * verl's name -> the lab's name, for metrics that measure the same thing (docs/formats.md, 'Runs and the data
 * directory'). Names verl and the lab already share (`actor/entropy`, `actor/pg_loss`, `actor/pg_clipfrac`,
 * `actor/grad_norm`, `actor/lr`) pass through unchanged. Not mapped on purpose: `num_turns/mean` (verl counts
 * user and assistant turns plus one, the lab counts the policy's turns), `actor/pg_clipfrac_lower` (dual-clip's
 * lower bound, not clip-higher's low side), `perf/throughput` (all tokens per GPU, not generated tokens per s).
 */
export const VERL_METRIC_NAMES: Readonly<Record<string, string>> = {
  'critic/score/mean': 'reward/mean', // the sequence score: the exported reward is the lab's 0.1 format + 0.9 answer
  'actor/ppo_kl': 'actor/approx_kl',
  'response_length/mean': 'rollout/response_tokens_mean',
  'tool_call_counts/mean': 'rollout/tool_calls_mean',
  'timing_s/gen': 'timing/rollout_s',
  'timing_s/update_actor': 'timing/update_s',
};

/** `val-core/<data_source>/acc/mean@N`: verl's core validation accuracy (a data source may hold slashes). */
const VAL_CORE_ACC = /^val-core\/(.+)\/acc\/mean@\d+$/;

/** One verl log line: its step and its numeric metrics (null, strings and other values dropped). */
export interface VerlRecord {
  step: number;
  data: Record<string, number>;
  /** How many values were not finite numbers (verl's NaN is null): dropped, not imported. */
  dropped: number;
}

/**
 * The lab's metrics of one verl record. The accuracy of the only data source validated becomes `eval/pass@1`
 * (mean@N of `acc` over N samples per question is the expected pass@1); with several data sources each keeps
 * its own name, because the lab has one pass@1 per run.
 */
export function mapVerlMetrics(data: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  const accs = Object.keys(data).filter((k) => VAL_CORE_ACC.test(k));
  const sources = new Set(accs.map((k) => VAL_CORE_ACC.exec(k)![1]));
  for (const [name, value] of Object.entries(data)) {
    const lab = VERL_METRIC_NAMES[name] ?? (sources.size === 1 && VAL_CORE_ACC.test(name) ? 'eval/pass@1' : name);
    out[lab] = value;
  }
  return out;
}

const FILE_SHAPE = 'expected one {"step": N, "data": {"metric/name": value}} per line, as verl writes with trainer.logger=file';

/** Checks one parsed line of a verl metrics file; errors name the file and line. */
export function checkVerlLine(value: unknown, file: string, line: number): VerlRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw inputError(file, `not a verl metrics file: ${FILE_SHAPE}`, { line });
  const v = value as Record<string, unknown>;
  if (!('data' in v) || !('step' in v)) {
    const keys = Object.keys(v).slice(0, 6).map((k) => (/^[\x20-\x7e]{0,40}$/.test(k) ? k : excerpt(k, 40))).join(', ') || 'none';
    throw inputError(file, `not a verl metrics file: ${FILE_SHAPE}; this line has the keys ${keys}`, { line });
  }
  if (typeof v.step !== 'number' || !Number.isInteger(v.step) || v.step < 0) throw inputError(file, `expected a whole number >= 0, got ${describeValue(v.step)}`, { line, field: 'step' });
  if (typeof v.data !== 'object' || v.data === null || Array.isArray(v.data)) throw inputError(file, `expected an object of metrics, got ${describeValue(v.data)}`, { line, field: 'data' });
  const data: Record<string, number> = {};
  let dropped = 0;
  for (const [k, x] of Object.entries(v.data as Record<string, unknown>)) {
    if (typeof x === 'number' && Number.isFinite(x)) data[k] = x;
    else dropped++;
  }
  return { step: v.step, data, dropped };
}

/** A chunk of a JSON Lines file split at its last newline: the complete lines and the unfinished rest. */
export function splitCompleteLines(text: string): { lines: string[]; rest: string } {
  const end = text.lastIndexOf('\n');
  if (end < 0) return { lines: [], rest: text };
  return { lines: text.slice(0, end).split('\n'), rest: text.slice(end + 1) };
}

/** Parses complete lines of a verl metrics file, numbered from `firstLine`; blank lines are skipped. */
export function parseVerlLines(lines: readonly string[], file: string, firstLine = 1): VerlRecord[] {
  const out: VerlRecord[] = [];
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw) as unknown;
    } catch (err) {
      throw inputError(file, `not valid JSON (${jsonSyntaxMessage(err)})`, { line: firstLine + i });
    }
    out.push(checkVerlLine(value, file, firstLine + i));
  });
  return out;
}

/**
 * A whole metrics file as verl records. A last line without its newline is verl still writing (or a cut file):
 * refused, so that nothing is imported half; `--follow` waits for it instead.
 */
export function parseVerlMetricsText(text: string, file: string): VerlRecord[] {
  const { lines, rest } = splitCompleteLines(text);
  if (rest.trim() !== '') {
    throw inputError(file, 'the last line has no newline yet (verl is still writing it, or the file was cut): nothing imported; import again once it is complete, or use --follow', {
      line: lines.length + 1,
    });
  }
  const records = parseVerlLines(lines, file);
  if (!records.length) throw inputError(file, `no metrics: ${FILE_SHAPE}`);
  return records;
}
