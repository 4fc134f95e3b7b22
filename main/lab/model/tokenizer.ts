// Byte-level BPE tokenizer (GPT-2 style), trained on our own corpus.
//
// Vocabulary layout (ids):
//   0 .. S-1            special tokens (SPECIAL_TOKENS, in that order; `<|pad|>` is 0)
//   S .. S+255          the 256 single bytes
//   S+256 .. vocab-1    merges, in the order they were learned (merge i makes id S+256+i)
//
// Encoding: the text is first split on the special-token strings (they are never split and always map to
// their id, unless `allowSpecial: false`), each remaining chunk is pre-tokenised into "words" with
// PRETOKENIZE_PATTERN, each word is turned into UTF-8 bytes and merged pair by pair, lowest merge rank first.
// Tokens therefore never cross a word boundary or a special token.
//
// Round trip: decode(encode(s)) === s for every well-formed string (any Unicode, since bytes are the base
// alphabet). A JS string with a lone surrogate is not valid UTF-16/UTF-8; TextEncoder turns it into U+FFFD.
//
// Training (Tokenizer.train) is deterministic: words are counted, pair counts are kept incrementally (only the
// words that contain the merged pair are updated), and the next merge is the pair with the highest count,
// ties broken by the smaller (left id, right id): no dependence on Map iteration order.
import { LabError } from '../base/errors';

export const TOKENIZER_FORMAT = 'sailor.tokenizer/1';

export const SPECIAL_TOKENS = [
  '<|pad|>',
  '<|bos|>',
  '<|eos|>',
  '<think>',
  '</think>',
  '<tool_call>',
  '</tool_call>',
  '<tool_response>',
  '</tool_response>',
  '<answer>',
  '</answer>',
] as const;
export type SpecialToken = (typeof SPECIAL_TOKENS)[number];

/**
 * GPT-2's pre-tokeniser with two changes. Digits are grouped by at most three (dates and quantities then
 * share tokens like "199" instead of one token per whole number). A word that starts with a capital is split
 * from the space before it: a name then has the same tokens in the question (" Tanzania"), in a search
 * query ("Tanzania") and in a URL (sim://Tanzania), so the policy copies token by token instead of learning
 * a space-and-no-space pair for every name piece; lower-case words keep their space (about 5% more tokens).
 * Saved in the JSON so a later change of default does not change how an old checkpoint tokenises.
 */
export const PRETOKENIZE_PATTERN = "'(?:[sdmt]|ll|ve|re)| ?\\p{Ll}\\p{L}*|\\p{L}+| ?\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

export const DEFAULT_VOCAB_SIZE = 2048;
/** Pair ids are packed as left * PAIR_BASE + right, so every id must be below PAIR_BASE. */
const PAIR_BASE = 65536;
const WORD_CACHE_LIMIT = 200_000;

export interface TokenizerJSON {
  format: typeof TOKENIZER_FORMAT;
  pattern: string;
  specials: string[];
  /** merges[i] = [left id, right id] makes token id specials.length + 256 + i. */
  merges: [number, number][];
}

export interface TrainTokenizerOptions {
  /** Total vocabulary including specials and the 256 bytes (default 2048). Training stops early when no pair occurs minFrequency times. */
  vocabSize?: number;
  /** A pair must occur at least this often (weighted by word frequency) to be merged (default 2). */
  minFrequency?: number;
  /** The pre-tokeniser regex (default PRETOKENIZE_PATTERN); saved with the merges. */
  pattern?: string;
}

export interface EncodeOptions {
  /** Map special-token strings found in the text to their ids (default true). When false they are plain bytes. */
  allowSpecial?: boolean;
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: false });

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Splits text into pre-tokeniser words; the concatenation of the words is always the input. */
function pretokenize(text: string, re: RegExp): string[] {
  const out: string[] = [];
  let last = 0;
  re.lastIndex = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) out.push(text.slice(last, m.index)); // defensive: the pattern covers everything
    if (m[0].length > 0) out.push(m[0]);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/**
 * `sym` with every adjacent (a, b), left to right, replaced by `id`: one merge, as training learns it and encoding
 * applies it.
 */
function mergePair(sym: readonly number[], a: number, b: number, id: number): number[] {
  const next: number[] = [];
  for (let i = 0; i < sym.length; i++) {
    if (i + 1 < sym.length && sym[i] === a && sym[i + 1] === b) {
      next.push(id);
      i++;
    } else next.push(sym[i]!);
  }
  return next;
}

/** Max-heap of (count, pair key): higher count first, then smaller key. Stale entries are skipped on pop. */
class PairHeap {
  private counts: number[] = [];
  private keys: number[] = [];

  get size(): number {
    return this.keys.length;
  }

  private above(i: number, j: number): boolean {
    const ci = this.counts[i]!;
    const cj = this.counts[j]!;
    return ci > cj || (ci === cj && this.keys[i]! < this.keys[j]!);
  }

  private swap(i: number, j: number): void {
    [this.counts[i], this.counts[j]] = [this.counts[j]!, this.counts[i]!];
    [this.keys[i], this.keys[j]] = [this.keys[j]!, this.keys[i]!];
  }

  push(count: number, key: number): void {
    this.counts.push(count);
    this.keys.push(key);
    let i = this.keys.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.above(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }

  pop(): { count: number; key: number } | undefined {
    const n = this.keys.length;
    if (n === 0) return undefined;
    const top = { count: this.counts[0]!, key: this.keys[0]! };
    this.swap(0, n - 1);
    this.counts.pop();
    this.keys.pop();
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < n - 1 && this.above(l, best)) best = l;
      if (r < n - 1 && this.above(r, best)) best = r;
      if (best === i) break;
      this.swap(i, best);
      i = best;
    }
    return top;
  }
}

export class Tokenizer {
  readonly specials: readonly string[];
  readonly merges: readonly (readonly [number, number])[];
  readonly pattern: string;
  /** Number of token ids (specials + 256 bytes + merges). */
  readonly vocabSize: number;
  /** First byte id (= number of specials). */
  readonly byteOffset: number;

  private readonly re: RegExp;
  private readonly specialRe: RegExp;
  private readonly specialIds = new Map<string, number>();
  private readonly ranks = new Map<number, number>(); // pair key -> merge rank
  private readonly bytesOf: Uint8Array[] = [];
  private readonly cache = new Map<string, number[]>();

  constructor(json: TokenizerJSON) {
    this.specials = json.specials;
    this.merges = json.merges;
    this.pattern = json.pattern;
    this.re = new RegExp(json.pattern, 'gu');
    this.byteOffset = json.specials.length;
    this.vocabSize = this.byteOffset + 256 + json.merges.length;
    if (this.vocabSize > PAIR_BASE) throw new LabError('bad_request', `tokenizer vocabulary ${this.vocabSize} exceeds ${PAIR_BASE}`);
    json.specials.forEach((s, i) => {
      this.specialIds.set(s, i);
      this.bytesOf.push(utf8Encoder.encode(s));
    });
    for (let b = 0; b < 256; b++) this.bytesOf.push(Uint8Array.of(b));
    json.merges.forEach(([a, b], i) => {
      const id = this.byteOffset + 256 + i;
      if (!(a >= this.byteOffset && a < id && b >= this.byteOffset && b < id)) {
        throw new LabError('bad_input', `tokenizer merge ${i} refers to ids [${a}, ${b}] outside [${this.byteOffset}, ${id})`);
      }
      const ba = this.bytesOf[a]!;
      const bb = this.bytesOf[b]!;
      const joined = new Uint8Array(ba.length + bb.length);
      joined.set(ba);
      joined.set(bb, ba.length);
      this.bytesOf.push(joined);
      this.ranks.set(a * PAIR_BASE + b, i);
    });
    // Longest first so that no special is matched by a prefix of another.
    const alts = [...json.specials].sort((x, y) => y.length - x.length || (x < y ? -1 : 1)).map(escapeRegExp);
    this.specialRe = new RegExp(alts.length ? alts.join('|') : '(?!)', 'g');
  }

  /** Trains merges on a corpus of strings. Special-token strings in the corpus are cut out before counting. */
  static train(corpus: Iterable<string>, opts: TrainTokenizerOptions = {}): Tokenizer {
    const vocabSize = opts.vocabSize ?? DEFAULT_VOCAB_SIZE;
    const minFrequency = Math.max(1, opts.minFrequency ?? 2);
    const specials = [...SPECIAL_TOKENS];
    const byteOffset = specials.length;
    if (vocabSize < byteOffset + 256 || vocabSize > PAIR_BASE) {
      throw new LabError('bad_request', `vocabSize must be in [${byteOffset + 256}, ${PAIR_BASE}], got ${vocabSize}`);
    }
    const pattern = opts.pattern ?? PRETOKENIZE_PATTERN;
    const base = new Tokenizer({ format: TOKENIZER_FORMAT, pattern, specials, merges: [] });

    // 1. Word frequencies.
    const wordFreq = new Map<string, number>();
    for (const doc of corpus) {
      for (const chunk of doc.split(base.specialRe)) {
        for (const w of pretokenize(chunk, base.re)) wordFreq.set(w, (wordFreq.get(w) ?? 0) + 1);
      }
    }
    // Sorted so that word indices (and everything downstream) do not depend on corpus order details.
    const uniq = [...wordFreq.keys()].sort();
    const words: number[][] = uniq.map((w) => Array.from(utf8Encoder.encode(w), (b) => b + byteOffset));
    const freqs: number[] = uniq.map((w) => wordFreq.get(w)!);

    // 2. Initial pair counts and where each pair occurs.
    const pairCount = new Map<number, number>();
    const pairWords = new Map<number, Set<number>>();
    const addPairs = (w: number, sign: number, changed: Set<number> | null): void => {
      const sym = words[w]!;
      const f = freqs[w]! * sign;
      for (let i = 0; i + 1 < sym.length; i++) {
        const key = sym[i]! * PAIR_BASE + sym[i + 1]!;
        const c = (pairCount.get(key) ?? 0) + f;
        if (c === 0) pairCount.delete(key);
        else pairCount.set(key, c);
        if (sign > 0) {
          let set = pairWords.get(key);
          if (!set) pairWords.set(key, (set = new Set()));
          set.add(w);
        }
        changed?.add(key);
      }
    };
    for (let w = 0; w < words.length; w++) addPairs(w, 1, null);
    const heap = new PairHeap();
    for (const [key, c] of pairCount) heap.push(c, key);

    // 3. Merge loop.
    const merges: [number, number][] = [];
    const changed = new Set<number>();
    while (byteOffset + 256 + merges.length < vocabSize) {
      let top = heap.pop();
      while (top && pairCount.get(top.key) !== top.count) top = heap.pop(); // stale entry
      if (!top || top.count < minFrequency) break;
      const a = Math.floor(top.key / PAIR_BASE);
      const b = top.key % PAIR_BASE;
      const id = byteOffset + 256 + merges.length;
      merges.push([a, b]);
      changed.clear();
      const affected = [...(pairWords.get(top.key) ?? [])].sort((x, y) => x - y);
      pairWords.delete(top.key);
      for (const w of affected) {
        const sym = words[w]!;
        let has = false;
        for (let i = 0; i + 1 < sym.length; i++) if (sym[i] === a && sym[i + 1] === b) has = true;
        if (!has) continue; // the set is lazy: the word may have lost this pair in an earlier merge
        addPairs(w, -1, changed);
        words[w] = mergePair(sym, a, b, id);
        addPairs(w, 1, changed);
      }
      for (const key of changed) {
        const c = pairCount.get(key);
        if (c !== undefined && c > 0) heap.push(c, key);
      }
    }
    return new Tokenizer({ format: TOKENIZER_FORMAT, pattern, specials, merges });
  }

  static fromJSON(value: unknown): Tokenizer {
    const v = value as Partial<TokenizerJSON> | null;
    if (!v || typeof v !== 'object' || v.format !== TOKENIZER_FORMAT) {
      throw new LabError('bad_input', `not a ${TOKENIZER_FORMAT} tokenizer (format: ${String(v?.format)})`);
    }
    if (typeof v.pattern !== 'string' || !Array.isArray(v.specials) || !Array.isArray(v.merges)) {
      throw new LabError('bad_input', 'tokenizer JSON needs pattern (string), specials and merges (arrays)');
    }
    for (const m of v.merges) {
      if (!Array.isArray(m) || m.length !== 2 || !Number.isInteger(m[0]) || !Number.isInteger(m[1])) {
        throw new LabError('bad_input', 'tokenizer merges must be [int, int] pairs');
      }
    }
    return new Tokenizer({ format: TOKENIZER_FORMAT, pattern: v.pattern, specials: v.specials.map(String), merges: v.merges });
  }

  toJSON(): TokenizerJSON {
    return {
      format: TOKENIZER_FORMAT,
      pattern: this.pattern,
      specials: [...this.specials],
      merges: this.merges.map(([a, b]) => [a, b]),
    };
  }

  /** Id of a special token; throws if this tokenizer does not have it. */
  special(token: SpecialToken | string): number {
    const id = this.specialIds.get(token);
    if (id === undefined) throw new LabError('bad_request', `tokenizer has no special token ${token}`);
    return id;
  }

  isSpecial(id: number): boolean {
    return id >= 0 && id < this.byteOffset;
  }

  encode(text: string, opts: EncodeOptions = {}): number[] {
    const out: number[] = [];
    if (opts.allowSpecial === false) {
      this.encodeOrdinary(text, out);
      return out;
    }
    let last = 0;
    this.specialRe.lastIndex = 0;
    for (const m of text.matchAll(this.specialRe)) {
      if (m.index > last) this.encodeOrdinary(text.slice(last, m.index), out);
      out.push(this.specialIds.get(m[0])!);
      last = m.index + m[0].length;
    }
    if (last < text.length) this.encodeOrdinary(text.slice(last), out);
    return out;
  }

  /** Concatenated bytes of the tokens (special tokens give their tag text). */
  decodeBytes(ids: readonly number[]): Uint8Array {
    let n = 0;
    for (const id of ids) n += this.tokenBytes(id).length;
    const out = new Uint8Array(n);
    let o = 0;
    for (const id of ids) {
      const b = this.tokenBytes(id);
      out.set(b, o);
      o += b.length;
    }
    return out;
  }

  /** Text of the tokens. Invalid UTF-8 (e.g. a cut multi-byte character) decodes to U+FFFD. */
  decode(ids: readonly number[]): string {
    return utf8Decoder.decode(this.decodeBytes(ids));
  }

  tokenBytes(id: number): Uint8Array {
    const b = this.bytesOf[id];
    if (b === undefined) throw new LabError('bad_request', `token id ${id} outside vocabulary [0, ${this.vocabSize})`);
    return b;
  }

  /** A printable form of one token for debug dumps: JSON-escaped text, or <0xNN> bytes for partial UTF-8. */
  tokenText(id: number): string {
    const bytes = this.tokenBytes(id);
    try {
      return JSON.stringify(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      return Array.from(bytes, (x) => `<0x${x.toString(16).padStart(2, '0').toUpperCase()}>`).join('');
    }
  }

  private encodeOrdinary(text: string, out: number[]): void {
    for (const w of pretokenize(text, this.re)) {
      let ids = this.cache.get(w);
      if (!ids) {
        ids = this.encodeWord(w);
        if (this.cache.size >= WORD_CACHE_LIMIT) this.cache.clear();
        this.cache.set(w, ids);
      }
      for (const id of ids) out.push(id);
    }
  }

  private encodeWord(word: string): number[] {
    let sym = Array.from(utf8Encoder.encode(word), (b) => b + this.byteOffset);
    while (sym.length > 1) {
      let bestRank = Infinity;
      for (let i = 0; i + 1 < sym.length; i++) {
        const r = this.ranks.get(sym[i]! * PAIR_BASE + sym[i + 1]!);
        if (r !== undefined && r < bestRank) bestRank = r;
      }
      if (bestRank === Infinity) break;
      const [a, b] = this.merges[bestRank]!;
      const id = this.byteOffset + 256 + bestRank;
      sym = mergePair(sym, a, b, id);
    }
    return sym;
  }
}

/** Trains a tokenizer (see Tokenizer.train). */
export function trainTokenizer(corpus: Iterable<string>, opts: TrainTokenizerOptions = {}): Tokenizer {
  return Tokenizer.train(corpus, opts);
}
