// The simulated web (WebSailor-V2's offline environment): one encyclopedia-like page per graph node, a
// BM25 search engine over the pages, and an extractive `visit` that answers in WebSailor's observation
// layout. Deterministic, no I/O, never throws on bad tool input: every problem is an observation string.
import type { AttrValue, Graph, GraphNode } from '../formats/index';
import { Bm25Index, type Hit, scoreSentences } from './bm25';
import { labelWords, slugify, tokenize } from './text';

export interface Page {
  index: number;
  nodeId: string;
  url: string;
  title: string;
  sentences: string[];
  /** Other URLs this page answers to (the lowercase slug of earlier versions). */
  aliases?: string[];
}

export interface SearchResult {
  title: string;
  snippet: string;
  url: string;
}

export interface WebOptions {
  topK: number; // results per query
  maxQueries: number; // queries per search call
  maxUrls: number; // pages per visit call
  maxEvidence: number; // evidence sentences per visited page
  snippetChars: number;
}

export const WEB_DEFAULTS: WebOptions = { topK: 10, maxQueries: 5, maxUrls: 5, maxEvidence: 8, snippetChars: 240 };

export const URL_SCHEME = 'sim://';

// ---------- prose ----------

const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
];

/** ISO `YYYY`, `YYYY-MM`, `YYYY-MM-DD` (optionally negative = BC) -> "1 April 1993", "April 1993", "44 BC". */
export function formatDate(iso: string): string {
  const m = /^(-?)(\d{1,6})(?:-(\d{1,2}))?(?:-(\d{1,2}))?$/.exec(iso.trim());
  if (!m) return iso;
  const year = `${Number(m[2])}${m[1] ? ' BC' : ''}`;
  const month = m[3] ? MONTHS[Number(m[3]) - 1] : undefined;
  if (!month) return year;
  return m[4] ? `${Number(m[4])} ${month} ${year}` : `${month} ${year}`;
}

export function formatAttrValue(v: AttrValue): string {
  if (v.type === 'date') return formatDate(v.value);
  if (v.type === 'number') return v.unit ? `${v.value} ${labelWords(v.unit)}` : String(v.value);
  return v.value;
}

const PREPOSITIONS = new Set(['of', 'in', 'at', 'by', 'to', 'for', 'from', 'on', 'with', 'into', 'as', 'under', 'through', 'near']);
const IRREGULAR_PARTICIPLES = new Set(['born', 'known', 'made', 'written', 'built', 'held', 'won', 'given', 'led', 'run', 'drawn', 'sung', 'spoken', 'taken']);
// Participles that describe a lasting state read better with "is" ("is located in") than "was".
const STATE_PARTICIPLES = new Set(['located', 'based', 'situated', 'headquartered', 'named', 'known', 'affiliated', 'listed', 'married', 'spoken', 'written', 'used']);

/**
 * A relation label as a verb phrase, so a relation reads as a sentence "<source> <phrase> <target>.":
 * founded_by -> "was founded by", located_in -> "is located in", flows_into -> "flows into",
 * capital_of -> "is capital of", official_language -> "has official language", borders -> "borders".
 * The expert reads pages with the same function.
 */
export function relationPhrase(relation: string): string {
  const ws = labelWords(relation).toLowerCase().split(' ').filter(Boolean);
  if (ws.length === 0) return 'is related to';
  const first = ws[0]!;
  const second = ws[1];
  if (['is', 'was', 'has', 'had', 'have', 'does'].includes(first)) return ws.join(' ');
  const participle = first.endsWith('ed') || IRREGULAR_PARTICIPLES.has(first);
  if (participle && second !== undefined && PREPOSITIONS.has(second)) return `${STATE_PARTICIPLES.has(first) ? 'is' : 'was'} ${ws.join(' ')}`;
  if (participle && ws.length === 1) return first; // "founded": active voice
  const verb3 = first.length > 3 && first.endsWith('s') && !/(ss|us|is)$/.test(first); // flows, uses, serves, borders
  if (verb3) return ws.join(' ');
  if (ws.slice(1).some((w) => PREPOSITIONS.has(w))) return `is ${ws.join(' ')}`; // capital of, part of region
  return `has ${ws.join(' ')}`; // a noun: official language, state capital, parent
}

export function relationSentence(relation: string, source: string, target: string): string {
  return `${source} ${relationPhrase(relation)} ${target}.`;
}

/** Past verbs that read without "was" ("died in 1974"); other one-word participles take it ("was born in 1901"). */
const INTRANSITIVE_PAST = new Set(['died', 'retired', 'ended', 'closed', 'started', 'began', 'debuted']);

/**
 * An attribute as a sentence: "The population of Lyon is 513,275." An attribute named by one participle reads as
 * what happened, not as a noun: "Louis Isadore Kahn was born in 1901." (not "The born of … is 1901.").
 */
export function attrSentence(attr: string, name: string, value: AttrValue): string {
  const ws = labelWords(attr).toLowerCase().split(' ').filter(Boolean);
  const only = ws.length === 1 ? ws[0]! : '';
  const participle = only !== '' && (IRREGULAR_PARTICIPLES.has(only) || INTRANSITIVE_PAST.has(only) || (only.length > 4 && only.endsWith('ed')));
  if (participle) return `${name} ${INTRANSITIVE_PAST.has(only) ? '' : 'was '}${only} in ${formatAttrValue(value)}.`;
  return `The ${labelWords(attr)} of ${name} is ${formatAttrValue(value)}.`;
}

export function typeWords(type: string): string {
  return labelWords(type) || 'entity';
}

export function leadSentence(node: GraphNode): string {
  const tw = typeWords(node.type);
  const article = /^[aeiou]/i.test(tw) ? 'an' : 'a';
  const aliases = node.aliases.filter((a) => a && a !== node.name);
  const aka = aliases.length ? ` (also known as ${aliases.join('; ')})` : '';
  return `${nodeName(node)}${aka} is ${article} ${tw}.`;
}

function nodeName(node: GraphNode): string {
  return node.name.trim() || node.id;
}

/** One page per node: lead, attributes (sorted by name), outgoing then incoming relations. */
export function pagesFromGraph(graph: Graph): Page[] {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const out = new Map<string, string[]>();
  const inc = new Map<string, string[]>();
  for (const e of graph.edges) {
    const s = byId.get(e.source);
    const t = byId.get(e.target);
    if (!s || !t) continue;
    const sentence = relationSentence(e.relation, nodeName(s), nodeName(t));
    (out.get(s.id) ?? out.set(s.id, []).get(s.id)!).push(sentence);
    if (t.id !== s.id) (inc.get(t.id) ?? inc.set(t.id, []).get(t.id)!).push(sentence);
  }
  const urls = pageUrls(graph.nodes);
  const legacy = legacySlugUrls(graph.nodes);
  return graph.nodes.map((node, index) => {
    const name = nodeName(node);
    const attrs = Object.keys(node.attrs)
      .sort()
      .map((k) => attrSentence(k, name, node.attrs[k]!));
    return {
      index,
      nodeId: node.id,
      url: urls[index]!,
      ...(legacy[index] !== urls[index] ? { aliases: [legacy[index]!] } : {}),
      title: name,
      sentences: [leadSentence(node), ...attrs, ...(out.get(node.id) ?? []), ...(inc.get(node.id) ?? [])],
    };
  });
}

/**
 * Wikipedia-style addresses: `sim://<title with _ for spaces>` when that is unique and not also some
 * node's id, otherwise `sim://<id>`. The address spells the title with the title's own words, so a policy
 * that has read a name can write its URL (a lowercase slug is a different token sequence to copy).
 */
function pageUrls(nodes: readonly GraphNode[]): string[] {
  return uniqueOrId(nodes, (n) => titleAddress(n.name));
}

/** The lowercase slugs of earlier versions (`sim://modern-greek`), still answered so old trajectories replay. */
function legacySlugUrls(nodes: readonly GraphNode[]): string[] {
  return uniqueOrId(nodes, (n) => slugify(n.name));
}

const titleAddress = (title: string): string => title.trim().replace(/\s+/g, '_');

function uniqueOrId(nodes: readonly GraphNode[], path: (n: GraphNode) => string): string[] {
  const ids = new Set(nodes.map((n) => n.id));
  const count = new Map<string, number>();
  const paths = nodes.map(path);
  for (const s of paths) count.set(s.toLowerCase(), (count.get(s.toLowerCase()) ?? 0) + 1);
  return nodes.map((n, i) => {
    const s = paths[i]!;
    return URL_SCHEME + (s && count.get(s.toLowerCase()) === 1 && !ids.has(s) ? s : n.id);
  });
}

// ---------- observation layout (WebSailor / Qwen-Agent) ----------

export function formatSearchObservation(query: string, results: readonly SearchResult[]): string {
  if (results.length === 0) return `No results found for '${query}'. Try with a more general query.`;
  const items = results.map((r, i) => `${i + 1}. [${r.title}](${r.url})\n${r.snippet}`);
  return `A search for '${query}' found ${results.length} results:\n\n## Web Results\n${items.join('\n\n')}`;
}

export function formatVisitObservation(url: string, goal: string, evidence: string, summary: string): string {
  return (
    `The useful information in ${url} for user goal ${goal} as follows: \n\n` +
    `Evidence in page: \n${evidence}\n\nSummary: \n${summary}\n\n`
  );
}

export const VISIT_FAILED_EVIDENCE = 'The provided webpage content could not be accessed. Please check the URL or file format.';
export const VISIT_FAILED_SUMMARY = 'The webpage content could not be processed, and therefore, no information is available.';

/** Joins the per-query or per-URL parts of one observation. */
export const OBSERVATION_SEPARATOR = '\n=======\n';

export interface Extract {
  evidence: string[];
  summary: string;
}

/**
 * Extractive goal-focused reading of a page: the `max` sentences most relevant to the goal (BM25 with the
 * given idf), in page order; summary = the lead sentence plus the best-scoring one. When nothing matches,
 * the opening sentences, and a summary that says so.
 */
export function extractEvidence(
  sentences: readonly string[],
  goal: string,
  idf: (term: string) => number,
  max: number,
): Extract {
  if (sentences.length === 0) return { evidence: [], summary: 'The page is empty.' };
  const scores = scoreSentences(sentences.map(tokenize), tokenize(goal), idf);
  const ranked = scores
    .map((score, i) => ({ score, i }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i);
  if (ranked.length === 0) {
    const opening = sentences.slice(0, Math.min(3, max));
    return { evidence: opening, summary: `Nothing in the page addresses the goal directly. ${sentences[0]}` };
  }
  const chosen = ranked.slice(0, max).map((x) => x.i).sort((a, b) => a - b);
  const best = ranked[0]!.i;
  const summary = best === 0 ? sentences[0]! : `${sentences[0]} ${sentences[best]}`;
  return { evidence: chosen.map((i) => sentences[i]!), summary };
}

// ---------- the simulated web ----------

export class SimWeb {
  readonly pages: Page[];
  readonly options: WebOptions;
  private readonly index: Bm25Index;
  private readonly byUrl = new Map<string, Page>();
  private readonly byLowerUrl = new Map<string, Page>();

  constructor(graphOrPages: Graph | Page[], options: Partial<WebOptions> = {}) {
    this.options = { ...WEB_DEFAULTS, ...options };
    this.pages = Array.isArray(graphOrPages) ? graphOrPages : pagesFromGraph(graphOrPages);
    this.index = new Bm25Index(this.pages.map((p) => tokenize(`${p.title}\n${p.sentences.join(' ')}`)));
    // A page answers to its canonical URL, to `sim://<node id>` (a permalink, like a Wikidata Q-id) and to
    // its aliases; any of them in any letter case, when that does not clash with another page's URL.
    for (const p of this.pages) this.byUrl.set(p.url, p);
    for (const p of this.pages) for (const u of [URL_SCHEME + p.nodeId, ...(p.aliases ?? [])]) if (!this.byUrl.has(u)) this.byUrl.set(u, p);
    for (const [u, p] of [...this.byUrl]) if (!this.byLowerUrl.has(u.toLowerCase())) this.byLowerUrl.set(u.toLowerCase(), p);
  }

  idf = (term: string): number => this.index.idf(term);

  page(url: string): Page | undefined {
    const u = url.trim().replace(/\/+$/, '');
    return this.byUrl.get(u) ?? this.byLowerUrl.get(u.toLowerCase());
  }

  /** Ranking only: the top-k page indices and BM25 scores (the bench compares this with SQLite FTS5). */
  rank(query: string, k = this.options.topK): Hit[] {
    return this.index.search(tokenize(query), k);
  }

  /** Top results for one query; the snippet is the page's sentence that best matches the query. */
  searchResults(query: string): SearchResult[] {
    const terms = tokenize(query);
    if (terms.length === 0) return [];
    return this.index.search(terms, this.options.topK).map((hit) => {
      const page = this.pages[hit.doc]!;
      return { title: page.title, url: page.url, snippet: this.snippet(page, terms) };
    });
  }

  private snippet(page: Page, terms: readonly string[]): string {
    const scores = scoreSentences(page.sentences.map(tokenize), terms, this.idf);
    let best = 0;
    for (let i = 1; i < scores.length; i++) if (scores[i]! > scores[best]!) best = i;
    const s = page.sentences[best] ?? '';
    return s.length > this.options.snippetChars ? `${s.slice(0, this.options.snippetChars - 1).trimEnd()}…` : s;
  }

  /** The `search` tool: one observation for several queries. */
  search(queries: readonly string[]): string {
    const qs = queries.map((q) => q.trim()).filter((q) => q.length > 0);
    if (qs.length === 0) return '[search] Empty query: give at least one non-empty query string.';
    if (qs.length > this.options.maxQueries) {
      return `[search] Too many queries: got ${qs.length}, the limit is ${this.options.maxQueries} per call.`;
    }
    return qs.map((q) => formatSearchObservation(q, this.searchResults(q))).join(OBSERVATION_SEPARATOR);
  }

  /** The `visit` tool: evidence and summary per page, focused on the goal. */
  visit(urls: readonly string[], goal: string): string {
    const us = urls.map((u) => u.trim()).filter((u) => u.length > 0);
    if (us.length === 0) return '[visit] No URL given: pass at least one URL from the search results.';
    if (us.length > this.options.maxUrls) {
      return `[visit] Too many URLs: got ${us.length}, the limit is ${this.options.maxUrls} per call.`;
    }
    return us
      .map((u) => {
        const page = this.page(u);
        if (!page) return formatVisitObservation(u, goal, VISIT_FAILED_EVIDENCE, VISIT_FAILED_SUMMARY);
        const { evidence, summary } = extractEvidence(page.sentences, goal, this.idf, this.options.maxEvidence);
        return formatVisitObservation(u, goal, evidence.join('\n'), summary);
      })
      .join(OBSERVATION_SEPARATOR);
  }
}
