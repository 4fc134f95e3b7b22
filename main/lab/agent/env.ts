// Toolsets the runtime can run against: the simulated web (offline, deterministic) and real HTTP services
// behind the managed tool layer. Both answer in the same observation layout, so a policy cannot tell which
// environment it is in except by content.
import type { ToolAction } from '../formats/index';
import { errorMessage } from '../base/errors';
import { Bm25Index } from './bm25';
import type { ChatFn } from './thoughts';
import { DEFAULT_TOOLS } from './react';
import type { Toolset } from './runtime';
import { splitSentences, tokenize } from './text';
import type { ManagedTool, PageContent } from './tools';
import {
  OBSERVATION_SEPARATOR,
  VISIT_FAILED_EVIDENCE,
  VISIT_FAILED_SUMMARY,
  WEB_DEFAULTS,
  type SearchResult,
  type SimWeb,
  extractEvidence,
  formatSearchObservation,
  formatVisitObservation,
} from './web';

function unknownTool(action: ToolAction): string {
  return `[error] Unknown tool '${action.name}'. Available tools: search, visit.`;
}

export function simToolset(web: SimWeb): Toolset {
  return {
    specs: DEFAULT_TOOLS,
    async execute(action) {
      const a = action.arguments;
      if (action.name === 'search') return web.search((a.query as string[] | undefined) ?? []);
      if (action.name === 'visit') return web.visit((a.url as string[] | undefined) ?? [], String(a.goal ?? ''));
      return unknownTool(action);
    },
  };
}

export interface HttpToolsetConfig {
  search: ManagedTool<{ query: string }, SearchResult[]>;
  page: ManagedTool<{ url: string }, PageContent>;
  /** When set, visit asks this model for evidence and summary (WebSailor's summary model). */
  summarise?: ChatFn;
  maxQueries?: number;
  maxUrls?: number;
  maxEvidence?: number;
  topK?: number;
}

/** Evidence and summary of a fetched page by the summary model; null when its reply is unusable. */
async function llmExtract(chat: ChatFn, page: PageContent, goal: string): Promise<{ evidence: string; summary: string } | null> {
  const reply = await chat([
    {
      role: 'user',
      content: [
        'Please process the following webpage content and user goal to extract relevant information.',
        `## Webpage Content\n${page.text.slice(0, 24_000)}`,
        `## User Goal\n${goal}`,
        'Reply with a JSON object {"evidence": "<the most relevant passages, verbatim>", "summary": "<a concise paragraph relating them to the goal>"} and nothing else.',
      ].join('\n\n'),
    },
  ]);
  const m = /\{[\s\S]*\}/.exec(reply);
  if (!m) return null;
  try {
    const v = JSON.parse(m[0]) as { evidence?: unknown; summary?: unknown };
    if (typeof v.evidence !== 'string' || typeof v.summary !== 'string') return null;
    return { evidence: v.evidence, summary: v.summary };
  } catch {
    return null;
  }
}

/** Extractive reading of arbitrary page text, with idf taken over the page's own sentences. */
export function extractFromText(text: string, goal: string, maxEvidence: number): { evidence: string; summary: string } {
  const sentences = splitSentences(text);
  const index = new Bm25Index(sentences.map(tokenize));
  const ex = extractEvidence(sentences, goal, (t) => index.idf(t), maxEvidence);
  return { evidence: ex.evidence.join('\n'), summary: ex.summary };
}

export function httpToolset(cfg: HttpToolsetConfig): Toolset {
  const maxQueries = cfg.maxQueries ?? WEB_DEFAULTS.maxQueries;
  const maxUrls = cfg.maxUrls ?? WEB_DEFAULTS.maxUrls;
  const maxEvidence = cfg.maxEvidence ?? WEB_DEFAULTS.maxEvidence;
  const topK = cfg.topK ?? WEB_DEFAULTS.topK;

  const search = async (queries: string[]): Promise<string> => {
    const qs = queries.map((q) => q.trim()).filter(Boolean);
    if (qs.length === 0) return '[search] Empty query: give at least one non-empty query string.';
    if (qs.length > maxQueries) return `[search] Too many queries: got ${qs.length}, the limit is ${maxQueries} per call.`;
    const parts = await Promise.all(
      qs.map(async (q) => {
        try {
          return formatSearchObservation(q, (await cfg.search.call({ query: q })).slice(0, topK));
        } catch (err) {
          return `[search] The search for '${q}' failed: ${errorMessage(err)}. Try again later or rephrase.`;
        }
      }),
    );
    return parts.join(OBSERVATION_SEPARATOR);
  };

  const visit = async (urls: string[], goal: string): Promise<string> => {
    const us = urls.map((u) => u.trim()).filter(Boolean);
    if (us.length === 0) return '[visit] No URL given: pass at least one URL from the search results.';
    if (us.length > maxUrls) return `[visit] Too many URLs: got ${us.length}, the limit is ${maxUrls} per call.`;
    const parts = await Promise.all(
      us.map(async (u) => {
        let page: PageContent;
        try {
          page = await cfg.page.call({ url: u });
        } catch {
          return formatVisitObservation(u, goal, VISIT_FAILED_EVIDENCE, VISIT_FAILED_SUMMARY);
        }
        let ex: { evidence: string; summary: string } | null = null;
        if (cfg.summarise) ex = await llmExtract(cfg.summarise, page, goal).catch(() => null);
        ex ??= extractFromText(page.text, goal, maxEvidence); // degrade to extraction, never to nothing
        return formatVisitObservation(u, goal, ex.evidence, ex.summary);
      }),
    );
    return parts.join(OBSERVATION_SEPARATOR);
  };

  return {
    specs: DEFAULT_TOOLS,
    async execute(action) {
      const a = action.arguments;
      if (action.name === 'search') return search((a.query as string[] | undefined) ?? []);
      if (action.name === 'visit') return visit((a.url as string[] | undefined) ?? [], String(a.goal ?? ''));
      return unknownTool(action);
    },
  };
}
