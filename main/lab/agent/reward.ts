// Rewards (docs/pipeline.md, 'RL (DUPO, DAPO, GRPO)'): R = w_f * format + w_a * answer, 0.1 / 0.9 by default. Format:
// every segment tagged and the turns follow ReAct. Answer: normalised exact match against the answer and its aliases
// (the knowledge base's other names), standard forms counting ("City of X" is X, answer-forms.ts),
// or word-level F1 (ASearcher, for base models), or an LLM judge through the chat adapter.
import type { QA, Reward, Trajectory } from '../formats/index';
import type { AgentStep } from './react';
import type { ChatFn } from './thoughts';
import { normalizeAnswer } from './text';
import { namesGold } from './answer-forms';
import { LabError } from '../base/errors';

export type AnswerMode = 'em' | 'f1' | 'judge';

export interface RewardOptions {
  formatWeight: number;
  answerWeight: number;
  mode: AnswerMode;
  /** 'sum': w_f * format + w_a * answer; 'product': format * answer (ASearcher's F1 x format). */
  combine: 'sum' | 'product';
  /**
   * 'episode': the format reward is 1 only for a wholly well-formed episode (formatScore); 'turns': the share
   * of well-formed turns (turnFormatScore), a graded signal for a small policy whose episodes are rarely
   * perfect, so that its RL groups are not all zero-std.
   */
  formatCredit: 'episode' | 'turns';
}

export const REWARD_DEFAULTS: RewardOptions = { formatWeight: 0.1, answerWeight: 0.9, mode: 'em', combine: 'sum', formatCredit: 'episode' };

export function goldAnswers(qa: Pick<QA, 'answer' | 'aliases'>): string[] {
  return [qa.answer, ...(qa.aliases ?? [])].filter((a) => typeof a === 'string' && a.trim() !== '');
}

/** 1 when the prediction names a gold answer: the same normalised text or the same standard form (answer-forms.ts). */
export function exactMatch(prediction: string | null, golds: readonly string[]): number {
  return prediction !== null && namesGold(prediction, golds) ? 1 : 0;
}

/** Word-level F1 (SQuAD), the best over the gold answers. */
export function tokenF1(prediction: string | null, golds: readonly string[]): number {
  if (prediction === null) return 0;
  const p = normalizeAnswer(prediction).split(' ').filter(Boolean);
  let best = 0;
  for (const g of golds) {
    const t = normalizeAnswer(g).split(' ').filter(Boolean);
    if (p.length === 0 || t.length === 0) continue;
    const counts = new Map<string, number>();
    for (const w of t) counts.set(w, (counts.get(w) ?? 0) + 1);
    let common = 0;
    for (const w of p) {
      const c = counts.get(w) ?? 0;
      if (c > 0) {
        common++;
        counts.set(w, c - 1);
      }
    }
    if (common === 0) continue;
    const precision = common / p.length;
    const recall = common / t.length;
    best = Math.max(best, (2 * precision * recall) / (precision + recall));
  }
  return best;
}

/**
 * 1 when the trajectory is well-formed ReAct: every turn parsed cleanly (think then exactly one tagged
 * action, valid JSON, a known tool), every tool call got an observation, and it ends with an answer.
 */
export function formatScore(traj: Pick<Trajectory, 'steps' | 'prediction'>): number {
  const steps = traj.steps as AgentStep[];
  if (steps.length === 0 || traj.prediction === null) return 0;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    if (s.action.name === 'format_error' || (s.issues && s.issues.length > 0)) return 0;
    const last = i === steps.length - 1;
    if (last !== (s.action.name === 'answer')) return 0;
    if (!last && s.observation === undefined) return 0;
  }
  return 1;
}

/**
 * The share of an episode's turns that are well-formed, the final answer counting as one more turn (0 when the
 * episode never answered), halved when it never answered: 1 exactly when formatScore is 1. Without the halving
 * a policy that cannot yet answer correctly learns to make clean tool calls until the limit and never answer.
 */
export function turnFormatScore(traj: Pick<Trajectory, 'steps' | 'prediction'>): number {
  const steps = traj.steps as AgentStep[];
  const answered = steps.length > 0 && steps[steps.length - 1]!.action.name === 'answer' && traj.prediction !== null;
  const turns = steps.length + (answered ? 0 : 1);
  const clean = steps.filter((s, i) => s.action.name !== 'format_error' && !(s.issues && s.issues.length > 0) && (i === steps.length - 1 || s.observation !== undefined)).length;
  return turns === 0 ? 0 : (clean / turns) * (answered ? 1 : 0.5);
}

/** A judge decides whether a prediction is correct; 1 or 0 (or a graded score in [0, 1]). */
export type Judge = (question: string, golds: readonly string[], prediction: string) => Promise<number>;

/** An LLM-as-judge through the chat adapter; the reply must start with "correct" or "incorrect". */
export function chatJudge(chat: ChatFn): Judge {
  return async (question, golds, prediction) => {
    const reply = await chat([
      {
        role: 'user',
        content: [
          'Judge whether the predicted answer to the question is correct, given the gold answer(s).',
          `Question: ${question}`,
          `Gold answer(s): ${golds.join(' | ')}`,
          `Predicted answer: ${prediction}`,
          'Reply with exactly one word: correct or incorrect.',
        ].join('\n'),
      },
    ]);
    return /^\W*correct\b/i.test(reply.trim()) ? 1 : 0;
  };
}

export function combineReward(format: number, answer: number, opts: Pick<RewardOptions, 'formatWeight' | 'answerWeight' | 'combine'> = REWARD_DEFAULTS): Reward {
  const total = opts.combine === 'product' ? format * answer : opts.formatWeight * format + opts.answerWeight * answer;
  return { format, answer, total: Math.round(total * 1e6) / 1e6 };
}

export async function scoreTrajectory(
  traj: Trajectory,
  qa: Pick<QA, 'question' | 'answer' | 'aliases'>,
  options: Partial<RewardOptions> = {},
  judge?: Judge,
): Promise<Reward> {
  const opts = { ...REWARD_DEFAULTS, ...options };
  const golds = goldAnswers(qa);
  const format = opts.formatCredit === 'turns' ? turnFormatScore(traj) : formatScore(traj);
  let answer: number;
  if (opts.mode === 'f1') answer = tokenF1(traj.prediction, golds);
  else if (opts.mode === 'judge') {
    if (!judge) throw new LabError('bad_request', "reward mode 'judge' needs a judge: configure the chat adapter (chatJudge)");
    // Exact matches need no judge call; everything else is asked.
    answer = traj.prediction === null ? 0 : exactMatch(traj.prediction, golds) || (await judge(qa.question, golds, traj.prediction));
  } else answer = exactMatch(traj.prediction, golds);
  return combineReward(format, answer, opts);
}
