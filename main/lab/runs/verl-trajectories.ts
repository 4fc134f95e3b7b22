// verl's generations as `sailor.traj/1` trajectories. Two sources:
//  - the rollout and validation dumps (verl/trainer/ppo/ray_trainer.py `_write_generations`: one line per sample,
//    `{"input", "output", "gts", "score", "step", ...reward extra infos, "request_id"?}`, decoded without special
//    tokens), whose turns are recovered from the chat template's tool messages, as the exported reward does
//    (resources/verl/sailor_reward.py split_turns);
//  - the exported tools' episode file (`{"request_id", "qa_id", "turns": [{role, content, tool_calls?}]}`,
//    resources/verl/sailor_tools.py), whose turn boundaries are exact. A dump line and an episode with the same
//    request_id are one sample: the episode gives the turns, the dump the step and the score.
// Each assistant turn is read with the lab's own parser (agent/react.ts parseTurn). Pure.
import { createHash } from 'node:crypto';
import type { RlGroupPlan, RlStepPlan } from '../contract';
import type { Termination, Trajectory } from '../formats';
import { parseTurn, type AgentStep } from '../agent/react';
import { exactMatch, formatScore } from '../agent/reward';
import { approxTokens } from '../agent/text';
import { inputError } from '../base/errors';
import { describeValue } from '../util/fields';
import { groupAdvantages } from '../rl/advantages';

/** A Qwen/Hermes tool message between two assistant turns, special tokens kept or dropped (sailor_reward.py). */
const TOOL_MESSAGE = /\n?(?:<\|im_start\|>)?user\n<tool_response>\n([\s\S]*?)\n<\/tool_response>(?:<\|im_end\|>)?\n?(?:<\|im_start\|>)?(?:assistant\n)?/g;
const SPECIAL = /<\|(?:im_start|im_end|endoftext)\|>/g;

/** The assistant turns of a decoded response, each with the tool response that followed it (if any). */
export function splitDecodedTurns(output: string): Array<{ text: string; observation?: string }> {
  const turns: Array<{ text: string; observation?: string }> = [];
  let pos = 0;
  for (const m of output.matchAll(TOOL_MESSAGE)) {
    turns.push({ text: output.slice(pos, m.index).replace(SPECIAL, ''), observation: m[1]! });
    pos = m.index + m[0].length;
  }
  turns.push({ text: output.slice(pos).replace(SPECIAL, '') });
  return turns;
}

/** The question of a decoded prompt: the last user message (`...user\n<question>\nassistant\n`). */
export function questionOf(input: string): string {
  const text = input.replace(SPECIAL, '');
  const at = text.lastIndexOf('user\n');
  const q = at >= 0 ? text.slice(at + 5) : text;
  return q.replace(/\n?assistant\n?$/, '').trim();
}

/** A stable id for a question that arrives without one (verl's dumps carry only the text). */
export const questionId = (question: string): string => `q-${createHash('sha256').update(question).digest('hex').slice(0, 10)}`;

interface Turn {
  text: string;
  observation?: string;
}

/** The lab's steps and prediction of a sequence of assistant turns, as the runtime records them. */
export function stepsOf(turns: readonly Turn[]): { steps: AgentStep[]; prediction: string | null; termination: Termination } {
  const steps: AgentStep[] = [];
  let prediction: string | null = null;
  for (const t of turns) {
    const turn = parseTurn(t.text);
    if (turn.kind === 'empty') {
      if (t.text.trim() !== '') steps.push({ think: turn.think, action: { name: 'format_error', arguments: {} }, raw: turn.text, issues: turn.issues });
      break;
    }
    const step: AgentStep = { think: turn.think, action: turn.action ?? { name: 'format_error', arguments: {} } };
    if (!turn.formatValid) Object.assign(step, { raw: turn.text, issues: turn.issues });
    if (t.observation !== undefined) step.observation = t.observation;
    steps.push(step);
    if (turn.kind === 'answer') {
      prediction = String(turn.action?.arguments.answer ?? '').trim();
      break;
    }
  }
  const last = steps.at(-1);
  const termination: Termination = prediction !== null ? 'answer' : last?.action.name === 'format_error' ? 'format_error' : 'max_steps';
  return { steps, prediction, termination };
}

/** One line of a verl dump, checked enough to be read; errors name file, line and field. */
export interface DumpLine {
  input: string;
  output: string;
  golds: string[];
  score: number;
  step: number;
  requestId?: string;
  uid?: string;
  extra: Record<string, unknown>;
}

function golds(gts: unknown): string[] {
  const target = gts && typeof gts === 'object' && !Array.isArray(gts) ? (gts as { target?: unknown }).target : gts;
  const list = typeof target === 'string' ? [target] : Array.isArray(target) ? target : [];
  return list.filter((g): g is string => typeof g === 'string' && g.trim() !== '');
}

export function checkDumpLine(value: unknown, file: string, line: number): DumpLine {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw inputError(file, 'not a verl generations dump: expected one {"input", "output", "gts", "score", "step"} per line', { line });
  const v = value as Record<string, unknown>;
  for (const k of ['input', 'output'] as const) {
    if (typeof v[k] !== 'string') throw inputError(file, `not a verl generations dump: expected a string, got ${describeValue(v[k])}`, { line, field: k });
  }
  if (typeof v.score !== 'number') throw inputError(file, `expected a number, got ${describeValue(v.score)}`, { line, field: 'score' });
  if (typeof v.step !== 'number' || !Number.isInteger(v.step)) throw inputError(file, `expected a whole number, got ${describeValue(v.step)}`, { line, field: 'step' });
  const { input, output, gts, score, step, request_id, uid, ...extra } = v;
  return {
    input: input as string,
    output: output as string,
    golds: golds(gts),
    score: score as number,
    step: step as number,
    ...(typeof request_id === 'string' ? { requestId: request_id } : {}),
    ...(typeof uid === 'string' ? { uid } : {}),
    extra,
  };
}

/** One line of the exported tools' episode file. */
export interface EpisodeLine {
  requestId: string;
  qaId: string | null;
  turns: Turn[];
}

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((c) => (c && typeof c === 'object' && typeof (c as { text?: unknown }).text === 'string' ? (c as { text: string }).text : '')).join('') : '';

export function checkEpisodeLine(value: unknown, file: string, line: number): EpisodeLine {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw inputError(file, 'not an episode file: expected one {"request_id", "qa_id", "turns"} per line', { line });
  const v = value as Record<string, unknown>;
  if (typeof v.request_id !== 'string') throw inputError(file, `not an episode file: expected a string, got ${describeValue(v.request_id)}`, { line, field: 'request_id' });
  if (!Array.isArray(v.turns)) throw inputError(file, 'expected the list of chat messages', { line, field: 'turns' });
  // Assistant messages in order; a tool message is the observation of the assistant turn before it.
  const turns: Turn[] = [];
  v.turns.forEach((m: unknown, i) => {
    if (!m || typeof m !== 'object') throw inputError(file, 'expected a chat message {role, content}', { line, field: `turns[${i}]` });
    const msg = m as { role?: unknown; content?: unknown };
    if (msg.role === 'assistant') turns.push({ text: textOf(msg.content) });
    else if (msg.role === 'tool' && turns.length) {
      const last = turns.at(-1)!;
      last.observation = last.observation === undefined ? textOf(msg.content) : `${last.observation}\n${textOf(msg.content)}`;
    }
  });
  return { requestId: v.request_id, qaId: typeof v.qa_id === 'string' && v.qa_id !== '' ? v.qa_id : null, turns };
}

/**
 * A dump line (and its episode, when the episode file has one) as a trajectory. The total is verl's score (the
 * exported reward is the lab's); format and answer come from the reward's extra infos when it logged them
 * (`format`, `acc`), else the lab's own rules on the parsed steps and the ground truth.
 */
export function dumpTrajectory(d: DumpLine, index: number, policy: string, episode?: EpisodeLine): Trajectory {
  const question = questionOf(d.input);
  const qaId = episode?.qaId ?? questionId(question);
  const { steps, prediction, termination } = stepsOf(episode ? episode.turns : splitDecodedTurns(d.output));
  const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
  const format = num(d.extra.format) ?? formatScore({ steps, prediction });
  const answer = num(d.extra.acc) ?? exactMatch(prediction, d.golds);
  return {
    id: `${qaId}/${index}`,
    qa_id: qaId,
    policy,
    steps,
    prediction,
    termination,
    reward: { format, answer, total: d.score },
    tool_calls: steps.filter((s) => s.action.name !== 'answer' && s.action.name !== 'format_error').length,
    tokens: { generated: steps.reduce((a, s) => a + approxTokens(s.raw ?? s.think), 0), observation: steps.reduce((a, s) => a + approxTokens(s.observation ?? ''), 0) },
    question,
    answers: d.golds,
    ...(d.requestId ? { request_id: d.requestId } : {}),
    turn_source: episode ? 'episodes' : 'decoded',
  };
}

/**
 * The group plan of one step's rollouts: GRPO groups are the samples of one question. verl does not dump the
 * advantages, so they are recomputed the GRPO way (score minus the group mean, over the group's std) and the
 * header says so; every group is `kept` (what DAPO's filter dropped is not in the dump).
 */
export function groupPlan(step: number, trajectories: Trajectory[]): RlStepPlan {
  const byQa = new Map<string, Trajectory[]>();
  for (const t of trajectories) byQa.set(t.qa_id, [...(byQa.get(t.qa_id) ?? []), t]);
  const groups: Array<{ plan: RlGroupPlan; zeroStd: boolean }> = [...byQa].map(([qa_id, ts]) => {
    const rewards = ts.map((t) => t.reward.total);
    // The lab's own GRPO advantages (rl/advantages.ts), with the population std the import has always shown.
    const { advantages, mean, std, zeroStd } = groupAdvantages(rewards, { std: 'population' });
    ts.forEach((t, i) => Object.assign(t, { group: `${step}/${qa_id}`, advantage: advantages[i]! }));
    return { plan: { group: `${step}/${qa_id}`, qa_id, rewards, mean, std, advantages, status: 'kept' as const, copies: 1 }, zeroStd };
  });
  return { method: 'verl', groups: groups.map((g) => g.plan), zero_std: groups.filter((g) => g.zeroStd).length, duplicated: 0, refilled: 0, skip: false };
}
