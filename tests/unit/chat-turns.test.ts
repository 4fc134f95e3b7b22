// A conversation the endpoint agent sends (chatRequest, Qwen-Agent's layout) read back into the question and the
// steps: at every turn of a real episode in the simulated web (well-formed calls, a malformed turn, the answer),
// the steps rebuilt from the messages render to the same policy context as the runtime's own steps.
import { describe, expect, it } from 'vitest';
import { observationOf, turnsOf } from '../../main/lab/agent/chat-turns';
import { chatRequest } from '../../main/lab/agent/tools';
import { runEpisode, type GenerateOptions, type Policy } from '../../main/lab/agent/runtime';
import { simToolset } from '../../main/lab/agent/env';
import { SimWeb } from '../../main/lab/agent/web';
import { demoGraph } from '../../main/lab/agent/demo';
import { policyView } from '../../main/lab/train/policy/view';
import type { AgentStep } from '../../main/lab/agent/react';

describe('turnsOf', () => {
  it('rebuilds, at every turn of an episode, the context the runtime gave the policy', async () => {
    const outputs = [
      '<think>\nwho founded it\n</think>\n<tool_call>\n{"name": "search", "arguments": {"query": ["Igor Khandros founded"]}}\n</tool_call>',
      'I will just guess <tool_call>{"name": "search"',
      '<think>\nlook again\n</think>\n<tool_call>\n{"name":"search","arguments":{"query":["FormFactor"]}}\n</tool_call>',
      '<think>\nfound it\n</think>\n<answer>FormFactor</answer>',
    ];
    const seen: Array<{ steps: AgentStep[]; messages: ReturnType<typeof chatRequest>['messages'] }> = [];
    const policy: Policy = {
      name: 'scripted',
      generate: async (_context: string, opts: GenerateOptions) => {
        seen.push({ steps: structuredClone([...opts.turns.steps]), messages: chatRequest(opts, {}).messages });
        return outputs[seen.length - 1]!;
      },
    };
    const question = 'Which company was founded by Igor Khandros?';
    const traj = await runEpisode({ id: 't', qaId: 'q', question, policy, tools: simToolset(new SimWeb(demoGraph())) });
    expect(traj.termination).toBe('answer');
    expect(seen).toHaveLength(4);
    expect((traj.steps[1] as AgentStep).raw).toBeDefined(); // the malformed turn is kept raw
    for (const { steps, messages } of seen) {
      const back = turnsOf(messages);
      expect(back.question).toBe(question);
      expect(back.system).toBe(messages[0]!.content);
      expect(back.steps).toHaveLength(steps.length);
      expect(policyView(question, back.steps).text).toBe(policyView(question, steps).text);
    }
  });

  it('takes a plain question from any OpenAI client, and refuses what is no agent conversation, naming the message', () => {
    expect(turnsOf([{ role: 'user', content: 'Say OK.' }])).toEqual({ system: null, question: 'Say OK.', steps: [] });
    expect(() => turnsOf([{ role: 'system', content: 's' }])).toThrow("expected the user's question at messages[1], got nothing");
    expect(() => turnsOf([{ role: 'user', content: 'q' }, { role: 'user', content: 'again' }])).toThrow('messages[1]: a user message answers an assistant turn, and there is none to answer');
    expect(() => turnsOf([{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }])).toThrow('the last message is an assistant turn');
    expect(() => turnsOf([{ role: 'user', content: 'q' }, { role: 'system', content: 's' }])).toThrow('messages[1]: a system message can only come first');
  });

  it('unwraps a tool response and leaves other text as it is', () => {
    expect(observationOf('<tool_response>\nline 1\nline 2\n</tool_response>')).toBe('line 1\nline 2');
    expect(observationOf('plain text')).toBe('plain text');
  });
});
