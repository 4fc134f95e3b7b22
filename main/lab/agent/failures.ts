// Why an episode did not solve its question (contract/failures.ts names the classes): a pure classifier over the
// trajectory and its question's gold answers, and the counts over a set. The "answer in view" rule is the one
// train/policy/chain.ts uses for a chain's bridge (mentions.ts firstSighting), so the two analyses agree.
import { isCorrect } from '../contract/correct';
import { FAILURE_CLASSES, type FailureClass, type FailureCounts } from '../contract/failures';
import { isInfrastructureFailure, type QA, type Trajectory } from '../formats/index';
import type { AgentStep } from './react';
import { generatedText } from './rft';
import { firstSighting, mentions } from './mentions';
import { normalizeAnswer } from './text';

/** What the classifier needs of a question: its text, and the right answer with its aliases. */
export interface Gold {
  question: string;
  answers: readonly string[];
}

export const goldOfQa = (qa: Pick<QA, 'question' | 'answer' | 'aliases'>): Gold => ({ question: qa.question, answers: [qa.answer, ...qa.aliases] });

/** A trajectory's own gold, where it carries one (an imported verl rollout: `question`, `answers`). */
export function goldOfTrajectory(t: Trajectory): Gold | undefined {
  const { question, answers } = t;
  if (typeof question !== 'string' || !Array.isArray(answers) || !answers.every((a) => typeof a === 'string')) return undefined;
  return { question, answers: answers as string[] };
}

/** Each trajectory's gold: its question's among `qas` by QA id, else its own. */
export function goldLookup(qas: readonly Pick<QA, 'id' | 'question' | 'answer' | 'aliases'>[] = []): (t: Trajectory) => Gold | undefined {
  const byId = new Map(qas.map((q) => [q.id, goldOfQa(q)]));
  return (t) => byId.get(t.qa_id) ?? goldOfTrajectory(t);
}

export type FailureEpisode = Pick<Trajectory, 'steps' | 'prediction' | 'termination' | 'reward'>;

// A piece of 2-24 characters with a letter in it, four times in a row: `Base Base Base Base `, `selselselsel`.
const REPEATED_PIECE = /(.{2,24}?)\1{3,}/gsu;
const ACTION_REPEATS = 3;

/** Whether the policy looped: a short piece of its text four times in a row, or one action three times running. */
export function isRepetitionLoop(steps: readonly AgentStep[]): boolean {
  for (const m of generatedText({ steps: [...steps] }).matchAll(REPEATED_PIECE)) if (/\p{L}/u.test(m[1]!)) return true;
  // Tool calls only: three malformed turns in a row (which end an episode) all read as the same 'format_error'.
  const keys = steps.map((s, i) => (s.action.name === 'format_error' ? `malformed ${i}` : `${s.action.name} ${JSON.stringify(s.action.arguments)}`));
  return keys.some((k, i) => i + ACTION_REPEATS <= keys.length && keys.slice(i, i + ACTION_REPEATS).every((x) => x === k));
}

/**
 * The class of one episode, first that fits: solved; a repetition loop (whatever it ended in: the loop explains
 * the rest); a format error; out of tool calls or tokens; then, for a wrong answer, the question's own entity
 * answered, the right answer in an observation it read, or never shown. Null for an infrastructure failure
 * (policy_error, tool_error), which is not the model's.
 */
export function classifyFailure(t: FailureEpisode, gold: Gold): FailureClass | null {
  if (isInfrastructureFailure(t.termination)) return null;
  if (isCorrect(t.reward)) return 'solved';
  const steps = t.steps as AgentStep[];
  if (isRepetitionLoop(steps)) return 'repetition_loop';
  if (t.termination === 'format_error') return 'format_error';
  if (t.termination !== 'answer') return 'out_of_calls';
  const said = t.prediction ?? '';
  if (normalizeAnswer(said) !== '' && mentions(gold.question, said)) return 'repeated_question_entity';
  return firstSighting(steps, gold.answers) >= 0 ? 'wrong_answer_in_view' : 'never_saw_answer';
}

/**
 * The counts over a set. `goldOf` finds each trajectory's question; one it cannot find (its dataset gone) is
 * left out, as are infrastructure failures, so the counts add up to the episodes classified.
 */
export function failureCounts(trajs: readonly Trajectory[], goldOf: (t: Trajectory) => Gold | undefined): FailureCounts {
  const counts = Object.fromEntries(FAILURE_CLASSES.map((c) => [c, 0])) as FailureCounts;
  for (const t of trajs) {
    const gold = goldOf(t);
    const c = gold ? classifyFailure(t, gold) : null;
    if (c) counts[c]++;
  }
  return counts;
}
