// What one relabeling round makes of the policy's trajectories (DAgger; run config `relabel`, docs/run-config.md):
// every state a trajectory visited (the question and the turns before one of the policy's turns) labelled with the
// expert's next turn (agent/expert-label.ts), whether the policy's own turn there was the expert's, whether the
// state is kept (the expert, taking over there, reaches the right answer: else it cannot do better and the state is
// left out), and the training rows of the kept states: the state as the policy read it, with the loss on the
// expert's turn only (the policy's own turns and the observations are context, as in SFT).
import type { ExpertStepLabel, QA, ToolAction, Trajectory } from '../../formats';
import type { AgentStep } from '../../agent/react';
import type { Toolset } from '../../agent/runtime';
import type { ExpertOptions } from '../../agent/expert';
import type { Reconstructor } from '../../agent/thoughts';
import { exactMatch, goldAnswers } from '../../agent/reward';
import { isCorrect } from '../../contract/correct';
import { expertFinish, expertNextTurn, sameAction, TURN_KINDS, turnKind, type ExpertTurn, type TurnKind } from '../../agent/expert-label';
import type { Tokenizer } from '../../model/tokenizer';
import { buildMaskedTokens, type MaskedTokens } from '../../model/mask';
import { policyView, turnWindows } from '../policy/view';
import { mentions } from '../../agent/mentions';
import { TURN_TOKENS } from '../policy/eval-setup';

/** The expert's label of the state before a step (formats ExpertStepLabel), with its turn kind typed. */
export interface StepLabel extends ExpertStepLabel {
  kind: TurnKind | null;
}

export type RelabeledStep = AgentStep & { expert?: StepLabel };

export interface LabelContext {
  expert: Partial<ExpertOptions>;
  thought: Reconstructor;
  tools: Toolset;
  maxToolCalls: number;
}

/** The trajectory with every step's state labelled (`step.expert`). */
export async function labelTrajectory(traj: Trajectory, qa: QA, c: LabelContext): Promise<Trajectory> {
  const task = { id: qa.id, question: qa.question, query: qa.query };
  const steps = traj.steps as AgentStep[];
  const out: RelabeledStep[] = [];
  for (let i = 0; i < steps.length; i++) {
    const prefix = steps.slice(0, i);
    const label = await expertNextTurn(task, prefix, c.expert, c.thought);
    const agrees = sameAction(steps[i]!.action, label.action);
    const finish = label.action.name === 'answer' ? String(label.action.arguments.answer ?? '') : await expertFinish(task, prefix, c.expert, c.tools, c.maxToolCalls);
    const kept = exactMatch(finish, goldAnswers(qa)) === 1;
    out.push({ ...steps[i]!, expert: { ...label, kind: turnKind(label.action, prefix), agrees, kept } });
  }
  return { ...traj, steps: out };
}

/** What an action names that the policy must copy from its context: queries, the titles its URLs stand for, the answer. */
export function namesOf(action: ToolAction): string[] {
  const a = action.arguments;
  const list = (v: unknown): string[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);
  return [...list(a.query), ...list(a.url).map((u) => u.replace(/^sim:\/\//, '')), ...list(a.answer)];
}

/**
 * The training row of one labelled state: its context as the policy read it, the loss on the expert's turn. None
 * when the context does not show a name the turn writes (a bridge scrolled out of the window): the policy could only
 * guess it there.
 */
export function labelRow(tok: Tokenizer, question: string, prefix: readonly AgentStep[], label: ExpertTurn, blockSize: number): MaskedTokens | undefined {
  const view = policyView(question, [...prefix, { think: label.think, action: label.action }]);
  // The policy's own turns are context here: only the label's think and action carry loss.
  const spans = view.spans.map((s) => (s.step < prefix.length && (s.kind === 'think' || s.kind === 'action') ? { ...s, kind: 'observation' as const } : s));
  const tokens = buildMaskedTokens(tok, view.text, spans, { eos: label.action.name === 'answer' });
  const row = turnWindows(tokens, blockSize, TURN_TOKENS).at(-1);
  if (!row) return undefined;
  const context = tok.decode(row.ids.filter((_, i) => row.mask[i] === 0));
  const unknownAnswer = label.action.name === 'answer' && label.action.arguments.answer === 'unknown';
  return unknownAnswer || namesOf(label.action).every((n) => mentions(context, n)) ? row : undefined;
}

/**
 * The rows of the kept states of labelled trajectories, each episode's up to its `mistakes`-th disagreement with
 * the expert (0: all): past them the episode has wandered where the policy, once corrected, will not go.
 */
export function labelRows(tok: Tokenizer, trajs: readonly Trajectory[], questionOf: (qaId: string) => string, blockSize: number, mistakes = 0): MaskedTokens[] {
  const rows: MaskedTokens[] = [];
  for (const t of trajs) {
    const steps = t.steps as RelabeledStep[];
    let missed = 0;
    for (let i = 0; i < steps.length && (mistakes === 0 || missed < mistakes); i++) {
      const label = steps[i]!.expert;
      if (!label) continue;
      if (!label.agrees) missed++;
      if (!label.kept) continue;
      const prefix = steps.slice(0, i).map(({ expert: _e, ...rest }) => rest);
      const row = labelRow(tok, questionOf(t.qa_id), prefix, label, blockSize);
      if (row) rows.push(row);
    }
  }
  return rows;
}

/**
 * A round's metrics: states labelled and kept, and the share of states where the policy's action was the expert's,
 * by turn kind (`relabel/agree_<kind>`) and over all.
 */
export function roundMetrics(trajs: readonly Trajectory[]): Record<string, number> {
  const labels = trajs.flatMap((t) => (t.steps as RelabeledStep[]).map((s) => s.expert).filter((e): e is StepLabel => e !== undefined));
  const share = (xs: StepLabel[]): number => (xs.length ? xs.filter((x) => x.agrees).length / xs.length : 0);
  const m: Record<string, number> = {
    'relabel/states': labels.length,
    'relabel/kept': labels.filter((l) => l.kept).length,
    'relabel/agree': share(labels),
    'relabel/rollout_pass@1': trajs.length ? trajs.filter((t) => isCorrect(t.reward)).length / trajs.length : 0,
  };
  for (const kind of TURN_KINDS) {
    const of = labels.filter((l) => l.kind === kind);
    m[`relabel/states_${kind}`] = of.length;
    if (of.length) m[`relabel/agree_${kind}`] = share(of);
  }
  return m;
}
