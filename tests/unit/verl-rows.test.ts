// The pure shapes of agent/verl-rows.ts on a hand-written trajectory: verl's RL row, the SFT messages in both call
// modes, and the response text verl's reward function receives.
import { describe, expect, it } from 'vitest';
import type { Trajectory } from '../../main/lab/formats/index';
import { demoQAs } from '../../main/lab/agent/demo';
import { systemPrompt } from '../../main/lab/agent/react';
import { sftRecord, verlResponseText, verlRow } from '../../main/lab/agent/verl-rows';

const traj: Trajectory = {
  id: 't/0',
  qa_id: 'q',
  policy: 'oracle',
  steps: [
    { think: 'Find it.', action: { name: 'search', arguments: { query: ['FormFactor'] } }, observation: 'OBS1' },
    { think: 'Done.', action: { name: 'answer', arguments: { answer: 'Igor Khandros' } } },
  ],
  prediction: 'Igor Khandros',
  termination: 'answer',
  reward: { format: 1, answer: 1, total: 1 },
  tool_calls: 1,
  tokens: { generated: 10, observation: 2 },
};

describe('verl rows', () => {
  it('makes a QA into verl\'s RL row with agent_name top-level and the golds as target', () => {
    const qa = demoQAs()[0]!;
    const row = verlRow(qa, 4, 'train', 'sailor/demo');
    expect(row.agent_name).toBe('tool_agent');
    expect(row.prompt).toEqual([{ role: 'system', content: systemPrompt() }, { role: 'user', content: qa.question }]);
    expect(row.reward_model).toEqual({ style: 'rule', ground_truth: { target: [qa.answer, ...qa.aliases] } });
    expect(row.extra_info.index).toBe(4);
    expect(row.extra_info.tools_kwargs.search.create_kwargs.qa_id).toBe(qa.id);
  });

  it('writes the SFT messages with the call in content or in tool_calls, never both', () => {
    const content = sftRecord(traj, 'Who?').messages;
    expect(content.slice(2)).toEqual([
      { role: 'assistant', content: '<think>\nFind it.\n</think>\n<tool_call>\n{"name":"search","arguments":{"query":["FormFactor"]}}\n</tool_call>' },
      { role: 'tool', content: 'OBS1' },
      { role: 'assistant', content: '<think>\nDone.\n</think>\n<answer>Igor Khandros</answer>' },
    ]);
    const structured = sftRecord(traj, 'Who?', 'structured').messages;
    expect(structured[2]).toEqual({ role: 'assistant', content: '<think>\nFind it.\n</think>', tool_calls: [{ type: 'function', function: { name: 'search', arguments: { query: ['FormFactor'] } } }] });
    expect(structured[4]).toEqual(content[4]);
  });

  it('renders the response verl decodes: turns joined by Qwen tool messages', () => {
    expect(verlResponseText(traj)).toBe(
      '<think>\nFind it.\n</think>\n<tool_call>\n{"name":"search","arguments":{"query":["FormFactor"]}}\n</tool_call>' +
        '\nuser\n<tool_response>\nOBS1\n</tool_response>\nassistant\n' +
        '<think>\nDone.\n</think>\n<answer>Igor Khandros</answer>',
    );
  });
});
