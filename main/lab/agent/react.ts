// The ReAct text protocol (WebSailor A.3): the system prompt that declares the tools, the parser that turns
// one model turn into a typed action, and the renderer that turns a trajectory back into the exact text the
// model reads, with character spans per segment so the trainer can mask prompt and observation tokens.
import type { ToolAction, TrajStep } from '../formats/index';

// ---------- tools ----------

export type ArgCheck = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments, shown to the model. */
  parameters: Record<string, unknown>;
  /** Validates and normalises arguments (e.g. a single query string becomes a one-element list). */
  check(args: Record<string, unknown>): ArgCheck;
}

function stringList(v: unknown): string[] | null {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  return null;
}

export const SEARCH_TOOL: ToolSpec = {
  name: 'search',
  description: 'Performs batched web searches: supply an array of queries; the tool retrieves the top 10 results for each query in one call.',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'array', items: { type: 'string' }, description: 'Array of query strings. Include multiple complementary search queries in a single call.' },
    },
    required: ['query'],
  },
  check(args) {
    const query = stringList(args.query);
    if (!query) return { ok: false, error: "[search] 'query' must be a list of strings." };
    return { ok: true, args: { query } };
  },
};

export const VISIT_TOOL: ToolSpec = {
  name: 'visit',
  description: 'Visit webpage(s) and return the summary of the content.',
  parameters: {
    type: 'object',
    properties: {
      url: { type: 'array', items: { type: 'string' }, description: 'The URL(s) of the webpage(s) to visit. Can be a single URL or an array of URLs.' },
      goal: { type: 'string', description: 'The specific information goal for visiting webpage(s).' },
    },
    required: ['url', 'goal'],
  },
  check(args) {
    const url = stringList(args.url);
    if (!url) return { ok: false, error: "[visit] 'url' must be a URL string or a list of URL strings." };
    if (typeof args.goal !== 'string') return { ok: false, error: "[visit] 'goal' must be a string saying what to look for." };
    return { ok: true, args: { url, goal: args.goal } };
  },
};

/** The final answer. Normally written as <answer>…</answer>; accepted as a tool call too. */
export const ANSWER_TOOL: ToolSpec = {
  name: 'answer',
  description: 'Give the final answer and end the task.',
  parameters: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
  check(args) {
    if (typeof args.answer !== 'string') return { ok: false, error: "[answer] 'answer' must be a string." };
    return { ok: true, args: { answer: args.answer } };
  },
};

export const DEFAULT_TOOLS: readonly ToolSpec[] = [SEARCH_TOOL, VISIT_TOOL];

// ---------- prompt ----------

export function systemPrompt(tools: readonly ToolSpec[] = DEFAULT_TOOLS): string {
  const decls = tools
    .map((t) => JSON.stringify({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }))
    .join('\n');
  return [
    'You are a Web Information Seeking Master. Your task is to thoroughly seek the internet for information and provide accurate answers to questions. No matter how complex the query, you will not give up until you find the corresponding information.',
    '',
    'As you proceed, adhere to the following principles:',
    '1. Persistent Actions for Answers: engage in many interactions, delving deeply into the topic until a satisfactory answer is found.',
    '2. Repeated Verification: before giving the final answer, cross-check and validate the information you have gathered.',
    '3. Attention to Detail: analyse each source carefully; questions may describe entities vaguely (periods instead of dates, partial names, ranges).',
    '',
    '# Tools',
    '',
    'You may call one function per turn to assist with the user query. Function signatures are within <tools></tools> XML tags:',
    '<tools>',
    decls,
    '</tools>',
    '',
    'Each turn starts with your reasoning inside <think></think>, followed by exactly one action:',
    'either a function call, as a JSON object with the function name and arguments within <tool_call></tool_call> XML tags:',
    '<tool_call>',
    '{"name": <function-name>, "arguments": <args-json-object>}',
    '</tool_call>',
    'or, when you are confident, the final answer within <answer></answer> tags, which ends the task.',
    'The result of a function call is returned to you within <tool_response></tool_response> tags; never write a <tool_response> yourself.',
  ].join('\n');
}

/** The prompt segment: system text, then the question. Everything the model generates follows it. */
export function renderPrompt(question: string, tools: readonly ToolSpec[] = DEFAULT_TOOLS): string {
  return `${systemPrompt(tools)}\n\nQuestion: ${question}\n\n`;
}

/** Appended inside the last observation when a limit is hit: the agent is asked once for a final answer. */
export function finalAnswerNotice(limit: string): string {
  return `You have reached the ${limit} limit. Do not call any more tools. Based on the information gathered so far, give your best final answer now as <think>…</think> then <answer>…</answer>.`;
}

// ---------- parsing one turn ----------

export type FormatIssue =
  | 'empty'
  | 'missing_think'
  | 'unclosed_think'
  | 'text_outside_tags'
  | 'no_action'
  | 'unclosed_tool_call'
  | 'unclosed_answer'
  | 'invalid_json'
  | 'unknown_tool'
  | 'bad_arguments'
  | 'multiple_actions'
  | 'nested_tags'
  | 'too_long'
  | 'hallucinated_observation';

export type TurnKind = 'tool' | 'answer' | 'invalid' | 'empty';

export interface ParsedTurn {
  kind: TurnKind;
  think: string;
  /** For 'tool' and 'answer' (an answer is `{name: 'answer', arguments: {answer}}`). */
  action?: ToolAction;
  /** For 'invalid': the error observation to show the model. */
  error?: string;
  /** True only when the turn is exactly <think>…</think> then one well-formed action. */
  formatValid: boolean;
  issues: FormatIssue[];
  /** The generated text that is kept (everything from a generated <tool_response> on is cut). */
  text: string;
}

const TOOL_RESPONSE_OPEN = '<tool_response>';
const PROTOCOL_TAGS = ['<think>', '</think>', '<tool_call>', '</tool_call>', '<answer>', '</answer>'];

/** A thought or an action body holding a protocol tag: `<answer><tool_call>…</tool_call></answer>` is not one action. */
function holdsTag(segment: string): boolean {
  return PROTOCOL_TAGS.some((tag) => segment.includes(tag));
}

function firstIndex(text: string, needles: string[], from = 0): { at: number; tag: string } | null {
  let best: { at: number; tag: string } | null = null;
  for (const n of needles) {
    const at = text.indexOf(n, from);
    if (at >= 0 && (!best || at < best.at)) best = { at, tag: n };
  }
  return best;
}

/**
 * Parses one model turn: `<think>…</think>` then the FIRST `<tool_call>{json}</tool_call>` or
 * `<answer>…</answer>`. A generated `<tool_response>` and everything after it is cut (no hallucinated
 * observations reach the context). Never throws.
 */
export function parseTurn(output: string, tools: readonly ToolSpec[] = DEFAULT_TOOLS): ParsedTurn {
  const issues: FormatIssue[] = [];
  let text = output;
  const cut = text.indexOf(TOOL_RESPONSE_OPEN);
  if (cut >= 0) {
    text = text.slice(0, cut);
    issues.push('hallucinated_observation');
  }
  text = text.replace(/\s+$/, '');
  if (text.trim() === '') {
    return { kind: 'empty', think: '', formatValid: false, issues: [...issues, 'empty'], text };
  }

  // Think segment.
  let think = '';
  let rest = text;
  const lead = text.replace(/^\s+/, '');
  if (lead.startsWith('<think>')) {
    const body = lead.slice('<think>'.length);
    const close = body.indexOf('</think>');
    if (close >= 0) {
      think = body.slice(0, close).trim();
      rest = body.slice(close + '</think>'.length);
    } else {
      issues.push('unclosed_think');
      const act = firstIndex(body, ['<tool_call>', '<answer>']);
      think = (act ? body.slice(0, act.at) : body).trim();
      rest = act ? body.slice(act.at) : '';
    }
  } else {
    issues.push('missing_think');
    const close = lead.indexOf('</think>');
    if (close >= 0) {
      // Some templates open <think> in the prompt: accept the text before </think> as the thought.
      think = lead.slice(0, close).trim();
      rest = lead.slice(close + '</think>'.length);
    } else rest = lead;
  }

  // Action segment: the first of <tool_call> / <answer>.
  const act = firstIndex(rest, ['<tool_call>', '<answer>']);
  if (!act) {
    issues.push('no_action');
    return {
      kind: 'invalid',
      think,
      error: '[format error] No action found: end your turn with <tool_call>{"name": …, "arguments": {…}}</tool_call> or <answer>…</answer>.',
      formatValid: false,
      issues,
      text,
    };
  }
  if (rest.slice(0, act.at).trim() !== '') issues.push('text_outside_tags');

  const closeTag = act.tag === '<tool_call>' ? '</tool_call>' : '</answer>';
  const bodyStart = act.at + act.tag.length;
  const closeAt = rest.indexOf(closeTag, bodyStart);
  const body = (closeAt >= 0 ? rest.slice(bodyStart, closeAt) : rest.slice(bodyStart)).trim();
  const after = closeAt >= 0 ? rest.slice(closeAt + closeTag.length) : '';
  if (firstIndex(after, ['<tool_call>', '<answer>'])) issues.push('multiple_actions');
  else if (after.trim() !== '') issues.push('text_outside_tags');
  if (holdsTag(think) || holdsTag(body)) issues.push('nested_tags');

  const done = (p: Omit<ParsedTurn, 'formatValid' | 'issues' | 'text' | 'think'>): ParsedTurn => ({
    ...p,
    think,
    issues,
    formatValid: issues.length === 0,
    text,
  });

  if (act.tag === '<answer>') {
    if (closeAt < 0) issues.push('unclosed_answer');
    return done({ kind: 'answer', action: { name: 'answer', arguments: { answer: body } } });
  }

  if (closeAt < 0) {
    issues.push('unclosed_tool_call');
    return done({ kind: 'invalid', error: '[format error] <tool_call> is not closed with </tool_call>; the call was not run.' });
  }
  let call: unknown;
  try {
    call = JSON.parse(body) as unknown;
  } catch (err) {
    issues.push('invalid_json');
    return done({
      kind: 'invalid',
      error: `[format error] The content of <tool_call> is not valid JSON (${(err as Error).message}). Write {"name": <tool>, "arguments": {…}}.`,
    });
  }
  if (typeof call !== 'object' || call === null || Array.isArray(call) || typeof (call as { name?: unknown }).name !== 'string') {
    issues.push('invalid_json');
    return done({ kind: 'invalid', error: '[format error] A tool call must be a JSON object {"name": <tool>, "arguments": {…}}.' });
  }
  const { name, arguments: rawArgs } = call as { name: string; arguments?: unknown };
  const all = [...tools, ANSWER_TOOL];
  const spec = all.find((t) => t.name === name);
  if (!spec) {
    issues.push('unknown_tool');
    return done({
      kind: 'invalid',
      error: `[format error] Unknown tool '${name}'. Available tools: ${tools.map((t) => t.name).join(', ')}; give the final answer in <answer></answer>.`,
    });
  }
  const argsObj = typeof rawArgs === 'object' && rawArgs !== null && !Array.isArray(rawArgs) ? (rawArgs as Record<string, unknown>) : null;
  const checked: ArgCheck = argsObj ? spec.check(argsObj) : { ok: false, error: `[${name}] 'arguments' must be a JSON object.` };
  if (!checked.ok) {
    issues.push('bad_arguments');
    return done({ kind: 'invalid', error: checked.error });
  }
  const action: ToolAction = { name, arguments: checked.args };
  return done({ kind: name === 'answer' ? 'answer' : 'tool', action });
}

// ---------- rendering ----------

/**
 * A trajectory step as the runtime records it: optional raw text and format issues (extensions that docs/formats.md,
 * 'sailor.traj/1', allows).
 */
export interface AgentStep extends TrajStep {
  /** The generated text as produced, kept when it differs from the canonical rendering (format issues). */
  raw?: string;
  issues?: FormatIssue[];
}

export type SegmentKind = 'prompt' | 'think' | 'action' | 'observation';

export interface Span {
  kind: SegmentKind;
  start: number; // character offsets into `text`, end exclusive
  end: number;
  step: number; // -1 for the prompt
}

export interface Rendered {
  text: string;
  spans: Span[];
}

export function renderAction(action: ToolAction): string {
  if (action.name === 'answer') return `<answer>${String(action.arguments.answer ?? '')}</answer>`;
  return `<tool_call>\n${JSON.stringify({ name: action.name, arguments: action.arguments })}\n</tool_call>`;
}

/** The generated part of one step, split into think and action text. */
export function renderStepParts(step: AgentStep): { think: string; action: string } {
  if (step.raw !== undefined) {
    const raw = step.raw.endsWith('\n') || step.action.name === 'answer' ? step.raw : `${step.raw}\n`;
    const close = raw.indexOf('</think>');
    if (close < 0) return { think: '', action: raw };
    const cut = close + '</think>'.length + (raw[close + '</think>'.length] === '\n' ? 1 : 0);
    return { think: raw.slice(0, cut), action: raw.slice(cut) };
  }
  const think = `<think>\n${step.think}\n</think>\n`;
  const action = renderAction(step.action) + (step.action.name === 'answer' ? '' : '\n');
  return { think, action };
}

export function renderObservation(observation: string): string {
  return `<tool_response>\n${observation}\n</tool_response>\n`;
}

/**
 * The exact text the model reads and writes for a trajectory, and the span of every segment. Spans tile
 * the text: prompt and observation spans are context (masked in the loss), think and action are generated.
 */
export function renderTrajectory(question: string, steps: readonly AgentStep[], tools: readonly ToolSpec[] = DEFAULT_TOOLS): Rendered {
  const spans: Span[] = [];
  let text = '';
  const push = (kind: SegmentKind, s: string, step: number): void => {
    if (s.length === 0) return;
    spans.push({ kind, start: text.length, end: text.length + s.length, step });
    text += s;
  };
  push('prompt', renderPrompt(question, tools), -1);
  steps.forEach((step, i) => {
    const { think, action } = renderStepParts(step);
    push('think', think, i);
    push('action', action, i);
    if (step.observation !== undefined) push('observation', renderObservation(step.observation), i);
  });
  return { text, spans };
}
