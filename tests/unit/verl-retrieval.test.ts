// The retrieval view of the simulated web (agent/retrieval.ts), on hand-checked graphs (a navigational query puts
// the page with that exact title first even when BM25 ranks another page higher), and the service's Host rule.
import { describe, expect, it } from 'vitest';
import type { Graph } from '../../main/lab/formats/index';
import { SimWeb } from '../../main/lab/agent/web';
import { accessPages, pageContents, pageTitled, retrieve, titleKey } from '../../main/lab/agent/retrieval';
import { unforgeableHost } from '../../main/lab/server/web-service';

const node = (id: string, name: string): Graph['nodes'][number] => ({ id, type: 'city', name, aliases: [], attrs: {}, meta: {} });

/** "Paris" has one mention of its name; "Paris Paris Paris" has more, so BM25 alone ranks it first for "Paris". */
function parisGraph(): Graph {
  return {
    format: 'sailor.graph/1',
    nodes: [node('q1', 'Paris Paris Paris'), node('q2', 'Paris'), node('q3', 'Lyon')],
    edges: [{ id: 'e1', source: 'q1', target: 'q3', relation: 'twinned_with', meta: {} }],
  };
}

describe('retrieve', () => {
  const web = new SimWeb(parisGraph());

  it('puts the page titled by the query first, above a higher BM25 score', () => {
    expect(web.pages[web.rank('Paris', 3)[0]!.doc]!.title).toBe('Paris Paris Paris');
    const hits = retrieve(web, 'Paris', 3);
    expect(hits.map((h) => h.page.title)).toEqual(['Paris', 'Paris Paris Paris', 'Lyon']); // Lyon's page names its twin
    expect(hits[0]!.score).toBe(hits[1]!.score); // scored as the best hit: scores stay in order
  });

  it('matches titles across case, accents and spacing, and keeps k', () => {
    expect(titleKey('  PARÍS ')).toBe('paris');
    expect(pageTitled(web, ' paris ')?.nodeId).toBe('q2');
    expect(retrieve(web, 'paris', 1).map((h) => h.page.nodeId)).toEqual(['q2']);
    expect(retrieve(web, 'Lyon', 3)[0]!.page.title).toBe('Lyon');
    expect(retrieve(web, 'nothing here', 3)).toEqual([]);
  });

  it('gives contents as "Title\\nbody" and null for an unknown URL', () => {
    const paris = web.pages.find((p) => p.title === 'Paris')!;
    expect(pageContents(paris)).toBe(`Paris\n${paris.sentences.join(' ')}`);
    expect(accessPages(web, [paris.url, 'sim://q2', 'sim://nowhere'])).toEqual([{ contents: pageContents(paris) }, { contents: pageContents(paris) }, null]);
  });
});

describe('the web service on loopback', () => {
  it('answers Host headers naming an address or localhost, never a DNS name', () => {
    for (const h of ['127.0.0.1:8000', 'localhost:8000', 'localhost', '0.0.0.0:8000', '[::1]:8000', '127.0.0.1']) expect(unforgeableHost(h), h).toBe(true);
    for (const h of [undefined, '', 'evil.example:8000', 'localhost.evil.example', '127.0.0.1.nip.io:8000', '[::1]x']) expect(unforgeableHost(h), String(h)).toBe(false);
  });
});
