// Chained questions (two hops and more): the bridge entities between what a question names and its answer,
// what a policy's context window keeps of them turn by turn, and why an episode on such a question failed.
// Pure functions over a trajectory's steps and the windows the policy read (policy.ts policyPrompt, decoded).
import type { QA } from '../../formats';
import type { AgentStep } from '../../agent/react';
import { normalizeAnswer } from '../../agent/text';
import { actionText, firstSighting, firstUse, mentions, nearCopy } from '../../agent/mentions';

/** The entities a chained question passes through: its subgraph's nodes, less those it names and its answer. */
export function bridgeIds(qa: Pick<QA, 'subgraph' | 'answer_id' | 'query'>): string[] {
  const named = new Set(qa.query.patterns.flatMap((p) => [p.s, p.o]).filter((x) => !x.startsWith('?')));
  return qa.subgraph.nodes.filter((n) => n !== qa.answer_id && !named.has(n));
}

export type ChainOutcome =
  | 'solved'
  /** No observation ever showed a bridge entity: the first search or page read went elsewhere. */
  | 'never_saw_bridge'
  /** A bridge was read, then fell out of the window before the policy wrote it. */
  | 'lost_from_context'
  /** The policy wrote a near copy of the bridge's name (a query, a URL or the answer), never the name itself. */
  | 'copied_wrong'
  /** It answered with the bridge itself: one hop short. */
  | 'answered_bridge'
  /** The bridge stayed in view and the policy never went to it (it answered, or searched something else). */
  | 'did_not_chain'
  /** It searched or read the bridge and still answered wrong: the second step's relation or entity was wrong. */
  | 'wrong_second_relation';

export const CHAIN_OUTCOMES: readonly ChainOutcome[] = ['solved', 'never_saw_bridge', 'lost_from_context', 'copied_wrong', 'answered_bridge', 'did_not_chain', 'wrong_second_relation'];

/**
 * Why an episode on a chained question failed, in the order the chain breaks. `windows[i]`: the text the policy
 * read before writing step i (its context window); `bridges`: the bridge entities' names; `answers`: the right
 * answer and its aliases. Checks, first match wins: solved; no observation showed a bridge; the policy used a
 * bridge exactly (then: it answered the bridge, or it took the wrong second step); it wrote a near copy of one;
 * it answered the bridge; a bridge was out of the window at a turn after it was seen; it ignored a bridge in view.
 */
export interface ChainEpisode {
  steps: readonly AgentStep[];
  windows: readonly string[];
  bridges: readonly string[];
  correct: boolean;
  prediction: string | null;
}

export function classifyChain(e: ChainEpisode): ChainOutcome {
  if (e.correct) return 'solved';
  const seen = firstSighting(e.steps, e.bridges);
  if (seen < 0) return 'never_saw_bridge';
  const answeredBridge = e.prediction !== null && e.bridges.some((b) => normalizeAnswer(b) === normalizeAnswer(e.prediction!));
  if (firstUse(e.steps, e.bridges, seen) >= 0) return answeredBridge ? 'answered_bridge' : 'wrong_second_relation';
  const later = e.steps.slice(seen + 1);
  if (later.some((s) => e.bridges.some((b) => nearCopy(actionText(s), b)))) return 'copied_wrong';
  if (answeredBridge) return 'answered_bridge';
  for (let i = seen + 1; i < e.steps.length; i++) if (!e.bridges.some((b) => mentions(e.windows[i] ?? '', b))) return 'lost_from_context';
  return 'did_not_chain';
}

/** Per turn of an episode on a chained question: whether the question is pinned and a seen bridge is in view. */
export interface TurnView {
  turn: number;
  questionPinned: boolean;
  /** A bridge was shown by an earlier observation. */
  bridgeSeen: boolean;
  /** ...and is in this turn's window. */
  bridgeInView: boolean;
  /** This turn's action names a bridge (the hop to it). */
  usesBridge: boolean;
  /** The final turn, and an answer is in its window. */
  answerInView: boolean | null;
}

/** What each turn's window keeps of a chained episode (windows as in classifyChain). */
export function chainViews(e: { question: string; steps: readonly AgentStep[]; windows: readonly string[]; bridges: readonly string[]; answers: readonly string[] }): TurnView[] {
  const seen = firstSighting(e.steps, e.bridges);
  return e.steps.map((s, i) => ({
    turn: i,
    questionPinned: (e.windows[i] ?? '').includes(`Question: ${e.question}`),
    bridgeSeen: seen >= 0 && seen < i,
    bridgeInView: seen >= 0 && seen < i && e.bridges.some((b) => mentions(e.windows[i] ?? '', b)),
    usesBridge: e.bridges.some((b) => mentions(actionText(s), b)),
    answerInView: s.action.name === 'answer' ? e.answers.some((a) => mentions(e.windows[i] ?? '', a)) : null,
  }));
}
