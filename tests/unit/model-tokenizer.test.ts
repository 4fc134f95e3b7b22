import { describe, expect, it } from 'vitest';
import { SPECIAL_TOKENS, Tokenizer, trainTokenizer } from '../../main/lab/model/tokenizer';

const corpus = [
  'The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs.',
  '<think>I should search for the founder.</think>\n<tool_call>{"name": "search", "arguments": {"query": ["FormFactor founder"]}}</tool_call>',
  '<tool_response>FormFactor, Inc. was founded in 1993 by Igor Khandros.</tool_response>\n<answer>Igor Khandros</answer>',
  'Zürich, São Paulo, Kraków, 東京, Москва — café naïve 1993-04-01 42% 3.14159',
].flatMap((s) => Array.from({ length: 20 }, (_, i) => `${s} ${i}`));

describe('tokenizer', () => {
  const tok = trainTokenizer(corpus, { vocabSize: 400 });

  it('has the layout specials, bytes, merges and respects vocabSize', () => {
    expect(tok.vocabSize).toBeLessThanOrEqual(400);
    expect(tok.vocabSize).toBeGreaterThan(SPECIAL_TOKENS.length + 256);
    expect(tok.special('<|pad|>')).toBe(0);
    SPECIAL_TOKENS.forEach((s, i) => expect(tok.special(s)).toBe(i));
    expect(tok.byteOffset).toBe(SPECIAL_TOKENS.length);
  });

  it('round-trips any string exactly', () => {
    const samples = [
      '',
      ' ',
      '\n\n\t  x  \r\n',
      'hello world',
      'emoji 🧭⛵️ and ZWJ 👩‍👩‍👧 flags 🇵🇹',
      '東京タワー 和 한국어 العربية עברית हिन्दी',
      'unseen bytes \u0000\u0001\u007f \uFFFD \u{10FFFF}',
      '<think>x</think><tool_call>{"a":1}</tool_call><tool_response>y</tool_response><answer>z</answer><|eos|>',
      'partial tags <thin k> </tool_cal> <<think>>',
      "it's they're we'll I'd 12345678 1993-04-01",
      corpus.join('\n'),
    ];
    for (const s of samples) expect(tok.decode(tok.encode(s))).toBe(s);
    expect(tok.encode('')).toEqual([]);
  });

  it('never splits special tokens and can treat them as text', () => {
    const ids = tok.encode('a<think>b</think><tool_response>c</tool_response>');
    expect(ids).toContain(tok.special('<think>'));
    expect(ids).toContain(tok.special('</think>'));
    expect(ids).toContain(tok.special('<tool_response>'));
    expect(ids).toContain(tok.special('</tool_response>'));
    const plain = tok.encode('<think>', { allowSpecial: false });
    expect(plain.every((id) => !tok.isSpecial(id))).toBe(true);
    expect(tok.decode(plain)).toBe('<think>');
  });

  it('compresses the training text', () => {
    const text = corpus.slice(0, 20).join('\n');
    expect(tok.encode(text).length).toBeLessThan(new TextEncoder().encode(text).length / 2);
  });

  it('trains deterministically and serialises to JSON and back', () => {
    const again = trainTokenizer(corpus, { vocabSize: 400 });
    expect(again.toJSON()).toEqual(tok.toJSON());
    const loaded = Tokenizer.fromJSON(JSON.parse(JSON.stringify(tok.toJSON())));
    const s = corpus.slice(0, 30).join(' | ');
    expect(loaded.encode(s)).toEqual(tok.encode(s));
    expect(loaded.vocabSize).toBe(tok.vocabSize);
  });

  it('rejects bad JSON and out-of-range ids clearly', () => {
    expect(() => Tokenizer.fromJSON({ format: 'nope' })).toThrow(/sailor.tokenizer\/1/);
    expect(() => tok.decode([tok.vocabSize])).toThrow(/outside vocabulary/);
    expect(() => trainTokenizer(corpus, { vocabSize: 100 })).toThrow(/vocabSize/);
  });

  it('gives a name the same tokens after a space, a quote and a URL scheme; lower-case words keep their space', () => {
    const names = trainTokenizer(
      Array.from({ length: 30 }, () => 'Igor Khandros founded FormFactor. Search "Igor Khandros" at sim://Igor_Khandros then visit it.'),
      { vocabSize: 400 },
    );
    const pieces = (text: string) => names.encode(text, { allowSpecial: false }).map((id) => names.decode([id]));
    const khandros = pieces('Khandros');
    expect(pieces(' Khandros')).toEqual([' ', ...khandros]);
    expect(pieces('"Khandros')).toEqual(['"', ...khandros]);
    expect(pieces('sim://Khandros')).toEqual([...pieces('sim://'), ...khandros]);
    expect(pieces(' founded')).toEqual([' founded']);
    // The pattern travels with the merges: another pre-tokeniser can be chosen and is kept.
    const gpt2 = trainTokenizer(corpus, { vocabSize: 300, pattern: "'(?:[sdmt]|ll|ve|re)| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+" });
    expect(Tokenizer.fromJSON(gpt2.toJSON()).encode(' Khandros', { allowSpecial: false })).toEqual(gpt2.encode(' Khandros', { allowSpecial: false }));
    expect(gpt2.toJSON().pattern).toContain(' ?\\p{L}+');
  });

  it('prints tokens for debug dumps', () => {
    expect(tok.tokenText(tok.special('<think>'))).toBe('"<think>"');
    expect(tok.tokenText(tok.byteOffset + 0xe6)).toBe('<0xE6>');
  });
});
