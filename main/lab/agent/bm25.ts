// Okapi BM25 over an inverted index with typed-array postings, written for ~50k short pages:
// build is two passes (document frequencies, then fill), a query touches only its terms' postings.
// IDF is Lucene's ln(1 + (N - df + 0.5) / (df + 0.5)), which stays positive for very common terms.

export interface Bm25Options {
  k1: number;
  b: number;
}

export const BM25_DEFAULTS: Bm25Options = { k1: 1.2, b: 0.75 };

export interface Hit {
  doc: number;
  score: number;
}

interface Postings {
  docs: Int32Array;
  tfs: Float32Array;
}

export function bm25Idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** One term's BM25 contribution given its idf, term frequency and the document length ratio. */
export function bm25Term(idf: number, tf: number, lenRatio: number, opts: Bm25Options = BM25_DEFAULTS): number {
  return (idf * (tf * (opts.k1 + 1))) / (tf + opts.k1 * (1 - opts.b + opts.b * lenRatio));
}

export class Bm25Index {
  readonly size: number;
  readonly avgLength: number;
  private readonly lengths: Float32Array;
  private readonly postings = new Map<string, Postings>();
  private readonly scores: Float64Array;
  private readonly opts: Bm25Options;

  constructor(docs: readonly (readonly string[])[], opts: Partial<Bm25Options> = {}) {
    this.opts = { ...BM25_DEFAULTS, ...opts };
    this.size = docs.length;
    this.lengths = new Float32Array(docs.length);
    this.scores = new Float64Array(docs.length);
    // Pass 1: document frequency per term, so each postings list is allocated once at its final size.
    const df = new Map<string, number>();
    let total = 0;
    docs.forEach((tokens, d) => {
      this.lengths[d] = tokens.length;
      total += tokens.length;
      for (const t of new Set(tokens)) df.set(t, (df.get(t) ?? 0) + 1);
    });
    this.avgLength = docs.length ? total / docs.length || 1 : 1;
    const fill = new Map<string, number>();
    for (const [t, n] of df) {
      this.postings.set(t, { docs: new Int32Array(n), tfs: new Float32Array(n) });
      fill.set(t, 0);
    }
    // Pass 2: term frequencies, in increasing document order (so postings are sorted by doc id).
    docs.forEach((tokens, d) => {
      const tf = new Map<string, number>();
      for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, c] of tf) {
        const p = this.postings.get(t)!;
        const i = fill.get(t)!;
        p.docs[i] = d;
        p.tfs[i] = c;
        fill.set(t, i + 1);
      }
    });
  }

  docFreq(term: string): number {
    return this.postings.get(term)?.docs.length ?? 0;
  }

  idf(term: string): number {
    return bm25Idf(this.size, this.docFreq(term));
  }

  /** Top-k documents for the query terms (duplicates count once); ties go to the lower doc id. */
  search(queryTerms: readonly string[], k = 10): Hit[] {
    const terms = [...new Set(queryTerms)];
    const touched: number[] = [];
    const scores = this.scores;
    for (const t of terms) {
      const p = this.postings.get(t);
      if (!p) continue;
      const idf = bm25Idf(this.size, p.docs.length);
      for (let i = 0; i < p.docs.length; i++) {
        const d = p.docs[i]!;
        if (scores[d] === 0) touched.push(d);
        scores[d] = scores[d]! + bm25Term(idf, p.tfs[i]!, this.lengths[d]! / this.avgLength, this.opts);
      }
    }
    const top = topK(touched, (d) => scores[d]!, k);
    for (const d of touched) scores[d] = 0; // reset only what we touched: O(hits), not O(N)
    return top;
  }
}

/** The k best items by score (descending), ties by lower id; a bounded insertion list, fine for small k. */
export function topK(ids: readonly number[], score: (id: number) => number, k: number): Hit[] {
  const best: Hit[] = [];
  for (const id of ids) {
    const s = score(id);
    if (best.length === k && !better(s, id, best[k - 1]!)) continue;
    let i = best.length;
    while (i > 0 && better(s, id, best[i - 1]!)) i--;
    best.splice(i, 0, { doc: id, score: s });
    if (best.length > k) best.pop();
  }
  return best;
}

function better(score: number, id: number, than: Hit): boolean {
  return score > than.score || (score === than.score && id < than.doc);
}

/**
 * Scores sentences of one document against query terms with BM25 at sentence granularity; `idf` comes
 * from the corpus (so rare words matter more). Returns scores aligned with `sentences`.
 */
export function scoreSentences(
  sentences: readonly (readonly string[])[],
  queryTerms: readonly string[],
  idf: (term: string) => number,
  opts: Bm25Options = BM25_DEFAULTS,
): number[] {
  const terms = [...new Set(queryTerms)];
  const avg = sentences.reduce((a, s) => a + s.length, 0) / Math.max(1, sentences.length) || 1;
  return sentences.map((toks) => {
    let score = 0;
    for (const t of terms) {
      let tf = 0;
      for (const w of toks) if (w === t) tf++;
      if (tf > 0) score += bm25Term(idf(t), tf, toks.length / avg, opts);
    }
    return score;
  });
}
