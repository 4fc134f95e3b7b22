// What counts as a correct answer, written once for main and the renderer: the answer reward at full credit.
// With exact match (the default) the answer reward is 0 or 1; with F1 it is 1 only when the prediction's words
// are the gold answer's. The margin keeps a reward that went through float32 or JSON (a verl dump's score)
// at 1. Everything else that asks "solved?" (evaluation, the RL pool, RFT, Compare, the inspector) asks this.
import type { Reward } from '../formats';

const FULL_CREDIT = 1 - 1e-9;

export function isCorrect(reward: Pick<Reward, 'answer'>): boolean {
  return reward.answer >= FULL_CREDIT;
}

/** How the inspector marks an answer: correct, partial credit (F1 between 0 and 1), or wrong. */
export type AnswerGrade = 'correct' | 'partial' | 'wrong';

export function answerGrade(reward: Pick<Reward, 'answer'>): AnswerGrade {
  return isCorrect(reward) ? 'correct' : reward.answer > 0 ? 'partial' : 'wrong';
}
