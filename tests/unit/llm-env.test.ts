// One name for the OpenAI-compatible server's key: SAILOR_LLM_API_KEY, with the older SAILOR_LLM_KEY still
// read (after it) and a deprecation note shown once.
import { beforeEach, describe, expect, it } from 'vitest';
import { llmApiKey, resetLlmKeyWarning } from '../../main/lab/agent/llm-env';

describe('llmApiKey', () => {
  beforeEach(() => resetLlmKeyWarning());

  it('reads SAILOR_LLM_API_KEY first and says nothing', () => {
    const notes: string[] = [];
    expect(llmApiKey({ SAILOR_LLM_API_KEY: 'new', SAILOR_LLM_KEY: 'old' }, (m) => notes.push(m))).toBe('new');
    expect(notes).toEqual([]);
  });

  it('falls back to SAILOR_LLM_KEY with one deprecation note per process', () => {
    const notes: string[] = [];
    const warn = (m: string): void => void notes.push(m);
    expect(llmApiKey({ SAILOR_LLM_KEY: 'old' }, warn)).toBe('old');
    expect(llmApiKey({ SAILOR_LLM_KEY: 'old' }, warn)).toBe('old');
    expect(notes).toEqual(['SAILOR_LLM_KEY is deprecated: set SAILOR_LLM_API_KEY instead (it is read first; SAILOR_LLM_KEY is still accepted for now)']);
  });

  it('is undefined when neither is set (an empty value counts as unset)', () => {
    expect(llmApiKey({}, () => undefined)).toBeUndefined();
    expect(llmApiKey({ SAILOR_LLM_API_KEY: '' }, () => undefined)).toBeUndefined();
  });
});
