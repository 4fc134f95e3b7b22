// Lab data in the shapes verl and TRL read (docs/verl.md): a QA as a row of verl's RL dataset
// (verl/utils/dataset/rl_dataset.py; field names as in its examples/data_preprocess scripts), and a trajectory as
// chat messages with tool calls and `role: tool` observations for multi-turn SFT. Pure: files are written by
// cli/export-verl.ts.
import type { QA, Trajectory } from '../formats/index';
import { goldAnswers } from './reward';
import { type AgentStep, renderAction, systemPrompt } from './react';

/** verl's RL row. `agent_name` top-level: without it verl runs the single-turn loop and never calls a tool. */
export interface VerlRow {
  data_source: string;
  agent_name: 'tool_agent';
  prompt: Array<{ role: 'system' | 'user'; content: string }>;
  ability: string;
  reward_model: { style: 'rule'; ground_truth: { target: string[] } };
  extra_info: {
    index: number;
    split: string;
    qa_id: string;
    question: string;
    level: number;
    tools_kwargs: Record<'search' | 'visit', { create_kwargs: { qa_id: string } }>;
    interaction_kwargs: { query: string; ground_truth: string };
  };
}

export const VERL_ABILITY = 'web-search';

/**
 * One QA as verl's row: the lab's system prompt (tools declared in hermes `<tool_call>` form, answers in
 * `<answer>`) and the bare question as the user turn, as the lab's chat policy sends them.
 */
export function verlRow(qa: QA, index: number, split: string, dataSource: string): VerlRow {
  const toolKwargs = { create_kwargs: { qa_id: qa.id } };
  return {
    data_source: dataSource,
    agent_name: 'tool_agent',
    prompt: [
      { role: 'system', content: systemPrompt() },
      { role: 'user', content: qa.question },
    ],
    ability: VERL_ABILITY,
    reward_model: { style: 'rule', ground_truth: { target: goldAnswers(qa) } },
    extra_info: {
      index,
      split,
      qa_id: qa.id,
      question: qa.question,
      level: qa.level,
      tools_kwargs: { search: toolKwargs, visit: toolKwargs },
      // Parquet cannot hold an empty struct; these are the fields verl's interaction examples use.
      interaction_kwargs: { query: qa.question, ground_truth: qa.answer },
    },
  };
}

// ---------- SFT ----------

export interface SftToolCall {
  type: 'function';
  function: { name: string; arguments: Record<string, unknown> };
}

export type SftMessage =
  | { role: 'system' | 'user' | 'tool'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: SftToolCall[] };

export interface SftRecord {
  messages: SftMessage[];
  qa_id: string;
  trajectory_id: string;
}

/**
 * How a tool call is written. 'content': the assistant message holds the lab's exact text (think, then the
 * `<tool_call>` JSON or `<answer>`), so any template that prints `content` trains on what the lab's policy
 * writes. 'structured': the content holds the think part and the call is in `tool_calls` (arguments as an
 * object, the Hugging Face convention) for a template to render; never both, or the call would be trained twice.
 */
export type SftCalls = 'content' | 'structured';

/**
 * A trajectory as chat messages: the lab's system prompt (it declares the tools), the question, then each step
 * as an assistant message and its observation as a `role: tool` message (Qwen templates render it as the lab's
 * `<tool_response>` block). Only assistant messages are the model's, so only they carry loss.
 */
export function sftRecord(traj: Trajectory, question: string, calls: SftCalls = 'content'): SftRecord {
  const messages: SftMessage[] = [
    { role: 'system', content: systemPrompt() },
    { role: 'user', content: question },
  ];
  for (const s of traj.steps as AgentStep[]) {
    const think = `<think>\n${s.think}\n</think>`;
    const isCall = s.raw === undefined && s.action.name !== 'answer' && s.action.name !== 'format_error';
    if (calls === 'structured' && isCall) {
      messages.push({ role: 'assistant', content: think, tool_calls: [{ type: 'function', function: { name: s.action.name, arguments: s.action.arguments } }] });
    } else messages.push({ role: 'assistant', content: s.raw ?? `${think}\n${renderAction(s.action)}` });
    if (s.observation !== undefined) messages.push({ role: 'tool', content: s.observation });
  }
  return { messages, qa_id: traj.qa_id, trajectory_id: traj.id };
}

// ---------- what verl's reward function reads ----------

/** A tool message as a Qwen chat template renders it, decoded without special tokens (verl's `solution_str`). */
export const verlToolMessage = (observation: string): string => `\nuser\n<tool_response>\n${observation}\n</tool_response>\nassistant\n`;

/**
 * A lab trajectory as the response text verl hands to `compute_score`: each assistant turn as generated,
 * then its observation as a tool message. A turn whose model wrote a `<tool_response>` of its own (the lab
 * cut it there) gets the tag back, since verl would decode it.
 */
export function verlResponseText(traj: Pick<Trajectory, 'steps'>): string {
  return (traj.steps as AgentStep[])
    .map((s) => {
      const text = s.raw ?? `<think>\n${s.think}\n</think>\n${renderAction(s.action)}`;
      const hallucinated = s.issues?.includes('hallucinated_observation') ? '<tool_response>' : '';
      return text + hallucinated + (s.observation !== undefined ? verlToolMessage(s.observation) : '');
    })
    .join('');
}
