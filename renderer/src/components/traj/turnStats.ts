// A served model's turn in numbers and colours: tokens per second from the server's count and the request's
// time, and each generated token's probability as a heat-strip colour (red: the model was unsure, green: sure).
// Pure: unit-tested, no DOM.
import type { LlmTurn } from '@formats';

/** Generated tokens per second over the request's time; null without a count or a time. */
export function tokensPerSecond(t: LlmTurn): number | null {
  return t.completion_tokens !== undefined && t.latency_ms > 0 ? t.completion_tokens / (t.latency_ms / 1000) : null;
}

/** The turn's line of figures: "31 prompt + 24 generated tokens · 850 ms · 28.2 tokens/s". */
export function turnLine(t: LlmTurn): string {
  const parts: string[] = [];
  if (t.prompt_tokens !== undefined || t.completion_tokens !== undefined) {
    parts.push(`${t.prompt_tokens ?? '?'} prompt + ${t.completion_tokens ?? '?'} generated tokens`);
  }
  parts.push(t.latency_ms < 1000 ? `${t.latency_ms} ms` : `${(t.latency_ms / 1000).toFixed(2)} s`);
  const tps = tokensPerSecond(t);
  if (tps !== null) parts.push(`${tps.toFixed(1)} tokens/s`);
  return parts.join(' · ');
}

/** A token's probability (exp of its log-probability, clamped to [0, 1]) as a hue from red (0) to green (1). */
export function heatColour(logprob: number): string {
  const p = Math.min(1, Math.max(0, Math.exp(logprob)));
  return `hsl(${Math.round(p * 120)} 70% 32%)`;
}

/** A token as shown in the strip: whitespace made visible, so a space or newline token still has a cell. */
export function shownToken(token: string): string {
  return token.replace(/\n/g, '↵').replace(/^ /, '·').replace(/\u0120/g, '·') || '∅';
}
