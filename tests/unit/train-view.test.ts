import { describe, expect, it } from 'vitest';
import { policyView, turnWindows, windowIndices } from '../../main/lab/train/view';
import type { AgentStep } from '../../main/lab/agent/react';

describe('policy view', () => {
  const steps: AgentStep[] = [
    { think: 'look it up', action: { name: 'search', arguments: { query: ['Paris'] } }, observation: 'Paris is the capital of France.' },
    { think: 'found it', action: { name: 'answer', arguments: { answer: 'France' } } },
  ];

  it('replaces the system prompt by the question and keeps the spans on the same text', () => {
    const v = policyView('Which country has Paris?', steps);
    expect(v.text.startsWith('Question: Which country has Paris?\n\n<think>')).toBe(true);
    expect(v.text).not.toContain('Web Information Seeking Master');
    for (const s of v.spans) expect(s.end).toBeLessThanOrEqual(v.text.length);
    const obs = v.spans.find((s) => s.kind === 'observation')!;
    expect(v.text.slice(obs.start, obs.end)).toContain('Paris is the capital of France.');
    const action = v.spans.filter((s) => s.kind === 'action').at(-1)!;
    expect(v.text.slice(action.start, action.end)).toContain('<answer>France</answer>');
  });
});

describe('windows', () => {
  it('keeps short sequences whole and pins the head of long ones', () => {
    expect(windowIndices(4, 2, 10)).toEqual([0, 1, 2, 3]);
    expect(windowIndices(10, 2, 5)).toEqual([0, 1, 7, 8, 9]);
    expect(windowIndices(10, 8, 5)).toEqual([0, 1, 2, 3, 4]); // head longer than the window: head only
  });

  it('one row for the turns that fit whole, then one window per later turn with the loss on that turn only', () => {
    // tokens: [bos q q | t1 t1 | a1 | o o o | t2 | a2 | eos]
    //          0   1 2   3  4    5    6 7 8   9    10   11
    const tokens = {
      ids: [100, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
      mask: [0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1],
      segments: [
        { kind: 'prompt' as const, start: 1, end: 3 },
        { kind: 'think' as const, start: 3, end: 5 },
        { kind: 'action' as const, start: 5, end: 6 },
        { kind: 'observation' as const, start: 6, end: 9 },
        { kind: 'think' as const, start: 9, end: 10 },
        { kind: 'action' as const, start: 10, end: 11 },
      ],
    };
    // Both turns end inside the window: the policy saw the whole prefix each time, so one row carries the
    // loss of both (the last turn with its <|eos|>).
    expect(turnWindows(tokens, 100)).toEqual([{ ids: tokens.ids, mask: tokens.mask }]);
    // A window of 8: the first turn still fits whole; the second has its own window, the question pinned
    // (bos q q) then the last 5 tokens up to eos, and the first turn's tokens are context there, not loss.
    const w = turnWindows(tokens, 8);
    expect(w).toHaveLength(2);
    expect(w[0]).toEqual({ ids: [100, 1, 2, 3, 4, 5], mask: [0, 0, 0, 1, 1, 1] });
    expect(turnWindows(tokens, 8)[1]).toEqual({ ids: [100, 1, 2, 7, 8, 9, 10, 11], mask: [0, 0, 0, 0, 0, 1, 1, 1] });
  });
});
