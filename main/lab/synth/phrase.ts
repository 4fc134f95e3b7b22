// Optional LLM phrasing: the LLM only phrases (docs/pipeline.md, 'Questions and verification'). Sends the template
// prose to an OpenAI-compatible chat endpoint and asks for a fluent rewrite with the same facts. The query and the
// answer never change. A rewrite is rejected, and the template prose kept, when it names the answer or an alias, when
// it drops a named entity, a quoted fragment, a number, a period's part ("early"), a hemisphere or a UTC offset of
// the template (facts changed), when it grows more than 20 % longer (padding), or when the endpoint fails; the
// reason is returned so the caller can count it.
import { excerpt, LabError } from '../base/errors';
import { mentionsAny } from './obfuscate';
import { wordCount } from './style';

export interface LlmConfig {
  /** e.g. http://127.0.0.1:8000/v1 — the request goes to `${baseUrl}/chat/completions`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Per request (default 30 s). */
  timeoutMs?: number;
  temperature?: number;
}

export interface PhraseInput {
  question: string;
  answer: string;
  aliases: string[];
  /** Names and literals the rewrite must keep verbatim (named entities of the question). */
  keep?: string[];
}

export type PhraseOutcome = 'rewritten' | 'leaked_answer' | 'changed_facts' | 'too_long' | 'empty' | 'error';

/** A rewrite may be this much longer than the template (in words) before it is refused as padded. */
export const MAX_GROWTH = 1.2;

export interface PhraseResult {
  question: string;
  outcome: PhraseOutcome;
  /** The rejected rewrite or the error message. */
  detail?: string;
}

const SYSTEM_PROMPT = [
  'You rewrite quiz questions into fluent, natural English.',
  'Keep every fact and constraint exactly: the same entities, relations, periods, ranges, numbers and quoted letters.',
  'Do not add facts, do not drop any condition, do not guess or reveal the answer.',
  'Keep every proper name and every quoted string exactly as written.',
  'Reply with the rewritten question only.',
].join(' ');

/** Things a faithful rewrite must still contain: quoted fragments (with their quotes), numbers, the given names. */
export function factsToKeep(question: string, keep: string[] = []): string[] {
  const quoted = [...question.matchAll(/"[^"]+"/g)].map((m) => m[0]);
  const numbers = [...question.matchAll(/\d+(?:[.,]\d+)*/g)].map((m) => m[0]);
  return [...new Set([...quoted, ...numbers, ...keep])];
}

/**
 * The words that carry a constraint's value besides its numbers: a period's part ("early", "mid", "late"), a
 * coordinate's hemisphere ("19°N") and a UTC offset ("UTC-05:00"). "in the early 1990s" rewritten as "in the
 * 1990s" keeps the number but widens the period.
 */
export function qualifiersToKeep(question: string): string[] {
  const parts = [...question.matchAll(/\b(early|mid|late)(?=[- ](?:\d|[\w-]+ century))/gi)].map((m) => m[1]!.toLowerCase());
  const coords = [...question.matchAll(/\d+(?:\.\d+)?°[NSEW]/g)].map((m) => m[0]);
  const utc = [...question.matchAll(/UTC[+-]\d\d:\d\d/g)].map((m) => m[0]);
  return [...new Set([...parts, ...coords, ...utc])];
}

/** Is `fact` still in `text`? Quoted fragments verbatim (any quote style), numbers between non-digits, names as words. */
function kept(text: string, fact: string): boolean {
  if (fact.startsWith('"')) return text.replace(/[“”„‟«»]/g, '"').toLowerCase().includes(fact.toLowerCase());
  if (/°/.test(fact)) return text.includes(fact);
  if (/^\d/.test(fact)) return new RegExp(`(^|[^\\d.,])${fact.replace(/[.,]/g, '\\$&')}($|[^\\d])`).test(text); // "1990" in "1990s"
  return mentionsAny(text, [fact]);
}

/** One chat completion; throws LabError with a message naming the endpoint on any failure. */
export async function chatComplete(cfg: LlmConfig, messages: { role: 'system' | 'user'; content: string }[]): Promise<string> {
  const url = `${cfg.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const timeoutMs = cfg.timeoutMs ?? 30_000;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (cfg.apiKey) headers.authorization = `Bearer ${cfg.apiKey}`;
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: cfg.model, messages, temperature: cfg.temperature ?? 0.7 }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    // Inside the try: a server that sends its headers and then stalls times out here, and must be named too.
    text = await res.text();
  } catch (err) {
    const e = err as Error;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') throw new LabError('internal', `LLM ${url}: no answer within ${timeoutMs} ms`);
    throw new LabError('internal', `LLM ${url}: request failed (${e.message}${e.cause instanceof Error ? `: ${e.cause.message}` : ''})`);
  }
  if (!res.ok) throw new LabError('internal', `LLM ${url}: HTTP ${res.status} ${res.statusText}${text ? `: ${excerpt(text)}` : ''}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new LabError('internal', `LLM ${url}: response is not JSON: ${excerpt(text)}`);
  }
  const content = (body as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new LabError('internal', `LLM ${url}: response has no choices[0].message.content`);
  return content;
}

/** Rewrites the template prose of one question; never throws (the outcome says what happened). */
export async function phraseQuestion(cfg: LlmConfig, input: PhraseInput): Promise<PhraseResult> {
  let raw: string;
  try {
    raw = await chatComplete(cfg, [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: input.question },
    ]);
  } catch (err) {
    return { question: input.question, outcome: 'error', detail: (err as Error).message };
  }
  const rewrite = raw.trim().replace(/^["“]|["”]$/g, '').trim();
  if (!rewrite) return { question: input.question, outcome: 'empty' };
  if (mentionsAny(rewrite, [input.answer, ...input.aliases])) return { question: input.question, outcome: 'leaked_answer', detail: rewrite };
  const missing = [...factsToKeep(input.question, input.keep), ...qualifiersToKeep(input.question)].filter((k) => !kept(rewrite, k));
  if (missing.length) return { question: input.question, outcome: 'changed_facts', detail: `dropped ${missing.join(', ')}` };
  const [before, after] = [wordCount(input.question), wordCount(rewrite)];
  if (after > before * MAX_GROWTH) return { question: input.question, outcome: 'too_long', detail: `${after} words for ${before} (at most ${Math.floor(before * MAX_GROWTH)})` };
  return { question: rewrite, outcome: 'rewritten' };
}
