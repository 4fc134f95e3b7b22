// What the base model reads (`sailor pretrain`): text the lab owns, cut into training rows with the loss on
// every token. Two kinds of text, as the papers' base models get web text and then agentic continual
// pre-training: the simulated web (each page as the encyclopedia text it is built from, and the search
// results page for its title) and expert episodes in the ReAct format, cut exactly as the policy's context
// is cut at inference. Pure functions.
import type { MaskedTokens } from '../../model/mask';
import type { Tokenizer } from '../../model/tokenizer';
import type { SimWeb } from '../../agent/web';

/** The page's text and the results page a search for its title returns. */
export function webDocuments(web: SimWeb): string[] {
  return web.pages.flatMap((p) => [`${p.title}\n${p.sentences.join(' ')}`, web.search([p.title])]);
}

/**
 * One document as rows of at most `blockSize + 1` tokens: <|bos|> then the text, cut into consecutive
 * pieces; each row's first token is context, every other token a target.
 */
export function documentRows(tok: Tokenizer, text: string, blockSize: number): MaskedTokens[] {
  const ids = [tok.special('<|bos|>'), ...tok.encode(text)];
  const rows: MaskedTokens[] = [];
  for (let start = 0; start + 1 < ids.length; start += blockSize) {
    const piece = ids.slice(start, start + blockSize + 1);
    rows.push({ ids: piece, mask: piece.map((_, i) => (i === 0 ? 0 : 1)) });
  }
  return rows;
}

/** A training window with the loss on every token but the first (continual pre-training reads it all). */
export function fullLoss(row: MaskedTokens): MaskedTokens {
  return { ids: row.ids, mask: row.ids.map((_, i) => (i === 0 ? 0 : 1)) };
}

/**
 * A pick of `count` rows: a share `episodeShare` from the episodes, the rest from the web, each uniform within
 * its pool (a pool that is empty gives its share to the other). `draw(n)` is a uniform integer in [0, n).
 */
export function mixedPick(
  episodes: readonly MaskedTokens[], web: readonly MaskedTokens[], episodeShare: number, count: number, draw: (n: number) => number,
  coin: () => number,
): MaskedTokens[] {
  if (episodes.length === 0 && web.length === 0) return [];
  return Array.from({ length: count }, () => {
    const fromEpisodes = web.length === 0 || (episodes.length > 0 && coin() < episodeShare);
    const pool = fromEpisodes ? episodes : web;
    return pool[draw(pool.length)]!;
  });
}
