// What a trained policy reads and writes. A from-scratch model gains nothing from the long system prompt
// (constant, masked out of the loss), and a small one has a short context, so the policy sees a compact
// view: the question, then the turns so far; when that exceeds the context, the question stays pinned at
// the start and the oldest turns fall out of the window. Training windows are cut exactly the way the
// policy's context is cut at inference, so what it learns is what it will see. Pure functions.
import { renderTrajectory, type AgentStep, type Rendered } from '../../agent/react';
import type { MaskedTokens } from '../../model/mask';

/** The trajectory rendered for the policy: spans as renderTrajectory's, the prompt replaced by the question. */
export function policyView(question: string, steps: readonly AgentStep[]): Rendered {
  const full = renderTrajectory(question, steps);
  const prompt = full.spans.find((s) => s.kind === 'prompt');
  const head = `Question: ${question}\n\n`;
  if (!prompt) return full;
  const shift = head.length - (prompt.end - prompt.start);
  return {
    text: head + full.text.slice(prompt.end),
    spans: full.spans.map((s) => (s.kind === 'prompt' ? { ...s, start: 0, end: head.length } : { ...s, start: s.start + shift, end: s.end + shift })),
  };
}

/**
 * The last `maxLen` tokens of ids[0..end) with the first `headLen` (bos + question) pinned in front.
 * Returns indices into the original sequence, so ids and masks slice the same way.
 */
export function windowIndices(end: number, headLen: number, maxLen: number): number[] {
  if (end <= maxLen) return Array.from({ length: end }, (_, i) => i);
  const head = Math.min(headLen, maxLen);
  const tail = maxLen - head;
  return [...Array.from({ length: head }, (_, i) => i), ...Array.from({ length: tail }, (_, i) => end - tail + i)];
}

/**
 * Positions a policy of context `blockSize` is given before it generates a turn: the rest are kept for the
 * turn itself (at most `turnTokens`). Inference (policy.ts policyPrompt) and training (turnWindows) cut
 * the context to this same budget, so the policy is trained on exactly the contexts it will see.
 */
export function promptBudget(blockSize: number, turnTokens: number): number {
  return Math.max(8, blockSize - turnTokens);
}

/**
 * The training examples of one trajectory: for every turn the policy generated (think + action/answer), the
 * context the policy has at inference before that turn, then the turn, with the loss on the turn. A turn
 * that starts within the prompt budget saw its whole prefix, so such turns share one row (causal attention
 * gives each the same logits as its own row would): the loss on all of them. Each later turn gets its own
 * row: the context cut to the budget as policyPrompt cuts it (the question pinned, the most recent tokens
 * after it), then the turn, with the loss on that turn only. Observations and the question never carry loss.
 * Rows are at most blockSize + 1 tokens (a turn longer than turnTokens keeps what fits).
 */
export function turnWindows(tokens: MaskedTokens, blockSize: number, turnTokens: number): MaskedTokens[] {
  const segs = tokens.segments ?? [];
  const prompt = segs.find((s) => s.kind === 'prompt');
  const headLen = prompt ? prompt.end : 0;
  const budget = promptBudget(blockSize, turnTokens);
  const maxLen = blockSize + 1;
  const out: MaskedTokens[] = [];
  let prefixEnd = 0;
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i]!;
    if (s.kind !== 'think') continue;
    // The turn is this think and the action that follows it.
    const next = segs[i + 1];
    const turnEnd = next && next.kind === 'action' ? next.end : s.end;
    // The final turn also learns to stop: include the <|eos|> after it when it is there.
    const end = turnEnd === tokens.ids.length - 1 && tokens.mask[turnEnd] === 1 ? turnEnd + 1 : turnEnd;
    if (s.start <= budget && end <= maxLen) {
      prefixEnd = end;
      continue;
    }
    const context = windowIndices(s.start, headLen, budget);
    const idx = [...context, ...Array.from({ length: end - s.start }, (_, j) => s.start + j)].slice(0, maxLen);
    out.push({
      ids: idx.map((j) => tokens.ids[j]!),
      mask: idx.map((j) => (j >= s.start ? tokens.mask[j]! : 0)),
    });
  }
  if (prefixEnd > 0) out.unshift({ ids: tokens.ids.slice(0, prefixEnd), mask: tokens.mask.slice(0, prefixEnd) });
  return out;
}

/**
 * The training rows with each row whose loss holds an answer turn (a target `<answer>`, id `answerId`)
 * `times` times over, so a uniform draw picks those rows `times` times as often. The rows are shared, not copied.
 */
export function repeatAnswerTurns(rows: readonly MaskedTokens[], answerId: number, times: number): MaskedTokens[] {
  return rows.flatMap((r) => (times > 1 && r.ids.some((id, i) => id === answerId && r.mask[i] === 1) ? Array<MaskedTokens>(times).fill(r) : [r]));
}

/**
 * The questions whose trajectories go to the validation loss instead of training: every `every`-th distinct
 * question, in order of first appearance. Splitting by question, not by trajectory, keeps a question's other expert
 * attempts out of training, so the loss measures questions the model has not seen.
 */
export function validationQuestions(qaIds: readonly string[], every = 10): Set<string> {
  const distinct = [...new Set(qaIds)];
  return new Set(distinct.filter((_, i) => i % every === every - 1));
}
