// The ASearcher generator (synth/asearcher.ts, asearcher-moves.ts) on a small hand-built graph whose answers
// are checked by hand: three countries, their capitals, one union with a single member.
import { describe, expect, it } from 'vitest';
import { GRAPH_FORMAT, type Graph, type GraphNode, type Query } from '../../main/lab/formats';
import { makeContext } from '../../main/lab/synth/draft';
import { resolveOptions } from '../../main/lab/synth/options';
import { evaluateQuery } from '../../main/lab/synth/query';
import { levelOf } from '../../main/lab/synth/level';
import { checkDataset } from '../../main/lab/synth/dataset';
import { checkState, synthesizeAsearcher } from '../../main/lab/synth/asearcher';
import { exactConstraints, fuzzAttr, fuzzName, injectAttr, injectEdge, seedState } from '../../main/lab/synth/asearcher-moves';
import { createRng } from '../../main/lab/util/rng';

const node = (id: string, type: string, name: string, attrs: GraphNode['attrs'] = {}): GraphNode => ({ id, type, name, aliases: [], attrs, meta: {} });
const edge = (id: string, source: string, relation: string, target: string) => ({ id, source, target, relation, meta: {} });

// Arland borders Borvia; Cadria borders Borvia too; only Arland is a member of the Tarn Union.
const graph: Graph = {
  format: GRAPH_FORMAT,
  nodes: [
    node('arland', 'country', 'Arland', { founded: { type: 'date', value: '1821-07-28' }, population: { type: 'number', value: 5_123_456, unit: 'people' } }),
    node('borvia', 'country', 'Borvia', { founded: { type: 'date', value: '1900' } }),
    node('cadria', 'country', 'Cadria', { founded: { type: 'date', value: '1821' } }),
    node('portha', 'city', 'Portha'),
    node('quell', 'city', 'Quell'),
    node('ravin', 'city', 'Ravin'),
    node('tarn', 'organization', 'Tarn Union'),
  ],
  edges: [
    edge('e1', 'portha', 'capital_of', 'arland'),
    edge('e2', 'quell', 'capital_of', 'cadria'),
    edge('e3', 'ravin', 'capital_of', 'borvia'),
    edge('e4', 'arland', 'borders', 'borvia'),
    edge('e5', 'cadria', 'borders', 'borvia'),
    edge('e6', 'arland', 'member_of', 'tarn'),
  ],
};
const ctx = makeContext(graph, resolveOptions({ count: 1 }));
const e = (id: string) => graph.edges.find((x) => x.id === id)!;
const opts = { seed: 1, maxWords: 60 };

/** True when the query holds for this binding of its variables (every pattern an edge of the graph). */
function holds(q: Query, binding: Record<string, string>): boolean {
  const t = (x: string) => binding[x] ?? x;
  return q.patterns.every((p) => graph.edges.some((g) => g.source === t(p.s) && g.target === t(p.o) && g.relation === p.rel));
}

describe('asearcher moves', () => {
  it('the seed is a one-hop lookup from a named entity: unique, but level 1 (too easy without tools)', () => {
    const s = seedState(ctx, e('e1'), 'portha');
    const r = checkState(ctx, s, opts);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.question).toContain('Arland');
    expect(r.question).not.toContain('Portha');
    expect(levelOf(ctx, r.draft, r.query).level).toBe(1);
  });

  it('injecting "Arland is a member of the Tarn Union" describes Arland instead of naming it; the answer stays unique', () => {
    const s = injectEdge(ctx, seedState(ctx, e('e1'), 'portha'), 'arland', e('e6'));
    expect([...s.constants]).toEqual(['tarn']);
    expect(s.steps).toEqual([{ op: 'inject', target: 'Arland', from: 'Arland', to: 'Arland member_of Tarn Union', support: ['e6'] }]);
    const r = checkState(ctx, s, opts);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.question).toContain('Tarn Union');
    expect(r.question).not.toContain('Arland');
    expect(evaluateQuery(ctx.qindex, r.query).candidates).toEqual(['portha']);
    expect(holds(r.query, { '?a': 'portha', '?b': 'arland' })).toBe(true); // the injected fact is true in the graph
    expect(levelOf(ctx, r.draft, r.query).level).toBeGreaterThan(1); // no named entity next to the answer any more
  });

  it('injecting "Arland borders Borvia" is refused: Cadria borders Borvia too, so Quell would fit', () => {
    const s = injectEdge(ctx, seedState(ctx, e('e1'), 'portha'), 'arland', e('e4'));
    expect(checkState(ctx, s, opts)).toEqual({ ok: false, reason: 'not_unique' });
  });

  it('an exact founding year is injected, then fuzzed into a period that still contains it', () => {
    const seed = seedState(ctx, e('e1'), 'portha');
    const exact = injectAttr(ctx, seed, 'arland', 'founded')!;
    expect(exact.constraints[0]!.clause).toContain('1821');
    expect(exact.constraints[0]!.filters).toEqual([{ var: '?b', attr: 'founded', op: 'between', value: [1821, 1821] }]);
    // founded 1821 is Arland or Cadria: the capital is Portha or Quell, so the bare year is not unique
    expect(checkState(ctx, exact, opts)).toEqual({ ok: false, reason: 'not_unique' });
    const fuzzed = fuzzAttr(ctx, exact, exactConstraints(exact)[0]!, createRng(3))!;
    const f = fuzzed.constraints[0]!.filters[0]!;
    expect(f.attr).toBe('founded');
    if (f.op === 'between') expect((f.value as number[])[0]! <= 1821 && 1821 <= (f.value as number[])[1]!).toBe(true);
    else expect(f.op === 'lt' ? 1821 < (f.value as number) : 1821 > (f.value as number)).toBe(true);
    expect(fuzzed.steps.at(-1)!.op).toBe('fuzz');
  });

  it('a name is fuzzed only while another entity stays named', () => {
    const seed = seedState(ctx, e('e1'), 'portha');
    expect(fuzzName(ctx, seed, 'arland', createRng(1))).toBeNull();
  });
});

describe('synthesizeAsearcher', () => {
  it('publishes only unique, non-trivial QAs whose supporting facts are edges of the graph', () => {
    const { qas, stats } = synthesizeAsearcher(graph, { count: 10, rng: 2 });
    expect(qas.length).toBeGreaterThan(0);
    expect(checkDataset(graph, qas).ok).toBe(qas.length);
    const edgeIds = new Set(graph.edges.map((x) => x.id));
    for (const qa of qas) {
      expect(qa.level).toBeGreaterThan(1);
      expect(qa.steps!.length).toBeGreaterThan(0);
      for (const s of qa.subgraph.edges) expect(edgeIds.has(s)).toBe(true);
      for (const st of qa.steps!) for (const sup of st.support) expect(edgeIds.has(sup) || sup.includes('.')).toBe(true);
    }
    expect(stats.generator).toBe('asearcher');
    expect(stats.asearcher!.injected + stats.asearcher!.fuzzed).toBe(qas.reduce((n, q) => n + q.steps!.length, 0));
  });
});
