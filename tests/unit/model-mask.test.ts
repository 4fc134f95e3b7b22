import { describe, expect, it } from 'vitest';
import { buildMaskedTokens, dumpBatch, dumpTokens, fitSeqLen, makeBatch, maskedFraction, type Span } from '../../main/lab/model/mask';
import { trainTokenizer } from '../../main/lab/model/tokenizer';

// A hand-made trajectory in the WebSailor layout, with the character spans a renderer would give.
const parts: { kind: Span['kind'] | 'gap'; text: string }[] = [
  { kind: 'prompt', text: 'You are a search agent.\nQuestion: Which company was founded in 1993 by Igor Khandros?\n' },
  { kind: 'think', text: '<think>Search for the founder first.</think>' },
  { kind: 'gap', text: '\n' },
  { kind: 'action', text: '<tool_call>{"name": "search", "arguments": {"query": ["Igor Khandros company"]}}</tool_call>' },
  { kind: 'gap', text: '\n' },
  { kind: 'observation', text: '<tool_response>1. FormFactor - founded 1993 by Igor Khandros. sim://formfactor</tool_response>' },
  { kind: 'gap', text: '\n' },
  { kind: 'think', text: '<think>The result names FormFactor.</think>' },
  { kind: 'answer', text: '<answer>FormFactor</answer>' },
];
const text = parts.map((p) => p.text).join('');
function spansOf(innerObservation: boolean): Span[] {
  const spans: Span[] = [];
  let pos = 0;
  for (const p of parts) {
    if (p.kind !== 'gap') {
      if (p.kind === 'observation' && innerObservation) {
        const open = '<tool_response>'.length;
        const close = '</tool_response>'.length;
        spans.push({ kind: 'observation', start: pos + open, end: pos + p.text.length - close });
      } else spans.push({ kind: p.kind, start: pos, end: pos + p.text.length });
    }
    pos += p.text.length;
  }
  return spans;
}

const tok = trainTokenizer([text, text.toUpperCase(), 'founded search company result'], { vocabSize: 360 });

describe('observation mask', () => {
  for (const inner of [false, true]) {
    it(`masks exactly the prompt and tool_response tokens (observation span ${inner ? 'without' : 'with'} tags)`, () => {
      const ex = buildMaskedTokens(tok, text, spansOf(inner));
      expect(ex.ids.length).toBe(ex.mask.length);
      expect(ex.ids[0]).toBe(tok.special('<|bos|>'));
      expect(ex.mask[0]).toBe(0);
      expect(ex.ids.at(-1)).toBe(tok.special('<|eos|>'));
      expect(ex.mask.at(-1)).toBe(1);
      // Decoding the mask-1 tokens gives exactly the policy's segments (+ eos); the mask-0 tokens the rest.
      const trained = ex.ids.filter((_, i) => ex.mask[i] === 1);
      const context = ex.ids.filter((_, i) => ex.mask[i] === 0);
      const policyText = parts.filter((p) => p.kind === 'think' || p.kind === 'action' || p.kind === 'answer').map((p) => p.text).join('');
      const contextText = parts.filter((p) => p.kind === 'prompt' || p.kind === 'observation' || p.kind === 'gap').map((p) => p.text).join('');
      expect(tok.decode(trained)).toBe(policyText + '<|eos|>');
      expect(tok.decode(context)).toBe('<|bos|>' + contextText);
      // Tags: the environment's are masked, the policy's are trained.
      const maskOf = (special: string): number[] => ex.ids.flatMap((id, i) => (id === tok.special(special) ? [ex.mask[i]!] : []));
      expect(maskOf('<tool_response>')).toEqual([0]);
      expect(maskOf('</tool_response>')).toEqual([0]);
      expect(maskOf('<think>')).toEqual([1, 1]);
      expect(maskOf('</tool_call>')).toEqual([1]);
      expect(maskOf('</answer>')).toEqual([1]);
      // The whole text round-trips through the per-segment tokenisation.
      expect(tok.decode(ex.ids)).toBe('<|bos|>' + text + '<|eos|>');
    });
  }

  it('masks a tool_response even if a span mislabels it', () => {
    const spans: Span[] = [
      { kind: 'prompt', start: 0, end: 2 },
      { kind: 'action', start: 2, end: text.length },
    ];
    const ex = buildMaskedTokens(tok, text, spans, { bos: false, eos: false });
    const open = ex.ids.indexOf(tok.special('<tool_response>'));
    const close = ex.ids.indexOf(tok.special('</tool_response>'));
    expect(open).toBeGreaterThan(0);
    expect(ex.mask.slice(open, close + 1).every((m) => m === 0)).toBe(true);
    expect(ex.mask[close + 1]).toBe(1);
  });

  it('rejects overlapping and out-of-range spans', () => {
    expect(() => buildMaskedTokens(tok, text, [{ kind: 'prompt', start: 0, end: 10 }, { kind: 'think', start: 5, end: 12 }])).toThrow(/overlaps/);
    expect(() => buildMaskedTokens(tok, 'abc', [{ kind: 'think', start: 0, end: 9 }])).toThrow(/outside/);
  });

  it('makes shifted, padded batches and dumps them as token | mask rows', () => {
    const ex = buildMaskedTokens(tok, text, spansOf(false));
    const short = { ids: [1, 20, 21], mask: [0, 1, 1] };
    const T = ex.ids.length + 3;
    const b = makeBatch([ex, short], T, 0);
    expect(b.ids.slice(0, ex.ids.length - 1)).toEqual(Int32Array.from(ex.ids.slice(0, -1)));
    expect(b.targets.slice(0, ex.ids.length - 1)).toEqual(Int32Array.from(ex.ids.slice(1)));
    expect(Array.from(b.mask.slice(0, ex.ids.length - 1))).toEqual(ex.mask.slice(1));
    expect(Array.from(b.mask.slice(T, 2 * T))).toEqual([1, 1, ...new Array<number>(T - 2).fill(0)]);
    expect(b.realTokens).toBe(ex.ids.length - 1 + 2);
    expect(b.lossTokens).toBe(ex.mask.slice(1).reduce((a, m) => a + m, 0) + 2);
    expect(maskedFraction(b)).toBeCloseTo(1 - b.lossTokens / b.realTokens);
    const dump = dumpBatch(tok, b, { rows: 2 });
    expect(dump).toContain('t | token | mask');
    expect(dump).toMatch(/"<tool_response>" \| 0/);
    expect(dump).toMatch(/"<answer>" \| 1/);
    expect(dump.split('\n').length).toBe(2 + (ex.ids.length - 1) + 2 + 2);
    expect(dumpTokens(tok, short).split('\n')).toHaveLength(3);
    // Truncation to seqLen + 1 tokens.
    const cut = makeBatch([ex], 8, 0);
    expect(Array.from(cut.targets)).toEqual(ex.ids.slice(1, 9));
  });
});

describe('fitSeqLen', () => {
  const ex = (n: number) => ({ ids: Array.from({ length: n }, (_, i) => i), mask: Array.from({ length: n }, () => 1) });
  it('pads a batch only to its longest example, in steps of 16, never past the context', () => {
    expect(fitSeqLen([ex(10), ex(30)], 256)).toBe(32); // 29 pairs -> 32
    expect(fitSeqLen([ex(17)], 256)).toBe(16); // 16 pairs fit exactly
    expect(fitSeqLen([ex(300)], 256)).toBe(256);
    expect(fitSeqLen([ex(1)], 256)).toBe(16);
    // The batch built with it keeps every target of the longest example.
    const b = makeBatch([ex(10), ex(30)], fitSeqLen([ex(10), ex(30)], 256), 0);
    expect(b.seqLen).toBe(32);
    expect(b.realTokens).toBe(9 + 29);
  });
});
