// The simulated web as a dense-retrieval-style corpus, for the wire protocols of Search-R1's retriever (used
// by verl's old SearchTool) and ASearcher's local server: a page is one document whose contents are its title,
// a newline, then its text. Pure functions over SimWeb; server/web-service.ts puts them on HTTP.
import type { Page, SimWeb } from './web';

export interface RetrievedDoc {
  page: Page;
  score: number;
}

/** Title then body, the `contents` layout both protocols use ("Title\nbody"). */
export function pageContents(page: Page): string {
  return `${page.title}\n${page.sentences.join(' ')}`;
}

/** Case, accents and spacing folded: "  the  eiffel Tower " and "The Eiffel Tower" are one title. */
export function titleKey(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

const titleIndexes = new WeakMap<SimWeb, Map<string, Page>>();

/** The page whose title is exactly the query (folded), the first of them when titles repeat. */
export function pageTitled(web: SimWeb, query: string): Page | undefined {
  let index = titleIndexes.get(web);
  if (!index) {
    index = new Map();
    for (const p of web.pages) if (!index.has(titleKey(p.title))) index.set(titleKey(p.title), p);
    titleIndexes.set(web, index);
  }
  return index.get(titleKey(query));
}

/**
 * The top-k pages for one query by BM25. A navigational query (the exact title of a page) puts that page
 * first whatever its BM25 rank, as a web search engine does, scored as the best hit so scores stay ordered.
 */
export function retrieve(web: SimWeb, query: string, k: number): RetrievedDoc[] {
  const hits = web.rank(query, k).map((h) => ({ page: web.pages[h.doc]!, score: h.score }));
  const named = pageTitled(web, query);
  if (!named || k <= 0) return hits;
  const rest = hits.filter((h) => h.page !== named);
  const top = hits[0]?.score ?? 0;
  return [{ page: named, score: top }, ...rest].slice(0, k);
}

/** The full text of each URL's page (any URL the simulated web answers to), null for an unknown one. */
export function accessPages(web: SimWeb, urls: readonly string[]): Array<{ contents: string } | null> {
  return urls.map((u) => {
    const page = web.page(u);
    return page ? { contents: pageContents(page) } : null;
  });
}
