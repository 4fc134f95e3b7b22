import { describe, expect, it } from 'vitest';
import { Bm25Index, bm25Idf, topK } from '../../main/lab/agent/bm25';
import { demoGraph } from '../../main/lab/agent/demo';
import { normalizeAnswer, slugify, splitSentences, tokenize } from '../../main/lab/agent/text';
import {
  SimWeb,
  VISIT_FAILED_EVIDENCE,
  extractEvidence,
  formatDate,
  pagesFromGraph,
  attrSentence,
  relationPhrase,
} from '../../main/lab/agent/web';
import type { Graph } from '../../main/lab/formats/index';

describe('text', () => {
  it('tokenizes with lowercasing, accent and punctuation stripping, no stop words', () => {
    expect(tokenize('The Café, in São-Paulo (1993)!')).toEqual(['cafe', 'sao', 'paulo', '1993']);
    expect(slugify('FormFactor, Inc.')).toBe('formfactor-inc');
    expect(normalizeAnswer('The  FormFactor, Inc.')).toBe('formfactor inc');
  });

  it('splits sentences without breaking on lower-case continuations', () => {
    expect(splitSentences('A is a city. B was born in A.\nC is big')).toEqual(['A is a city.', 'B was born in A.', 'C is big']);
  });
});

describe('BM25', () => {
  // Hand-computed: N = 3, avgdl = 2, k1 = 1.2, b = 0.75.
  const index = new Bm25Index([['a', 'b'], ['a', 'c', 'c'], ['b']]);

  it('uses the Lucene idf', () => {
    expect(bm25Idf(3, 1)).toBeCloseTo(Math.log(1 + 2.5 / 1.5), 10); // 0.98083
    expect(index.idf('zzz')).toBeCloseTo(Math.log(1 + 3.5 / 0.5), 10);
  });

  it('scores a rare repeated term in a longer document', () => {
    // idf(c) = 0.98083; tf 2, |d| = 3: 0.98083 * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 1.5)) = 1.18237
    const hits = index.search(['c']);
    expect(hits).toHaveLength(1);
    expect(hits[0]!.doc).toBe(1);
    expect(hits[0]!.score).toBeCloseTo(1.18237, 4);
  });

  it('prefers the shorter document for a shared term, and resets scores between queries', () => {
    // idf(a) = ln(1 + 1.5 / 2.5) = 0.47000; d0 (|d| = 2): 0.47000; d1 (|d| = 3): 0.39019
    const hits = index.search(['a', 'a']);
    expect(hits.map((h) => h.doc)).toEqual([0, 1]);
    expect(hits[0]!.score).toBeCloseTo(0.47, 4);
    expect(hits[1]!.score).toBeCloseTo(0.39019, 4);
    expect(index.search(['a'])[0]!.score).toBeCloseTo(0.47, 4);
  });

  it('keeps the top k with ties broken by lower id', () => {
    expect(topK([5, 3, 9, 1], (id) => (id === 9 ? 2 : 1), 2)).toEqual([
      { doc: 9, score: 2 },
      { doc: 1, score: 1 },
    ]);
  });
});

describe('pages', () => {
  const pages = pagesFromGraph(demoGraph());
  const byTitle = (t: string) => pages.find((p) => p.title === t)!;

  it('writes relations as verb phrases', () => {
    const phrases = {
      founded_by: 'was founded by', located_in: 'is located in', flows_into: 'flows into', capital_of: 'is capital of',
      official_language: 'has official language', part_of_region: 'is part of region', has_time_zone: 'has time zone',
    };
    for (const [relation, phrase] of Object.entries(phrases)) expect(relationPhrase(relation), relation).toBe(phrase);
  });

  it('formats ISO dates', () => {
    expect(formatDate('1993-04-01')).toBe('1 April 1993');
    expect(formatDate('2001-06')).toBe('June 2001');
    expect(formatDate('1954')).toBe('1954');
    expect(formatDate('-0044')).toBe('44 BC');
  });

  it('writes one page per node with lead, attributes and both directions of relations', () => {
    const ff = byTitle('FormFactor');
    expect(ff.url).toBe('sim://FormFactor');
    expect(ff.sentences[0]).toBe('FormFactor (also known as FormFactor, Inc.) is a company.');
    expect(ff.sentences).toContain('The inception of FormFactor is 1 April 1993.');
    expect(ff.sentences).toContain('The employees of FormFactor is 2100 people.');
    expect(ff.sentences).toContain('FormFactor was founded by Igor Khandros.');
    // The incoming edge appears on the target's page too, with the neighbour's name.
    expect(byTitle('Igor Khandros').sentences).toContain('FormFactor was founded by Igor Khandros.');
  });

  it('addresses a page by its title with _ for spaces, answering to the old lowercase slug too', () => {
    const kh = byTitle('Igor Khandros');
    expect(kh.url).toBe('sim://Igor_Khandros');
    expect(kh.aliases).toEqual(['sim://igor-khandros']);
    const w = new SimWeb(demoGraph());
    for (const u of ['sim://Igor_Khandros', 'sim://igor_khandros', 'sim://igor-khandros', 'sim://Igor_Khandros/']) expect(w.page(u)?.title).toBe('Igor Khandros');
    expect(w.page('sim://Igor Khandros')).toBeUndefined();
  });

  it('falls back to the node id when titles collide', () => {
    const g: Graph = {
      format: 'sailor.graph/1',
      nodes: [
        { id: 'a1', type: 'script', name: 'Arabic', aliases: [], attrs: {}, meta: {} },
        { id: 'a2', type: 'language', name: 'Arabic', aliases: [], attrs: {}, meta: {} },
        { id: 'x', type: 'city', name: '', aliases: [], attrs: {}, meta: {} },
      ],
      edges: [],
    };
    expect(pagesFromGraph(g).map((p) => p.url)).toEqual(['sim://a1', 'sim://a2', 'sim://x']);
  });
});

describe('SimWeb', () => {
  const web = new SimWeb(demoGraph(), { maxUrls: 2 });

  it('search ranks by BM25 and uses the best sentence as snippet', () => {
    const results = web.searchResults('founded by Igor Khandros');
    expect(results).toHaveLength(8); // every page with 'founded', 'igor' or 'khandros'
    expect(results[0]!.title).toBe('Igor Khandros'); // the only page with the name twice and 'founded'
    expect(results.slice(0, 3).map((r) => r.title)).toContain('FormFactor');
    expect(results[0]!.snippet).toBe('FormFactor was founded by Igor Khandros.');
  });

  it('search observation follows the WebSailor layout, one block per query', () => {
    const obs = web.search(['Kazan', 'Livermore']);
    expect(obs).toMatch(/^A search for 'Kazan' found \d+ results:\n\n## Web Results\n1\. \[Kazan\]\(sim:\/\/Kazan\)\n/);
    expect(obs).toContain("\n=======\nA search for 'Livermore'");
  });

  it('empty and useless queries give clear observations', () => {
    expect(web.search([])).toMatch(/^\[search\] Empty query/);
    expect(web.search(['  '])).toMatch(/^\[search\] Empty query/);
    expect(web.search(['the of'])).toBe("No results found for 'the of'. Try with a more general query.");
    expect(web.search(['a', 'b', 'c', 'd', 'e', 'f'])).toMatch(/Too many queries: got 6, the limit is 5/);
  });

  it('visit extracts goal-relevant evidence in page order, with the lead in the summary', () => {
    const obs = web.visit(['sim://formfactor'], 'When was it founded (inception)?');
    expect(obs.startsWith('The useful information in sim://formfactor for user goal When was it founded (inception)? as follows: \n\nEvidence in page: \n')).toBe(true);
    const evidence = obs.split('Evidence in page: \n')[1]!.split('\n\nSummary: \n')[0]!.split('\n');
    expect(evidence).toContain('The inception of FormFactor is 1 April 1993.');
    expect(evidence).toContain('FormFactor was founded by Igor Khandros.');
    expect(evidence).not.toContain('The state of FormFactor is Delaware.');
    expect(obs).toContain('Summary: \nFormFactor (also known as FormFactor, Inc.) is a company.');
  });

  it('visit resolves the id permalink and reports unknown URLs and too many URLs without throwing', () => {
    expect(web.page('sim://n1')?.title).toBe('FormFactor');
    const obs = web.visit(['sim://nowhere', 'sim://n2'], 'birth');
    const [unknown, known] = obs.split('\n=======\n');
    expect(unknown).toContain(VISIT_FAILED_EVIDENCE);
    expect(known).toContain('The birth date of Igor Khandros is 1954.');
    expect(web.visit(['sim://a', 'sim://b', 'sim://c'], 'x')).toBe('[visit] Too many URLs: got 3, the limit is 2 per call.');
    expect(web.visit([], 'x')).toMatch(/^\[visit\] No URL given/);
  });

  it('extractEvidence caps the evidence and says when nothing matches', () => {
    const sentences = ['X is a city.', 'Y was born in X.', 'Z was born in X.', 'X is located in W.'];
    const ex = extractEvidence(sentences, 'born', () => 1, 1);
    expect(ex.evidence).toEqual(['Y was born in X.']);
    expect(ex.summary).toBe('X is a city. Y was born in X.');
    const none = extractEvidence(sentences, 'volcano', () => 1, 5);
    expect(none.evidence).toEqual(sentences.slice(0, 3));
    expect(none.summary).toMatch(/^Nothing in the page addresses the goal directly/);
  });
});

describe('attribute sentences (issue 45, part 2, point 9)', () => {
  it('read an attribute named by a participle as what happened, other attributes as nouns', () => {
    expect(attrSentence('born', 'Louis Isadore Kahn', { type: 'date', value: '1901' })).toBe('Louis Isadore Kahn was born in 1901.');
    expect(attrSentence('founded', 'Acme', { type: 'number', value: 1888 })).toBe('Acme was founded in 1888.');
    expect(attrSentence('died', 'Louis Isadore Kahn', { type: 'date', value: '1974' })).toBe('Louis Isadore Kahn died in 1974.');
    expect(attrSentence('inception', 'FormFactor', { type: 'date', value: '1993' })).toBe('The inception of FormFactor is 1993.');
    expect(attrSentence('date_founded', 'Acme', { type: 'string', value: '1888' })).toBe('The date founded of Acme is 1888.');
  });
});
