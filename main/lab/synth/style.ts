// How a question reads, measured (bench/research/question-style.ts; docs/pipeline.md, 'How the questions read'): length in
// words, numbers in scientific notation or with more significant digits than a reader needs, the "an X that is
// an X" tautology, chains of more than two "that" clauses in one sentence, and leaks of the answer.
import { mentionsAny } from './obfuscate';

export const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/** The text without quoted fragments (partial names are letters, not numbers to judge). */
const unquoted = (text: string): string => text.replace(/"[^"]*"/g, '""');

/** Numbers written with an exponent: "1.5e-10", "7E+3". */
export function scientificNumbers(text: string): string[] {
  return [...unquoted(text).matchAll(/(?<![\w/])-?\d+(?:\.\d+)?e[+-]?\d+\b/gi)].map((m) => m[0]);
}

/** Significant digits of a written number ("290,000" -> 2, "0.0042" -> 2, "12.50" -> 4). */
export function significantDigits(written: string): number {
  const s = written.replace(/[,\s-]/g, '');
  if (s.includes('.')) return s.replace('.', '').replace(/^0+/, '').length;
  return s.replace(/^0+/, '').replace(/0+$/, '').length;
}

/**
 * Numbers with more than 3 significant digits, years aside ("1993", "the 1990s", "500 BC": four digits
 * without grouping are read as a year), and clock times of UTC offsets ("UTC+05:30").
 */
export function overPreciseNumbers(text: string): string[] {
  const t = unquoted(text).replace(/UTC[+-]\d\d:\d\d/g, 'UTC');
  const out: string[] = [];
  for (const m of t.matchAll(/(?<![\w.,/])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w.]\d)/g)) {
    const w = m[0];
    const plain = w.replace(/^-/, '');
    if (/^\d{1,4}$/.test(plain) && Number(plain) >= 1000) continue; // a year
    if (significantDigits(w) > 3) out.push(w);
  }
  return out;
}

/** "an occupation that is an occupation of …", "Which currency is a currency of …": the noun said twice. */
export function tautologies(text: string): string[] {
  const patterns = [
    /\b(?:an?|another|the|certain) ((?:[a-z]+ )?[a-z]+) (?:that|which|who) (?:is|was|are|were) (?:an?|the) (?:[a-z]+ )?\1 of\b/gi,
    /\bWhich ((?:[a-z]+ )?[a-z]+) (?:is|was) (?:an?|the) (?:[a-z]+ )?\1 of\b/gi,
  ];
  return patterns.flatMap((re) => [...text.matchAll(re)].map((m) => m[0]));
}

/** The most "that" clauses in one sentence of the text. */
export function maxThatChain(text: string): number {
  return Math.max(0, ...text.split(/[.?!;]\s/).map((s) => (unquoted(s).match(/\bthat\b/gi) ?? []).length));
}

export interface StyleReport {
  questions: number;
  meanWords: number;
  medianWords: number;
  maxWords: number;
  scientific: number;
  overPrecise: number;
  tautologies: number;
  thatChainsOver2: number;
  leaks: number;
  /** Examples of each problem (question ids), for a look. */
  examples: Record<string, string[]>;
}

/** The figures of one dataset's questions. */
export function styleReport(qas: { id: string; question: string; answer: string; aliases: string[] }[]): StyleReport {
  const lengths = qas.map((q) => wordCount(q.question)).sort((a, b) => a - b);
  const examples: Record<string, string[]> = { scientific: [], overPrecise: [], tautologies: [], thatChains: [], leaks: [] };
  const count = (key: string, hit: (q: (typeof qas)[number]) => boolean): number => {
    let n = 0;
    for (const q of qas) {
      if (!hit(q)) continue;
      n++;
      if (examples[key]!.length < 5) examples[key]!.push(q.id);
    }
    return n;
  };
  return {
    questions: qas.length,
    meanWords: lengths.length ? lengths.reduce((a, b) => a + b, 0) / lengths.length : 0,
    medianWords: lengths.length ? lengths[Math.floor(lengths.length / 2)]! : 0,
    maxWords: lengths.length ? lengths[lengths.length - 1]! : 0,
    scientific: count('scientific', (q) => scientificNumbers(q.question).length > 0),
    overPrecise: count('overPrecise', (q) => overPreciseNumbers(q.question).length > 0),
    tautologies: count('tautologies', (q) => tautologies(q.question).length > 0),
    thatChainsOver2: count('thatChains', (q) => maxThatChain(q.question) > 2),
    leaks: count('leaks', (q) => mentionsAny(q.question, [q.answer, ...q.aliases])),
    examples,
  };
}
