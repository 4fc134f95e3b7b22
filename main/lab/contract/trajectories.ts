// The contract's view of trajectories: one episode's steps with the text the model saw as spans, its
// evaluation and behaviour summaries, and a set of them as the inspector and Compare read it.
import { TERMINATIONS, type QA, type Reward, type Termination, type Trajectory } from '../formats';
import type { ArtefactRecord, TrajSetInfo } from './index';
import type { LevelBreakdown } from './level-breakdown';
import type { FailureCounts } from './failures';
/** A segment of the text the model saw: prompt and observation are context (masked out of the loss). */
export type TextSpanKind = 'prompt' | 'think' | 'action' | 'observation';
export interface TextSpan {
  kind: TextSpanKind;
  start: number; // character offsets into the rendered text, end exclusive
  end: number;
  step: number; // -1 for the prompt
}

/** Behaviour statistics of a set of trajectories (agent/eval.ts reports them in this type). */
export interface TrajBehaviour {
  trajectories: number;
  tool_calls_mean: number;
  tool_calls_by_type: Record<string, number>;
  turns_mean: number;
  tokens_mean: number;
  termination: Partial<Record<Termination, number>>; // fraction of trajectories
}

/** `evaluate(samples, k)` over a trajectory set: pass@1, pass@k, avg@k, cons@k and behaviour. */
export interface TrajEval {
  questions: number;
  samples: number;
  k: number;
  'pass@1': number;
  'pass@k': number;
  'avg@k': number;
  'cons@k': number;
  all: TrajBehaviour;
  solved: TrajBehaviour & { questions: number };
  /** Samples left out of every rate above because the infrastructure failed, not the model (policy_error, tool_error). */
  infrastructure_failures?: number;
  /** Why the episodes the model ended did not solve their questions (agent/failures.ts), when the questions were known. */
  failures?: FailureCounts;
  /** Pass@1 by hops and by level, the expert's beside each (a run's in-run evaluations carry it). */
  breakdown?: LevelBreakdown;
}

/** One row of a trajectory set: everything the list shows and filters on, without the steps. */
export interface TrajSummary {
  id: string;
  /** Position in the file (0-based, header not counted). */
  index: number;
  qa_id: string;
  /** Which attempt at its question this is (0-based). */
  attempt: number;
  policy: string;
  reward: Reward;
  termination: Termination;
  tool_calls: number;
  turns: number;
  tokens: { generated: number; observation: number };
  prediction: string | null;
  /** RL rollouts (`rl:<run>:<step>` sets) carry their group, advantage, policy version and staleness. */
  group?: string;
  advantage?: number;
  policy_version?: number;
  staleness?: number;
  /** Under credit per turn (run config `rl.credit: "turn"`): the advantage each turn was trained with. */
  turn_advantages?: number[];
}

const finite = (v: unknown, fallback = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

/**
 * A trajectory's list row: the one rule for what the inspector lists (main's set reader) and Compare's
 * side-by-side picker shows (the renderer, for a trajectory read on its own). Lenient, as sets come from other
 * tools too: a count or score a line leaves out is 0 (tool calls and turns: counted from the steps), an unknown
 * termination is a format error, a missing prediction none. The attempt is the line's own, else its id's
 * `/<n>` suffix, else `seen` (how many earlier lines asked the same question). `policy`: the set header's,
 * for lines that name none. The set reader passes `id` to make ids unique within a set.
 */
export function trajSummary(t: Trajectory, index: number, at: { id?: string; seen?: number; policy?: string } = {}): TrajSummary {
  const fromId = typeof t.id === 'string' ? /\/(\d+)$/.exec(t.id) : null;
  const reward = (t.reward ?? {}) as Partial<Reward>;
  const tokens = (t.tokens ?? {}) as Partial<Trajectory['tokens']>;
  const summary: TrajSummary = {
    id: at.id ?? t.id,
    index,
    qa_id: t.qa_id,
    attempt: typeof t.attempt === 'number' ? t.attempt : fromId ? Number(fromId[1]) : (at.seen ?? 0),
    policy: typeof t.policy === 'string' ? t.policy : (at.policy ?? ''),
    reward: { format: finite(reward.format), answer: finite(reward.answer), total: finite(reward.total) },
    termination: TERMINATIONS.includes(t.termination) ? t.termination : 'format_error',
    tool_calls: finite(t.tool_calls, t.steps.filter((s) => s.action?.name !== 'answer').length),
    turns: finite(t.turns, t.steps.length),
    tokens: { generated: finite(tokens.generated), observation: finite(tokens.observation) },
    prediction: typeof t.prediction === 'string' ? t.prediction : null,
  };
  // The extension fields of an RL rollout (group, advantage, policy version, staleness, turn advantages), when present.
  if (typeof t.group === 'string') summary.group = t.group;
  for (const k of ['advantage', 'policy_version', 'staleness'] as const) {
    const v = t[k];
    if (typeof v === 'number' && Number.isFinite(v)) summary[k] = v;
  }
  const turns = t.turn_advantages;
  if (Array.isArray(turns) && turns.every((v) => typeof v === 'number' && Number.isFinite(v))) summary.turn_advantages = turns as number[];
  return summary;
}

export interface TrajQuestion {
  question: string;
  answer: string;
  answer_id: string;
}

export interface TrajSetView {
  artefact: ArtefactRecord<TrajSetInfo>;
  header: Record<string, unknown>;
  trajectories: TrajSummary[];
  eval: TrajEval | null;
  /** The questions of the set's dataset by QA id (empty when the dataset is gone). */
  questions: Record<string, TrajQuestion>;
}

export interface TrajDetail {
  setId: string;
  trajectory: Trajectory;
  /** The QA the trajectory answers; null when its dataset is no longer in the store. */
  qa: QA | null;
  datasetId: string | null;
  graphId: string | null;
  /** The exact text the model read and wrote, with a span per segment. */
  rendered: { text: string; spans: TextSpan[] };
  /** A served model's episode (`endpoint:`/`llm:` policy): the chat messages as its server was sent them. */
  chat?: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
}
