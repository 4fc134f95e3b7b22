// Constraint economy (issue 20): a constraint that removes no candidate is never emitted, and each QA records how
// much each of its constraints narrows. Hand-built graph: three countries with one city each; the answer is Lima.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GRAPH_FORMAT, type Graph, type GraphNode, type Query } from '../../main/lab/formats';
import { buildIndex } from '../../main/lab/graph/graph-index';
import { topologyOf } from '../../main/lab/graph/topology';
import { wlHash } from '../../main/lab/graph/wl';
import { synthesize } from '../../main/lab/synth/build';
import { readDataset, writeDataset } from '../../main/lab/synth/dataset';
import { makeContext, makeInstance, toQuery, type Draft } from '../../main/lab/synth/draft';
import { economise, narrowingOf } from '../../main/lab/synth/economy';
import { fixtureGraph } from '../support/fixture-graph';
import { multiConstraint, type Constraint } from '../../main/lab/synth/obfuscate';
import { resolveOptions } from '../../main/lab/synth/options';
import { evaluateQuery } from '../../main/lab/synth/query';
import { buildQueryIndex } from '../../main/lab/synth/query-index';

function node(id: string, type: string, name: string, attrs: GraphNode['attrs'] = {}): GraphNode {
  return { id, type, name, aliases: [], attrs, meta: {} };
}
const pop = (n: number) => ({ population: { type: 'number' as const, value: n, unit: 'people' } });
const founded = (y: string) => ({ founded: { type: 'date' as const, value: y } });
const graph: Graph = {
  format: GRAPH_FORMAT,
  nodes: [
    node('peru', 'country', 'Peru', pop(34_000_000)),
    node('chile', 'country', 'Chile', pop(19_000_000)),
    node('bolivia', 'country', 'Bolivia', pop(12_000_000)),
    node('lima', 'city', 'Lima', founded('1535')),
    node('santiago', 'city', 'Santiago', founded('1541')),
    node('lapaz', 'city', 'La Paz', founded('1548')),
  ],
  edges: [
    { id: 'e1', source: 'lima', target: 'peru', relation: 'located_in', meta: {} },
    { id: 'e2', source: 'santiago', target: 'chile', relation: 'located_in', meta: {} },
    { id: 'e3', source: 'lapaz', target: 'bolivia', relation: 'located_in', meta: {} },
  ],
};

/** A constraint of one filter, as the obfuscations make them. */
function filterConstraint(kind: Constraint['kind'], v: string, clause: string, f: Omit<Query['filters'][number], 'var'>): Constraint {
  return {
    kind, var: v, clause, filters: [{ var: v, ...f }], patterns: [], support: [], distractors: [],
    obfuscations: [{ kind, target: `${v}.${f.attr}`, from: '', to: clause }],
  };
}
// narrows: only Peru has more than 30 million people (without it, all three cities fit)
const bigCountry = () => filterConstraint('numeric_range', '?b', 'with more than 30 million inhabitants', { attr: 'population', op: 'gt', value: 30_000_000 });
// narrows nothing: all three cities were founded in the 16th century
const sixteenth = () => filterConstraint('vague_time', '?a', 'that was founded in the 16th century', { attr: 'founded', op: 'between', value: [1501, 1600] });
// narrows alone (Lima, La Paz) but adds nothing once the country is pinned down
const startsWithL = () => filterConstraint('partial_name', '?a', 'that is known by a name beginning with "L"', { attr: 'name', op: 'prefix', value: 'L' });
const early = () => filterConstraint('vague_time', '?a', 'that was founded before 1545', { attr: 'founded', op: 'lt', value: 1545 });

function draftWith(constraints: Constraint[]): { ctx: ReturnType<typeof makeContext>; d: Draft } {
  const index = buildIndex(graph);
  const sub = { nodes: ['lima', 'peru'], edges: ['e1'] };
  const inst = makeInstance(index, { ...sub, hash: wlHash(index, sub), topology: topologyOf(index, sub) });
  const ctx = makeContext(graph, resolveOptions({ count: 1 }), index);
  const d: Draft = {
    inst, answer: index.node('lima')!, answerNames: ['Lima'], vars: new Map([['lima', '?a'], ['peru', '?b']]),
    constants: new Set(), constraints, used: new Set(),
  };
  return { ctx, d };
}
const candidates = (ctx: ReturnType<typeof makeContext>, d: Draft) => evaluateQuery(ctx.qindex, toQuery(d)).candidates;

describe('constraint economy on a hand-built graph', () => {
  it('drops the constraint that narrows nothing and the one made redundant, keeps the one that narrows', () => {
    const keep = bigCountry();
    const { ctx, d } = draftWith([sixteenth(), startsWithL(), keep]);
    expect(candidates(ctx, d)).toEqual(['lima']);
    expect(economise(ctx, d)).toBe(2);
    expect(d.constraints).toEqual([keep]);
    expect(candidates(ctx, d)).toEqual(['lima']); // still the one answer
    expect(keep.without).toBe(3); // without it, all three cities fit
    expect(narrowingOf(ctx, d)).toEqual([{ kind: 'numeric_range', target: '?b.population', text: 'with more than 30 million inhabitants', of: 3, alone: 1, without: 3 }]);
  });

  it('keeps a multi_constraint whose two conditions are both needed, and splits one whose part narrows nothing', () => {
    const both = multiConstraint([early(), startsWithL()])!; // Lima and Santiago, Lima and La Paz: together Lima
    const { ctx, d } = draftWith([both]);
    expect(economise(ctx, d)).toBe(0);
    expect(d.constraints.map((c) => c.kind)).toEqual(['multi_constraint']);
    expect(narrowingOf(ctx, d).map((n) => [n.text, n.without])).toEqual([['that was founded before 1545', 2], ['that is known by a name beginning with "L"', 2]]);

    const half = multiConstraint([sixteenth(), startsWithL()])!;
    const pinned = draftWith([half, bigCountry()]);
    expect(economise(pinned.ctx, pinned.d)).toBe(2); // the 16th century narrows nothing; "L" nothing once Peru is pinned
    expect(pinned.d.constraints.map((c) => c.kind)).toEqual(['numeric_range']);
  });

  it('in synthesized QAs every constraint removes a candidate (checked on the query itself) and is recorded', () => {
    const world = fixtureGraph({ seed: 3, countries: 20 });
    const { qas } = synthesize(world, { count: 40, rng: 5, graphName: 'fixture' });
    const qindex = buildQueryIndex(world);
    const subgraphPatterns = (qa: (typeof qas)[number]) => new Set(qa.subgraph.edges.map((id) => world.edges.find((e) => e.id === id)!.relation));
    let weighed = 0;
    for (const qa of qas) {
      const q = qa.query;
      // every filter other than a variable's type, and every pattern beyond the subgraph's edges, is one constraint
      const atoms = [
        ...q.filters.map((f, i) => ({ drop: { ...q, filters: q.filters.filter((_, j) => j !== i) }, skip: f.attr === 'type' })),
        ...q.patterns.map((p, i) => ({ drop: { ...q, patterns: q.patterns.filter((_, j) => j !== i) }, skip: !(p.s.startsWith('?') !== p.o.startsWith('?')) || subgraphPatterns(qa).has(p.rel) })),
      ];
      for (const a of atoms) {
        if (a.skip) continue;
        expect(evaluateQuery(qindex, a.drop).candidates.length, `${qa.id}: ${qa.question}`).toBeGreaterThan(1);
      }
      for (const n of qa.narrowing ?? []) {
        expect(n.without).toBeGreaterThanOrEqual(2);
        expect(n.alone).toBeGreaterThanOrEqual(1);
        expect(n.alone).toBeLessThanOrEqual(n.of);
        weighed++;
      }
      expect(qa.narrowing).toBeDefined();
    }
    expect(weighed).toBeGreaterThan(20);
    // the field survives a write and a read
    const file = join(mkdtempSync(join(tmpdir(), 'sailor-economy-')), 'd.jsonl');
    writeDataset(file, { graph: 'fixture' }, qas);
    expect(readDataset(file).qas.map((q) => q.narrowing)).toEqual(qas.map((q) => q.narrowing));
  });
});
