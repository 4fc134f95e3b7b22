// The ReAct loop: ask the policy for a turn, parse it, run the tool, append the observation, until an
// answer or a limit. At a limit (tool calls, context tokens, wall time) the agent is asked once for a final
// answer. The context given to the policy is always renderTrajectory(question, steps so far): the trainer
// re-renders stored trajectories and gets byte-for-byte the text the policy saw.
import type { LlmTurn, Termination, ToolAction, Trajectory } from '../formats/index';
import type { Rng } from '../util/rng';
import { errorMessage } from '../base/errors';
import { approxTokens } from './text';
import {
  type AgentStep,
  DEFAULT_TOOLS,
  finalAnswerNotice,
  parseTurn,
  type ParsedTurn,
  renderPrompt,
  renderStepParts,
  systemPrompt,
  renderObservation,
  type ToolSpec,
} from './react';

export interface GenerateOptions {
  /** Stop sequences: generation should end before them (the runtime also cuts at <tool_response>). */
  stop: string[];
  maxNewTokens: number;
  rng?: Rng;
  signal?: AbortSignal;
  /** The same history in structured form, for chat-API policies that need messages rather than text. */
  turns: { system: string; question: string; steps: readonly AgentStep[] };
}

export interface Policy {
  name: string;
  generate(context: string, opts: GenerateOptions): Promise<string>;
  /** The server's account of the turn `generate` last returned (a model endpoint's policy); kept on its step. */
  lastTurn?(): LlmTurn | undefined;
}

/**
 * The tools an episode can call. `execute` should not throw: a failed search or page is an observation the
 * model reads. One that throws anyway ends the episode as `tool_error` (the infrastructure failed).
 */
export interface Toolset {
  specs: readonly ToolSpec[];
  execute(action: ToolAction): Promise<string>;
}

export type TokenCounter = (text: string) => number;

export interface Limits {
  maxToolCalls: number; // WebSailor V1: 30
  maxTokens: number; // context budget: prompt + generated + observations
  maxTimeMs: number;
  maxNewTokens: number; // per turn
  /** Consecutive malformed turns tolerated before the episode ends with format_error. */
  maxFormatErrors: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxToolCalls: 30,
  maxTokens: 32_000,
  maxTimeMs: 300_000,
  maxNewTokens: 2048,
  maxFormatErrors: 3,
};

export interface EpisodeInput {
  id: string;
  qaId: string;
  question: string;
  policy: Policy;
  tools: Toolset;
  limits?: Partial<Limits>;
  countTokens?: TokenCounter;
  rng?: Rng;
  now?: () => number;
  signal?: AbortSignal;
}

/** Which limit ended the episode, when one did (extension field `limit` of the trajectory). */
export type LimitKind = 'tool_calls' | 'tokens' | 'time' | 'turns';

const STOP = ['<tool_response>'];

export function contextText(question: string, steps: readonly AgentStep[], tools: readonly ToolSpec[]): string {
  let text = renderPrompt(question, tools);
  for (const s of steps) {
    const { think, action } = renderStepParts(s);
    text += think + action;
    if (s.observation !== undefined) text += renderObservation(s.observation);
  }
  return text;
}

/**
 * A turn longer than the per-turn cap (a server that ignores max_tokens, a runaway sample) is not parsed or
 * run: it becomes a format error that says why, and only its first part is kept on the trajectory.
 * Counters give at least one character per token, so a turn of at most `cap` characters is never counted.
 */
export function parseCappedTurn(output: string, cap: number, count: TokenCounter, tools: readonly ToolSpec[]): ParsedTurn {
  const tokens = output.length > cap ? count(output) : 0;
  if (tokens <= cap) return parseTurn(output, tools);
  return {
    kind: 'invalid',
    think: '',
    error: `[format error] The turn is ${tokens} tokens, over the limit of ${cap} tokens per turn; it was not run. Write a short <think> and one action.`,
    formatValid: false,
    issues: ['too_long'],
    text: output.slice(0, cap * 4),
  };
}

function stepFromTurn(turn: ParsedTurn, llm?: LlmTurn): AgentStep {
  const action: ToolAction = turn.action ?? { name: 'format_error', arguments: {} };
  const step: AgentStep = { think: turn.think, action, ...(llm ? { llm } : {}) };
  if (!turn.formatValid) {
    step.raw = turn.text;
    step.issues = turn.issues;
  }
  return step;
}

/** Runs one ReAct episode. Reward is left at zero: score it with reward.ts once the QA is known. */
export async function runEpisode(input: EpisodeInput): Promise<Trajectory> {
  const limits: Limits = { ...DEFAULT_LIMITS, ...input.limits };
  const count = input.countTokens ?? approxTokens;
  const now = input.now ?? Date.now;
  const tools = input.tools.specs.length ? input.tools.specs : DEFAULT_TOOLS;
  const start = now();
  const steps: AgentStep[] = [];
  let generated = 0;
  let observed = 0;
  let toolCalls = 0;
  let formatErrors = 0;
  let prediction: string | null = null;
  let termination: Termination | null = null;
  let limit: LimitKind | null = null;
  let infraError: string | null = null;
  const promptTokens = count(renderPrompt(input.question, tools));
  const system = systemPrompt(tools);

  /** What the server said about the last turn (policies that report it), for that turn's step. */
  let turnInfo: LlmTurn | undefined;
  /** The policy's next turn; null when the policy itself failed (the episode ends as policy_error). */
  const generate = async (): Promise<string | null> => {
    const context = contextText(input.question, steps, tools);
    try {
      turnInfo = undefined;
      const text = await input.policy.generate(context, {
        stop: STOP,
        maxNewTokens: limits.maxNewTokens,
        rng: input.rng,
        signal: input.signal,
        turns: { system, question: input.question, steps },
      });
      turnInfo = input.policy.lastTurn?.();
      return text;
    } catch (err) {
      // A policy that fails (a checkpoint that does not load, a server that is down) is no turn of the
      // model's: the reason is kept on the trajectory rather than lost in an exception.
      infraError = errorMessage(err);
      return null;
    }
  };

  const hitLimit = (): LimitKind | null => {
    if (toolCalls >= limits.maxToolCalls) return 'tool_calls';
    if (promptTokens + generated + observed >= limits.maxTokens) return 'tokens';
    if (now() - start >= limits.maxTimeMs) return 'time';
    if (steps.length >= limits.maxToolCalls + limits.maxFormatErrors) return 'turns';
    return null;
  };

  while (termination === null) {
    limit = hitLimit();
    if (limit) break;
    const output = await generate();
    if (output === null) {
      termination = 'policy_error';
      break;
    }
    const turn = parseCappedTurn(output, limits.maxNewTokens, count, tools);
    generated += count(turn.text);
    if (turn.kind === 'empty') {
      termination = 'format_error';
      if (output.trim() !== '') steps.push(stepFromTurn(turn, turnInfo)); // e.g. only a hallucinated <tool_response>
      break;
    }
    const step = stepFromTurn(turn, turnInfo);
    steps.push(step);
    if (turn.kind === 'answer') {
      prediction = String(turn.action!.arguments.answer ?? '').trim();
      termination = 'answer';
      break;
    }
    if (turn.kind === 'invalid') {
      step.observation = turn.error!;
      observed += count(renderObservation(step.observation));
      formatErrors++;
      if (formatErrors >= limits.maxFormatErrors) termination = 'format_error';
      continue;
    }
    formatErrors = 0;
    toolCalls++;
    try {
      step.observation = await input.tools.execute(turn.action!);
    } catch (err) {
      infraError = errorMessage(err);
      termination = 'tool_error';
      break;
    }
    observed += count(renderObservation(step.observation));
  }

  if (termination === null && limit) {
    termination = limit === 'tokens' ? 'max_tokens' : 'max_steps';
    const last = steps[steps.length - 1];
    // Ask once for a final answer, with the notice inside the last observation (masked like any
    // observation). Over a token budget the answer may overflow by one turn, as a length-limited run would.
    if (last && last.observation !== undefined) {
      const notice = finalAnswerNotice(limitName(limit));
      last.observation += `\n\n${notice}`;
      observed += count(notice);
      const output = await generate();
      if (output === null) termination = 'policy_error';
      else {
        const turn = parseCappedTurn(output, limits.maxNewTokens, count, tools);
        generated += count(turn.text);
        if (turn.kind !== 'empty') steps.push(stepFromTurn(turn, turnInfo));
        if (turn.kind === 'answer') prediction = String(turn.action!.arguments.answer ?? '').trim();
      }
    }
  }

  const traj: Trajectory = {
    id: input.id,
    qa_id: input.qaId,
    policy: input.policy.name,
    steps,
    prediction,
    termination: termination ?? 'format_error',
    reward: { format: 0, answer: 0, total: 0 },
    tool_calls: toolCalls,
    tokens: { generated, observation: observed },
    turns: steps.length,
    elapsed_ms: now() - start,
  };
  if (limit) traj.limit = limit;
  if (infraError) traj.error = infraError;
  return traj;
}

function limitName(limit: LimitKind): string {
  switch (limit) {
    case 'tool_calls':
      return 'tool call';
    case 'tokens':
      return 'context length';
    case 'time':
      return 'time';
    case 'turns':
      return 'turn';
  }
}

/** Tool counts by name ('format_error' steps excluded); for eval and the UI. */
export function toolCallsByName(steps: readonly AgentStep[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of steps) {
    if (s.action.name === 'answer' || s.action.name === 'format_error') continue;
    out[s.action.name] = (out[s.action.name] ?? 0) + 1;
  }
  return out;
}
