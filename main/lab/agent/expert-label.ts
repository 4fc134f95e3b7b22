// The expert's next turn at any state of any trajectory (DAgger relabeling, docs/pipeline.md 'Relabeling'): the
// expert replays the trajectory's turns as if it had played them (ExpertSolver.follow), reading every observation
// they brought, then plans its own next action; its thought is written as the RFT data's are (the run's
// reconstructor). Like the expert, it sees the question and the formal query, never the answer: all it knows
// is what the prefix's observations showed.
import type { ToolAction } from '../formats/index';
import { ExpertSolver, type ExpertOptions, type ExpertTask } from './expert';
import type { AgentStep } from './react';
import type { Toolset } from './runtime';
import { normalizeAnswer } from './text';
import type { Reconstructor } from './thoughts';

export interface ExpertTurn {
  think: string;
  action: ToolAction;
}

/** The runtime's words when a limit is hit (react.ts finalAnswerNotice): the next turn must answer. */
const FORCED_ANSWER = 'Do not call any more tools';

/** The expert after the turns of `steps`, ready to plan the next one; whether that one must be an answer. */
function expertAt(task: ExpertTask, steps: readonly AgentStep[], opts: Partial<ExpertOptions>): { solver: ExpertSolver; forced: boolean } {
  const solver = new ExpertSolver(task, opts);
  for (const s of steps) solver.follow(s.action, s.observation);
  return { solver, forced: steps.at(-1)?.observation?.includes(FORCED_ANSWER) ?? false };
}

/** The expert's next turn after `steps` (any policy's turns and the web's answers), its thought by `thought`. */
export async function expertNextTurn(task: ExpertTask, steps: readonly AgentStep[], opts: Partial<ExpertOptions>, thought: Reconstructor): Promise<ExpertTurn> {
  const { solver, forced } = expertAt(task, steps, opts);
  const { action } = solver.next(null, forced);
  return { think: await thought({ question: task.question, history: steps, action, observation: undefined }), action };
}

/**
 * The answer the expert reaches when it takes over after `steps` and plays to the end on `tools`, within the
 * episode's tool-call budget (the calls `steps` made count). A state from which it does not reach the right
 * answer is one where it cannot do better than the policy, and relabeling leaves it out.
 */
export async function expertFinish(task: ExpertTask, steps: readonly AgentStep[], opts: Partial<ExpertOptions>, tools: Toolset, maxToolCalls: number): Promise<string> {
  const { solver, forced } = expertAt(task, steps, opts);
  let calls = steps.filter((s) => s.action.name === 'search' || s.action.name === 'visit').length;
  let observation: string | null = null;
  for (;;) {
    const { action } = solver.next(observation, forced || calls >= maxToolCalls);
    if (action.name === 'answer') return String(action.arguments.answer ?? '');
    observation = await tools.execute(action);
    calls++;
  }
}

/** What a turn is for, by the expert's label: the opening search, a page read, a later search (the hop to a bridge), the answer. */
export const TURN_KINDS = ['first_search', 'visit', 'bridge_search', 'answer'] as const;
export type TurnKind = (typeof TURN_KINDS)[number];

export function turnKind(label: ToolAction, history: readonly AgentStep[]): TurnKind | null {
  if (label.name === 'answer') return 'answer';
  if (label.name === 'visit') return 'visit';
  if (label.name !== 'search') return null;
  return history.some((s) => s.action.name === 'search') ? 'bridge_search' : 'first_search';
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]).map((x) => normalizeAnswer(String(x)));
const sameSet = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x) => b.includes(x));

/** Whether the policy's action is the expert's: the same tool on the same queries or URLs (goals aside), or the same answer. */
export function sameAction(policy: ToolAction, expert: ToolAction): boolean {
  if (policy.name !== expert.name) return false;
  if (expert.name === 'search') return sameSet(strings(policy.arguments.query), strings(expert.arguments.query));
  if (expert.name === 'visit') return sameSet(strings(policy.arguments.url), strings(expert.arguments.url));
  if (expert.name === 'answer') return normalizeAnswer(String(policy.arguments.answer ?? '')) === normalizeAnswer(String(expert.arguments.answer ?? ''));
  return false;
}
