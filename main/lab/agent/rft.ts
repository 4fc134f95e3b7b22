// RFT cold-start data (docs/pipeline.md, 'RFT cold start'): N expert attempts per QA, then the filters of WebSailor
// 4.1 and WebDancer 3.1 in a fixed order, each counting what it removed: correct final answer (rejection sampling),
// valid format, length within a token budget, more than a minimum number of tool calls, and no 10-gram repeated more
// than 4 times in the generated text.
import type { QA, Trajectory } from '../formats/index';
import type { AgentStep } from './react';
import { renderStepParts } from './react';
import { isCorrect } from '../contract/correct';

export interface RftOptions {
  attempts: number; // N per QA
  maxTokens: number; // generated + observation tokens (the paper: 32k)
  minToolCalls: number; // keep only trajectories with MORE than this many tool calls (the paper: 5)
  ngram: number; // WebDancer: n = 10
  maxRepeat: number; // ... repeated at most 4 times
  maxPerQa: number; // keep at most this many per QA (Infinity: all)
}

export const RFT_DEFAULTS: RftOptions = { attempts: 4, maxTokens: 32_000, minToolCalls: 2, ngram: 10, maxRepeat: 4, maxPerQa: Infinity };

export type RftFilter = 'incorrect' | 'format' | 'too_long' | 'too_few_tool_calls' | 'repetitive' | 'over_quota';

export interface RftReport {
  questions: number;
  attempts: number;
  kept: number;
  questions_kept: number;
  removed: Record<RftFilter, number>;
}

/** The model-generated text of a trajectory: thoughts and actions, without prompt or observations. */
export function generatedText(traj: Pick<Trajectory, 'steps'>): string {
  return (traj.steps as AgentStep[]).map((s) => {
    const p = renderStepParts(s);
    return p.think + p.action;
  }).join('');
}

/** The highest number of occurrences of any n-gram of whitespace tokens (lowercased). */
export function maxNgramCount(text: string, n: number): number {
  const toks = text.toLowerCase().split(/\s+/).filter(Boolean);
  const counts = new Map<string, number>();
  let best = 0;
  for (let i = 0; i + n <= toks.length; i++) {
    const key = toks.slice(i, i + n).join(' ');
    const c = (counts.get(key) ?? 0) + 1;
    counts.set(key, c);
    if (c > best) best = c;
  }
  return best;
}

/** Which filter (in order) removes this trajectory, or null to keep it. */
export function rftVerdict(t: Trajectory, opts: RftOptions = RFT_DEFAULTS): Exclude<RftFilter, 'over_quota'> | null {
  if (!isCorrect(t.reward)) return 'incorrect';
  if (t.reward.format < 1) return 'format';
  if (t.tokens.generated + t.tokens.observation > opts.maxTokens) return 'too_long';
  if (t.tool_calls <= opts.minToolCalls) return 'too_few_tool_calls';
  if (maxNgramCount(generatedText(t), opts.ngram) > opts.maxRepeat) return 'repetitive';
  return null;
}

/** Applies the filters to scored trajectories (reward filled in). Keeps input order. */
export function filterTrajectories(trajs: readonly Trajectory[], options: Partial<RftOptions> = {}): { kept: Trajectory[]; report: RftReport } {
  const opts = { ...RFT_DEFAULTS, ...options };
  const removed: Record<RftFilter, number> = { incorrect: 0, format: 0, too_long: 0, too_few_tool_calls: 0, repetitive: 0, over_quota: 0 };
  const perQa = new Map<string, number>();
  const kept: Trajectory[] = [];
  for (const t of trajs) {
    const v = rftVerdict(t, opts);
    if (v) {
      removed[v]++;
      continue;
    }
    const n = perQa.get(t.qa_id) ?? 0;
    if (n >= opts.maxPerQa) {
      removed.over_quota++;
      continue;
    }
    perQa.set(t.qa_id, n + 1);
    kept.push(t);
  }
  return {
    kept,
    report: {
      questions: new Set(trajs.map((t) => t.qa_id)).size,
      attempts: trajs.length,
      kept: kept.length,
      questions_kept: perQa.size,
      removed,
    },
  };
}

/** N attempts per QA through `attempt` (a scored rollout), then the filters. */
export async function buildRft(
  qas: readonly QA[],
  attempt: (qa: QA, index: number) => Promise<Trajectory>,
  options: Partial<RftOptions> = {},
): Promise<{ kept: Trajectory[]; report: RftReport }> {
  const opts = { ...RFT_DEFAULTS, ...options };
  const all: Trajectory[] = [];
  for (const qa of qas) for (let i = 0; i < opts.attempts; i++) all.push(await attempt(qa, i));
  return filterTrajectories(all, opts);
}
