// When two answers name the same entity. Exact match compares normalised text (normalizeAnswer); on top of
// that an entity may be named in a standard form: "City of Freeport" is Freeport, "St. Louis" is Saint Louis,
// "Procter & Gamble" is Procter and Gamble. Its other names (the knowledge base's aliases) are gold answers
// of their own (goldAnswers). Evaluation and the RL reward both score through exactMatch, so both see this;
// resources/verl/sailor_reward.py mirrors it for verl (tests/unit/verl-reward.test.ts keeps them equal).
import { normalizeAnswer } from './text';

/** "City of X" and the like name the settlement X. */
const SETTLEMENT_PREFIXES = ['city of', 'town of', 'village of', 'municipality of', 'borough of', 'township of'];

/** Abbreviations spelt out, word by word. */
const ABBREVIATIONS: Record<string, string> = { st: 'saint', mt: 'mount', ft: 'fort' };

/**
 * The standard form of an answer: normalised, abbreviations spelt out, 'and' dropped ('&' is not a word, so
 * "A & B" and "A and B" meet), and a settlement prefix removed when a name remains after it.
 */
export function standardForm(text: string): string {
  const ws = normalizeAnswer(text)
    .split(' ')
    .filter((w) => w !== '' && w !== 'and')
    .map((w) => (Object.hasOwn(ABBREVIATIONS, w) ? ABBREVIATIONS[w]! : w));
  const joined = ws.join(' ');
  for (const prefix of SETTLEMENT_PREFIXES) if (joined.startsWith(`${prefix} `)) return joined.slice(prefix.length + 1);
  return joined;
}

/** True when the prediction names one of the gold answers, in the same normalised text or the same standard form. */
export function namesGold(prediction: string, golds: readonly string[]): boolean {
  const p = normalizeAnswer(prediction);
  if (p === '') return false;
  const ps = standardForm(prediction);
  return golds.some((g) => normalizeAnswer(g) === p || (ps !== '' && standardForm(g) === ps));
}

/**
 * How a prediction fares under each answer matching, strictest first: `plain`, the gold answer's normalised
 * text only; `aliases`, any of its knowledge-base names; `forms`, those or their standard forms (what
 * evaluation and the reward use now). bench/research/answer-matching.ts re-grades a run's evaluations with it.
 */
export function matchLevels(prediction: string | null, answer: string, aliases: readonly string[] = []): { plain: boolean; aliases: boolean; forms: boolean } {
  const p = prediction === null ? '' : normalizeAnswer(prediction);
  if (p === '') return { plain: false, aliases: false, forms: false };
  const golds = [answer, ...aliases];
  return { plain: normalizeAnswer(answer) === p, aliases: golds.some((g) => normalizeAnswer(g) === p), forms: namesGold(prediction!, golds) };
}
