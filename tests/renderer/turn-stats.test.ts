// A served model's turn in the inspector (turnStats.ts): its figures line, tokens per second, and the heat strip's
// colour per token probability, hand-checked.
import { describe, expect, it } from 'vitest';
import { heatColour, shownToken, tokensPerSecond, turnLine } from '../../renderer/src/components/traj/turnStats';

describe('turn statistics', () => {
  it('tokens per second come from the server’s count over the request’s time', () => {
    expect(tokensPerSecond({ latency_ms: 500, completion_tokens: 20 })).toBe(40);
    expect(tokensPerSecond({ latency_ms: 500 })).toBeNull();
    expect(tokensPerSecond({ latency_ms: 0, completion_tokens: 3 })).toBeNull();
  });

  it('the line names prompt and generated tokens, the latency and the rate', () => {
    expect(turnLine({ latency_ms: 850, prompt_tokens: 31, completion_tokens: 24 })).toBe('31 prompt + 24 generated tokens · 850 ms · 28.2 tokens/s');
    expect(turnLine({ latency_ms: 2500 })).toBe('2.50 s');
  });

  it('colours a sure token green, an unsure one red, and clamps', () => {
    expect(heatColour(0)).toBe('hsl(120 70% 32%)');
    expect(heatColour(Math.log(0.5))).toBe('hsl(60 70% 32%)');
    expect(heatColour(-Infinity)).toBe('hsl(0 70% 32%)');
    expect(heatColour(0.2)).toBe('hsl(120 70% 32%)');
  });

  it('shows whitespace tokens', () => {
    expect(shownToken('\n')).toBe('↵');
    expect(shownToken(' the')).toBe('·the');
    expect(shownToken('')).toBe('∅');
  });
});
