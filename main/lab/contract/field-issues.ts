// A form's problems by field, for every form and both sides: main names each bad field of a refused call
// (`jobs.start`, `runs.start`) in its message and hands the same list on the wire (WireError.issues); the
// renderer checks a form with the same schema before it sends, and shows each issue beside its field under
// the form's own label. Messages here are words ("must be at least 10"), never zod's ("Too small: expected
// number to be >=10"); a message may mention another field as `{dotted.path}`, which each side names its way
// (main: the path; a form: its label).
import type { z } from 'zod';
import { JOB_PARAMS, type JobKind } from './jobs';

/** One bad field: its dotted path in the params or config, and what is wrong, in words. */
export interface FieldIssue {
  path: string;
  message: string;
}

/** What a zod issue carries that the words depend on (zod 4's issue, loosely: fields differ by code). */
interface ZodIssueLike {
  code: string;
  message: string;
  path: PropertyKey[];
  origin?: unknown;
  expected?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  inclusive?: boolean;
  format?: unknown;
  keys?: unknown;
  params?: Record<string, unknown>;
}

const big = (v: unknown): string => (typeof v === 'number' && Math.abs(v) >= 1e5 ? v.toLocaleString('en-US') : String(v));

/** How zod 4's own messages begin ("Too small: expected number to be >=10", "Invalid input: …"). */
const ZOD_DEFAULT_MESSAGE = /^(Invalid|Too (small|big)|Unrecognized key|Expected)\b/;

/**
 * A schema issue in words. A rule's own message (a custom issue, a regex's message) is already words: a
 * custom issue may carry `params.words`, the form's version with `{path}` mentions, and then that is used.
 */
export function describeIssue(issue: ZodIssueLike): string {
  const words = issue.params?.words;
  if (typeof words === 'string') return words;
  // A schema's own message for a check (`.min(1, 'choose a policy: …')`) is words already; zod's defaults are not.
  if (issue.code !== 'invalid_format' && issue.message && !ZOD_DEFAULT_MESSAGE.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'too_big':
      if (issue.origin === 'string') return `at most ${big(issue.maximum)} characters`;
      if (issue.origin === 'array') return `at most ${big(issue.maximum)}`;
      return issue.inclusive === false ? `must be less than ${big(issue.maximum)}` : `must be at most ${big(issue.maximum)}`;
    case 'too_small':
      if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? 'required' : `at least ${big(issue.minimum)} characters`;
      if (issue.origin === 'array') return `at least ${big(issue.minimum)}`;
      return issue.inclusive === false ? `must be greater than ${big(issue.minimum)}` : `must be at least ${big(issue.minimum)}`;
    case 'invalid_type':
      if (issue.expected === 'int') return 'must be a whole number';
      if (issue.expected === 'number') return 'enter a number';
      return 'required';
    case 'invalid_format':
      if (issue.format === 'safeint') return 'must be a whole number';
      // A regex with its own message (`letters, digits and . _ : - only`) says it better than "invalid".
      return issue.format === 'regex' && issue.message && !/^Invalid/.test(issue.message) ? issue.message : 'not in the expected form';
    case 'invalid_value':
      return 'not one of the choices';
    case 'unrecognized_keys':
      return `not a setting this form knows: ${Array.isArray(issue.keys) ? issue.keys.join(', ') : '?'}`;
    case 'custom':
      return issue.message;
    default:
      return 'not accepted';
  }
}

/** Every issue of a failed parse, at its dotted path, in words; the first issue of a path wins. */
export function fieldIssues(error: { issues: readonly unknown[] }): FieldIssue[] {
  const seen = new Set<string>();
  const out: FieldIssue[] = [];
  for (const raw of error.issues) {
    const issue = raw as ZodIssueLike;
    const path = issue.path.map(String).join('.');
    if (seen.has(path)) continue;
    seen.add(path);
    out.push({ path, message: describeIssue(issue) });
  }
  return out;
}

/** A form's params checked against a schema: [] when they pass. */
export function schemaIssues(schema: z.ZodType, value: unknown): FieldIssue[] {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : fieldIssues(parsed.error);
}

/** A job kind's params checked as main's job manager checks them (contract/jobs.ts JOB_PARAMS). */
export function jobParamIssues(kind: JobKind, params: unknown): FieldIssue[] {
  return schemaIssues(JOB_PARAMS[kind], params ?? {});
}

/** A message with its `{path}` mentions named: main passes the path itself, a form its label. */
export function nameMentions(message: string, name: (path: string) => string): string {
  return message.replace(/\{([A-Za-z][\w]*(?:\.[A-Za-z][\w]*)*)\}/g, (_, path: string) => name(path));
}

/** Issues as main's message has them: `maxEdges: must be at least 10; rng: …` (mentions named by path). */
export function issuesText(issues: readonly FieldIssue[]): string {
  return issues.map((i) => `${i.path || '(params)'}: ${nameMentions(i.message, (p) => p)}`).join('; ');
}

/**
 * Issues keyed by the form's fields, each message led by the field's label ("max edges: must be at least 10")
 * and its mentions named by label. `labels` maps a path to what the form calls it; an issue at a path the form
 * does not show goes to `other`, under the nearest labelled parent or in general words, never its path.
 */
export function labelIssues(
  issues: readonly FieldIssue[], labels: Readonly<Record<string, string>>, mentions: Readonly<Record<string, string>> = {},
): { byField: Map<string, string>; other: string[] } {
  const name = (p: string): string => mentions[p] ?? labels[p] ?? 'another setting';
  const byField = new Map<string, string>();
  const other: string[] = [];
  for (const i of issues) {
    const text = nameMentions(i.message, name);
    const label = labels[i.path];
    if (label !== undefined) {
      if (!byField.has(i.path)) byField.set(i.path, `${label}: ${text}`);
      continue;
    }
    const parent = Object.keys(labels).find((p) => i.path.startsWith(p + '.'));
    other.push(parent ? `${labels[parent]}: ${text}` : `A setting this form does not show was refused: ${text}`);
  }
  return { byField, other };
}

/** The issues a refused call carries on the wire (WireError.issues), checked: a transport may drop or mangle them. */
export function wireIssues(x: unknown): FieldIssue[] | null {
  if (!Array.isArray(x)) return null;
  const ok = x.every((i) => typeof i === 'object' && i !== null && typeof (i as FieldIssue).path === 'string' && typeof (i as FieldIssue).message === 'string');
  return ok ? (x as FieldIssue[]) : null;
}

/**
 * The fields named in a refusal's message when the issues themselves did not come (`<kind> job: invalid params:
 * a.b: …; c: …`, `run config: sft.steps: …`): the paths only, with a message in words. The issue's own words
 * are not kept: on this path they may be zod's.
 */
export function issuesInMessage(message: string): FieldIssue[] {
  const tail = /(?:invalid params|run config): (.*)$/s.exec(message)?.[1];
  if (!tail) return [];
  const out: FieldIssue[] = [];
  for (const part of tail.split('; ')) {
    // `jobs.start: invalid params: params.datasetId: …`: the method's own check, one level up.
    const path = /^([A-Za-z][\w]*(?:\.[A-Za-z0-9_]+)*): /.exec(part)?.[1]?.replace(/^params\./, '');
    if (path && !out.some((i) => i.path === path)) out.push({ path, message: 'refused by the lab core: check this value' });
  }
  return out;
}
