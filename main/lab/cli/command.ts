// The shape every `sailor` sub-command takes. A command declares its words, its options and its
// positionals; the dispatcher (cli/index.ts) parses strictly, so an unknown flag or a missing value is
// exit 2 with a message naming it, before the command runs. Progress goes to stderr, results to stdout.
import { LabError } from '../base/errors';
import type { JobKind } from '../contract/jobs';
import type { JobFlags } from './job-flags';

export type OptionSpec = Record<
  string,
  { type: 'string' | 'boolean'; short?: string; multiple?: boolean; description: string; default?: string | boolean }
>;

export interface CliIO {
  out(text: string): void; // results (stdout)
  err(text: string): void; // progress and diagnostics (stderr)
}

export interface CommandContext {
  values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  positionals: string[];
  io: CliIO;
}

export interface CliCommand {
  /** The words after `sailor`, e.g. ['kg', 'build']. */
  path: string[];
  summary: string;
  /** Usage line without the leading `sailor`, e.g. 'kg build --out G.json [--seed ID] [--max-edges N] [--rng S]'. */
  usage: string;
  options: OptionSpec;
  positionals?: { min: number; max: number };
  /** The job whose params this command takes as flags (cli/job-flags.ts), when it has one. */
  job?: JobFlags<JobKind>;
  /** Returns the exit code (default 0). Throw LabError('bad_request' | 'bad_input', …) for exit 2. */
  run(ctx: CommandContext): Promise<number | void>;
}

/** Resolves at the first Ctrl+C (SIGINT) or SIGTERM, for a command that serves or follows until stopped. */
/**
 * Resolves with the signal's name on the first SIGINT or SIGTERM (null once `cancel` aborts the wait). Keeps the
 * process alive meanwhile: a pending promise or a signal listener does not, so a command with nothing else to
 * wait on would otherwise end at once.
 */
export function untilSignal(cancel?: AbortSignal): Promise<NodeJS.Signals | null> {
  return new Promise((resolve) => {
    const alive = setInterval(() => {}, 1 << 30);
    const stop = (signal: NodeJS.Signals | null): void => {
      clearInterval(alive);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      cancel?.removeEventListener('abort', aborted);
      resolve(signal);
    };
    const aborted = (): void => stop(null);
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    cancel?.addEventListener('abort', aborted);
  });
}

export function usageError(message: string): LabError {
  return new LabError('bad_request', message);
}

// Typed readers for option values: each names the flag in its error.

export function optString(ctx: CommandContext, name: string): string | undefined {
  const v = ctx.values[name];
  return typeof v === 'string' ? v : undefined;
}

export function reqString(ctx: CommandContext, name: string): string {
  const v = optString(ctx, name);
  if (v === undefined || v === '') throw usageError(`--${name} is required`);
  return v;
}

export function optInt(ctx: CommandContext, name: string, fallback: number, range?: { min?: number; max?: number }): number {
  const v = optString(ctx, name);
  if (v === undefined) return fallback;
  if (!/^-?\d+$/.test(v)) throw usageError(`--${name} must be a whole number, got '${v}'`);
  const n = Number(v);
  if (range?.min !== undefined && n < range.min) throw usageError(`--${name} must be at least ${range.min}, got ${n}`);
  if (range?.max !== undefined && n > range.max) throw usageError(`--${name} must be at most ${range.max}, got ${n}`);
  return n;
}

export function optNumber(ctx: CommandContext, name: string, fallback: number): number {
  const v = optString(ctx, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw usageError(`--${name} must be a number, got '${v}'`);
  return n;
}

export function flag(ctx: CommandContext, name: string): boolean {
  return ctx.values[name] === true;
}

/** A progress callback that writes `prefix [ 42%] message` lines to stderr. */
export function progressLine(io: { err(text: string): void }, prefix: string): (fraction: number, message: string) => void {
  return (fraction, message) => io.err(`${prefix} [${String(Math.round(fraction * 100)).padStart(3)}%] ${message}\n`);
}

type Option = OptionSpec[string];

/**
 * The options several commands take, each declared once so that they read alike in every `--help`:
 * `options: { ...sharedOptions.graph(), out: {…}, ...sharedOptions.json('the report') }`.
 */
export const sharedOptions = {
  /** `--json`, which printResult reads: `what` is printed as JSON instead of text. */
  json: (what = 'the summary'): { json: Option } => ({ json: { type: 'boolean', description: `print ${what} as JSON` } }),
  /** `--graph`: a graph file the command reads. */
  graph: (description = 'the sailor.graph/1 file'): { graph: Option } => ({ graph: { type: 'string', description } }),
  /** `--graph` of a command that serves or plays on the simulated web of a graph. */
  webGraph: (): { graph: Option } => ({ graph: { type: 'string', description: 'the sailor.graph/1 file the simulated web is built from' } }),
  /** `--home`: the data directory. */
  home: (): { home: Option } => ({ home: { type: 'string', description: 'data directory (default: $SAILOR_HOME or ~/.sailor-lab)' } }),
  /** `--port` of a server the command starts. */
  port: (fallback: number): { port: Option } => ({ port: { type: 'string', description: 'port to listen on (0 picks a free one)', default: String(fallback) } }),
};

/** Prints a result: JSON when --json was given, else the human text. */
export function printResult(ctx: CommandContext, value: unknown, human: () => string): void {
  if (flag(ctx, 'json')) ctx.io.out(JSON.stringify(value, null, 2) + '\n');
  else ctx.io.out(human() + '\n');
}
