// The inverse of chatRequest (tools.ts): a conversation in Qwen-Agent's layout (system, the user's question,
// then assistant turns each answered by a <tool_response> user message) read back into the question and the
// agent's steps. A lab checkpoint served over the OpenAI chat API (server/policy-service.ts) is thereby given
// the very context it reads when it plays in the lab: a step is rebuilt as the runtime records it (canonical
// when its turn was well formed, its raw text when not), and renders to the same tokens.
import { LabError } from '../base/errors';
import { parseTurn, type AgentStep } from './react';

export interface ChatTurnMessage {
  role: string;
  content: string;
}

const OPEN = '<tool_response>';
const CLOSE = '</tool_response>';

/** A tool's answer as the agent sent it (`<tool_response>\n…\n</tool_response>`), unwrapped; other text as it is. */
export function observationOf(content: string): string {
  const t = content.trim();
  if (!t.startsWith(OPEN) || !t.endsWith(CLOSE)) return content;
  return t.slice(OPEN.length, t.length - CLOSE.length).replace(/^\n/, '').replace(/\n$/, '');
}

const bad = (message: string): LabError => new LabError('bad_request', `messages: ${message}`);

/** The question and the steps a conversation holds; refused, naming the message, when it is not an agent's. */
export function turnsOf(messages: readonly ChatTurnMessage[]): { system: string | null; question: string; steps: AgentStep[] } {
  let i = 0;
  const system = messages[0]?.role === 'system' ? messages[i++]!.content : null;
  const first = messages[i];
  if (first?.role !== 'user') throw bad(`expected the user's question at messages[${i}], got ${first ? `a ${first.role} message` : 'nothing'}`);
  const steps: AgentStep[] = [];
  for (i++; i < messages.length; i++) {
    const m = messages[i]!;
    const last = steps.at(-1);
    if (m.role === 'assistant') {
      if (last && last.observation === undefined) throw bad(`messages[${i}]: two assistant turns in a row; a tool response comes between them`);
      const turn = parseTurn(m.content);
      const step: AgentStep = { think: turn.think, action: turn.action ?? { name: 'format_error', arguments: {} } };
      if (!turn.formatValid) Object.assign(step, { raw: turn.text, issues: turn.issues });
      steps.push(step);
    } else if (m.role === 'user' || m.role === 'tool') {
      if (!last || last.observation !== undefined) throw bad(`messages[${i}]: a ${m.role} message answers an assistant turn, and there is none to answer`);
      last.observation = observationOf(m.content);
    } else {
      throw bad(`messages[${i}]: a ${m.role} message can only come first`);
    }
  }
  if (steps.length && steps.at(-1)!.observation === undefined) throw bad('the last message is an assistant turn: the model answers a question or a tool response');
  return { system, question: first.content, steps };
}
