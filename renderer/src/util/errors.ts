import { issuesInMessage, wireIssues, type FieldIssue } from '@contract';

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The bad fields of a refused call: the issues main sent (WireError.issues), or, where a transport dropped them,
 * the fields its message names (in general words: that message's own may be the schema's). Null when the
 * refusal was not about fields.
 */
export function issuesOf(err: unknown): FieldIssue[] | null {
  const sent = wireIssues((err as { issues?: unknown } | null)?.issues);
  if (sent?.length) return sent;
  const named = issuesInMessage(message(err));
  return named.length ? named : null;
}
