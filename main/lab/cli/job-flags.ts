// A command's flags from its job's params (contract/jobs.ts), so `sailor <cmd> --help`, the UI forms and the
// job manager say the same thing: names in kebab case, defaults, ranges, choices and help text come from the
// zod schema (its JSON Schema, zod 4's z.toJSONSchema). Parsing turns the flags into the params object and
// checks it with the same schema; a refusal names the `--flag` in words (contract/field-issues.ts), exit 2.
import { z } from 'zod';
import { JOB_PARAMS, type JobKind, type JobParams, type JobParamsInput } from '../contract/jobs';
import { fieldIssues, nameMentions, type FieldIssue } from '../contract/field-issues';
import { usageError, type CommandContext, type OptionSpec } from './command';

/** How a command takes its job's params. */
export interface JobFlags<K extends JobKind> {
  kind: K;
  /** Params that are no flags of this command: the store's (a name) or ones it takes its own way (a file). */
  omit: ReadonlyArray<keyof JobParamsInput<K> & string>;
  /** Stand-ins for required params the command fills from a file it reads (`graphId` from --graph). */
  standIns?: Partial<JobParamsInput<K>>;
  /** Defaults applied further on when a flag is left out (synth/options.ts): shown in help, defined there. */
  engineDefaults?: Partial<Record<keyof JobParamsInput<K> & string, string | number | boolean>>;
}

/** What a param's JSON Schema says that a flag needs. */
export interface ParamSchema {
  type?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  description?: string;
  items?: { type?: string };
}

export const kebabCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const big = (v: number): string => (Math.abs(v) >= 1e5 ? v.toLocaleString('en-US') : String(v));

/** The params a command takes as flags, in the schema's order, with each one's JSON Schema. */
export function jobFlagParams<K extends JobKind>(binding: JobFlags<K>): Array<{ param: string; flag: string; schema: ParamSchema }> {
  const json = z.toJSONSchema(JOB_PARAMS[binding.kind], { io: 'input' }) as { properties?: Record<string, ParamSchema> };
  const omitted = new Set<string>(binding.omit);
  return Object.entries(json.properties ?? {})
    .filter(([param]) => !omitted.has(param))
    .map(([param, schema]) => ({ param, flag: kebabCase(param), schema }));
}

/** A flag's help: the schema's description, then its choices or range. */
function helpOf(s: ParamSchema): string {
  const parts = [s.description ?? ''];
  if (s.enum) parts.push(`(one of ${s.enum.join(', ')})`);
  else if (s.minimum !== undefined && s.maximum !== undefined) parts.push(`(${big(s.minimum)} to ${big(s.maximum)})`);
  else if (s.minimum !== undefined) parts.push(`(at least ${big(s.minimum)})`);
  if (s.type === 'array') parts.push('(comma-separated)');
  return parts.filter(Boolean).join(' ');
}

/** The command-line options of a job's params (declare the command's own extras beside them). */
export function jobOptions<K extends JobKind>(binding: JobFlags<K>): OptionSpec {
  const engine = (binding.engineDefaults ?? {}) as Record<string, unknown>;
  const out: OptionSpec = {};
  for (const { param, flag, schema } of jobFlagParams(binding)) {
    const shown = schema.default ?? engine[param];
    out[flag] = {
      type: schema.type === 'boolean' ? 'boolean' : 'string',
      description: helpOf(schema),
      ...(shown !== undefined && schema.type !== 'boolean' ? { default: String(shown) } : {}),
    };
  }
  return out;
}

/** One flag's text as the param's JSON type; the schema then checks the value. */
function valueOf(flag: string, schema: ParamSchema, raw: string | boolean): unknown {
  if (typeof raw === 'boolean') return raw;
  if (schema.type === 'integer' || schema.type === 'number') {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n)) throw usageError(`--${flag} must be a number, got '${raw}'`);
    return n;
  }
  if (schema.type === 'array') return raw.trim() === 'none' ? [] : raw.split(',').map((s) => s.trim()).filter(Boolean);
  return raw;
}

/**
 * The job's params from a command's flags, checked by the job's schema (defaults in). Flags left out take the
 * schema's defaults; the command's stand-ins fill what it reads from files. Throws a usage error naming each
 * bad `--flag` (exit 2).
 */
export function parseJobFlags<K extends JobKind>(ctx: CommandContext, binding: JobFlags<K>): JobParams<K> {
  const flags = jobFlagParams(binding);
  const params: Record<string, unknown> = {};
  const flagOf = new Map<string, string>();
  for (const { param, flag, schema } of flags) {
    flagOf.set(param, flag);
    const raw = ctx.values[flag];
    if (typeof raw === 'string' || typeof raw === 'boolean') params[param] = valueOf(flag, schema, raw);
  }
  const parsed = JOB_PARAMS[binding.kind].safeParse({ ...params, ...binding.standIns });
  if (parsed.success) return parsed.data as JobParams<K>;
  const name = (path: string): string => {
    const flag = flagOf.get(path.split('.')[0]!); // `kinds.0`: the flag of the list
    return flag ? `--${flag}` : path;
  };
  const words = (i: FieldIssue): string => {
    const choices = flags.find((f) => f.param === i.path)?.schema.enum;
    return i.message === 'not one of the choices' && choices ? `must be one of ${choices.join(', ')}` : nameMentions(i.message, name);
  };
  throw usageError(fieldIssues(parsed.error).map((i) => `${name(i.path)}: ${words(i)}`).join('; '));
}
