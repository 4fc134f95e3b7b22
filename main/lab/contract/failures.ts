// The failure breakdown of an evaluation (agent/failures.ts classifies; the evaluation summary counts): why each
// episode the model ended did not solve its question, first class that fits, in this order. Infrastructure
// failures are not the model's and stay out of it (counted apart, as in every rate). Shared with the renderer:
// the run dashboard and Compare draw it from an evaluation's summary.

export const FAILURE_CLASSES = [
  'solved',
  'repetition_loop',
  'format_error',
  'out_of_calls',
  'repeated_question_entity',
  'wrong_answer_in_view',
  'never_saw_answer',
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];
export type FailureCounts = Record<FailureClass, number>;

/** Each class in a few words (a legend, a table row) and what it means (a tooltip). */
export const FAILURE_TEXT: Record<FailureClass, { label: string; hint: string }> = {
  solved: { label: 'solved', hint: 'the answer is correct' },
  repetition_loop: { label: 'repetition loop', hint: 'the policy repeated itself: a short piece of text four times in a row (`Base Base Base Base`, `selselselsel`) or one action three times in a row' },
  format_error: { label: 'format error', hint: 'the episode ended on malformed turns' },
  out_of_calls: { label: 'out of calls', hint: 'the episode ran out of tool calls (or tokens) without answering' },
  repeated_question_entity: { label: 'repeated the question', hint: 'the answer is an entity the question itself names' },
  wrong_answer_in_view: { label: 'wrong, answer in view', hint: 'another name was answered although the right answer stood in an observation the policy had read' },
  never_saw_answer: { label: 'never saw the answer', hint: 'a wrong answer, and no observation ever showed the right one' },
};

/** An evaluation summary's keys for the counts (its metrics record, evals/step-N.jsonl's header, a set's counts). */
export const failureKey = (c: FailureClass): string => `eval/failures/${c}`;

export function failureMetrics(counts: FailureCounts): Record<string, number> {
  return Object.fromEntries(FAILURE_CLASSES.map((c) => [failureKey(c), counts[c]]));
}

/** The counts back from a summary; null when it has none (a run from before the breakdown, an imported one). */
export function failuresOf(summary: Readonly<Record<string, unknown>> | null | undefined): FailureCounts | null {
  if (!summary) return null;
  return asFailureCounts(Object.fromEntries(FAILURE_CLASSES.map((c) => [c, summary[failureKey(c)]])));
}

/** An evaluation report's `failures` as read from a file: the counts when every class has one, else null. */
export function asFailureCounts(x: unknown): FailureCounts | null {
  if (typeof x !== 'object' || x === null) return null;
  const o = x as Record<string, unknown>;
  return FAILURE_CLASSES.every((c) => typeof o[c] === 'number' && Number.isFinite(o[c])) ? (Object.fromEntries(FAILURE_CLASSES.map((c) => [c, o[c]])) as FailureCounts) : null;
}
