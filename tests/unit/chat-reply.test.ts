// A chat completion as the lab reads it (agent/tools.ts chatReplyOf): the text, the server's token counts, and
// OpenAI's per-token log-probabilities (choices[0].logprobs.content, as vLLM and SGLang return them) as
// [token, logprob] pairs; a reply without them keeps neither.
import { describe, expect, it } from 'vitest';
import { chatReplyOf, ToolError } from '../../main/lab/agent/tools';

describe('chatReplyOf', () => {
  it('reads the text, usage and log-probabilities of an OpenAI-shaped reply', () => {
    const body = {
      choices: [{ message: { role: 'assistant', content: 'Paris' }, logprobs: { content: [{ token: 'Par', logprob: -0.1, top_logprobs: [] }, { token: 'is', logprob: -2.5 }] } }],
      usage: { prompt_tokens: 31, completion_tokens: 2, total_tokens: 33 },
    };
    expect(chatReplyOf('chat:m', body)).toEqual({ content: 'Paris', usage: body.usage, logprobs: [['Par', -0.1], ['is', -2.5]] });
  });

  it('keeps no log-probabilities when the server returned none (transformers serve)', () => {
    expect(chatReplyOf('chat:m', { choices: [{ message: { content: 'x' }, logprobs: null }] })).toEqual({ content: 'x' });
  });

  it('refuses a reply without choices[0].message.content, as retryable', () => {
    expect(() => chatReplyOf('chat:m', { choices: [] })).toThrow(ToolError);
    expect(() => chatReplyOf('chat:m', { choices: [] })).toThrow(/chat:m: no choices\[0\]\.message\.content/);
  });
});
