import { describe, expect, it } from 'vitest';
import { GRAPH_FORMAT, type Graph, type GraphNode, type Query } from '../../main/lab/formats';
import { evaluateQuery } from '../../main/lab/synth/query';
import { buildQueryIndex } from '../../main/lab/synth/query-index';
import { matchesFilter, yearOf } from '../../main/lab/synth/query-filters';
import { createRng } from '../../main/lab/util/rng';

// A hand-built graph; every expected result below was worked out by hand from this picture:
//   lima -located_in-> peru,  cusco -located_in-> peru,  quito -located_in-> ecuador
//   lima -capital_of-> peru,  quito -capital_of-> ecuador
//   peru -borders-> ecuador,  ecuador -borders-> peru,  peru -borders-> chile
//   loop -self-> loop (a self-loop)
function node(id: string, type: string, name: string, attrs: GraphNode['attrs'] = {}, aliases: string[] = []): GraphNode {
  return { id, type, name, aliases, attrs, meta: {} };
}
const graph: Graph = {
  format: GRAPH_FORMAT,
  nodes: [
    node('peru', 'country', 'Peru', { independence: { type: 'date', value: '1821-07-28' }, population: { type: 'number', value: 34_000_000, unit: 'people' } }, ['Republic of Peru']),
    node('ecuador', 'country', 'Ecuador', { independence: { type: 'date', value: '1822' }, population: { type: 'number', value: 18_000_000 } }),
    node('chile', 'country', 'Chile', { independence: { type: 'date', value: '1818-02' }, population: { type: 'number', value: 19_000_000 }, landlocked: { type: 'string', value: 'no' } }),
    node('lima', 'city', 'Lima', { founded: { type: 'date', value: '1535-01-18' } }, ['Ciudad de los Reyes']),
    node('cusco', 'city', 'Cusco', { founded: { type: 'date', value: '1100' } }, ['Qosqo']),
    node('quito', 'city', 'Quito', { founded: { type: 'date', value: '1534-12-06' } }),
    node('loop', 'thing', 'Loop'),
  ],
  edges: [
    { id: 'e1', source: 'lima', target: 'peru', relation: 'located_in', meta: {} },
    { id: 'e2', source: 'cusco', target: 'peru', relation: 'located_in', meta: {} },
    { id: 'e3', source: 'quito', target: 'ecuador', relation: 'located_in', meta: {} },
    { id: 'e4', source: 'lima', target: 'peru', relation: 'capital_of', meta: {} },
    { id: 'e5', source: 'quito', target: 'ecuador', relation: 'capital_of', meta: {} },
    { id: 'e6', source: 'peru', target: 'ecuador', relation: 'borders', meta: {} },
    { id: 'e7', source: 'ecuador', target: 'peru', relation: 'borders', meta: {} },
    { id: 'e8', source: 'peru', target: 'chile', relation: 'borders', meta: {} },
    { id: 'e9', source: 'loop', target: 'loop', relation: 'self', meta: {} },
    { id: 'e10', source: 'lima', target: 'peru', relation: 'located_in', meta: {} }, // parallel duplicate of e1
  ],
};
const index = buildQueryIndex(graph);
const run = (q: Partial<Query> & { answer: string }) => evaluateQuery(index, { patterns: [], filters: [], ...q });

describe('query evaluation', () => {
  it('joins patterns over the whole graph and counts solutions', () => {
    // cities located in some country: lima, cusco, quito (the parallel edge e10 is the same fact)
    const r = run({ answer: '?c', patterns: [{ s: '?c', rel: 'located_in', o: '?k' }] });
    expect(r.candidates).toEqual(['cusco', 'lima', 'quito']);
    expect(r.solutions).toBe(3);
    // two distinct cities in one country: (lima, cusco) and (cusco, lima)
    const pair = run({ answer: '?a', patterns: [{ s: '?a', rel: 'located_in', o: '?k' }, { s: '?b', rel: 'located_in', o: '?k' }] });
    expect(pair.candidates).toEqual(['cusco', 'lima']);
    expect(pair.solutions).toBe(2);
  });

  it('binds distinct variables to distinct nodes', () => {
    // ?x borders ?y and ?y borders ?x: peru/ecuador both ways; never ?x = ?y
    const r = run({ answer: '?x', patterns: [{ s: '?x', rel: 'borders', o: '?y' }, { s: '?y', rel: 'borders', o: '?x' }] });
    expect(r.candidates).toEqual(['ecuador', 'peru']);
    expect(r.solutions).toBe(2);
    // a self-loop satisfies ?x self ?x but not ?x self ?y with ?y distinct
    expect(run({ answer: '?x', patterns: [{ s: '?x', rel: 'self', o: '?x' }] }).candidates).toEqual(['loop']);
    expect(run({ answer: '?x', patterns: [{ s: '?x', rel: 'self', o: '?y' }] }).candidates).toEqual([]);
  });

  it('uses constants and directed relations exactly', () => {
    expect(run({ answer: '?c', patterns: [{ s: '?c', rel: 'capital_of', o: 'peru' }] }).candidates).toEqual(['lima']);
    // direction matters: nothing is capital_of lima
    expect(run({ answer: '?c', patterns: [{ s: 'peru', rel: 'capital_of', o: '?c' }] }).candidates).toEqual([]);
    // an unknown constant, or a false constant-constant pattern, leaves nothing
    expect(run({ answer: '?c', patterns: [{ s: '?c', rel: 'located_in', o: 'atlantis' }] }).candidates).toEqual([]);
    expect(run({ answer: '?c', patterns: [{ s: 'chile', rel: 'borders', o: 'peru' }, { s: '?c', rel: 'located_in', o: '?k' }] }).candidates).toEqual([]);
    expect(run({ answer: '?c', patterns: [{ s: 'peru', rel: 'borders', o: 'chile' }, { s: '?c', rel: 'capital_of', o: '?k' }] }).candidates).toEqual(['lima', 'quito']);
  });

  it('matches name filters on the name or any alias, case-insensitively', () => {
    const named = (op: 'eq' | 'prefix' | 'contains', value: string) =>
      run({ answer: '?c', filters: [{ var: '?c', attr: 'type', op: 'eq', value: 'city' }, { var: '?c', attr: 'name', op, value }] }).candidates;
    expect(named('eq', 'qosqo')).toEqual(['cusco']);
    expect(named('prefix', 'ciudad')).toEqual(['lima']);
    expect(named('prefix', 'q')).toEqual(['cusco', 'quito']); // Qosqo is an alias of Cusco
    expect(named('contains', 'ITO')).toEqual(['quito']);
    expect(named('contains', 'los re')).toEqual(['lima']);
  });

  it('compares a numeric value with the year of a date attribute', () => {
    const year = (op: 'eq' | 'lt' | 'gt' | 'between', value: number | [number, number]) =>
      run({ answer: '?k', filters: [{ var: '?k', attr: 'independence', op, value }] }).candidates;
    expect(year('eq', 1821)).toEqual(['peru']);
    expect(year('lt', 1822)).toEqual(['chile', 'peru']);
    expect(year('gt', 1821)).toEqual(['ecuador']);
    // between is inclusive at both ends
    expect(year('between', [1818, 1821])).toEqual(['chile', 'peru']);
    expect(year('between', [1822, 1822])).toEqual(['ecuador']);
    expect(year('between', [1823, 1900])).toEqual([]);
    expect(yearOf('1993-04-01')).toBe(1993);
    expect(yearOf('-0500')).toBe(-500);
  });

  it('compares date strings at the precision they share, numbers numerically', () => {
    const peru = graph.nodes[0]!;
    expect(matchesFilter(peru, { var: '?x', attr: 'independence', op: 'eq', value: '1821-07' })).toBe(true);
    expect(matchesFilter(peru, { var: '?x', attr: 'independence', op: 'lt', value: '1821-08-01' })).toBe(true);
    expect(matchesFilter(peru, { var: '?x', attr: 'independence', op: 'gt', value: '1821-07-28' })).toBe(false);
    expect(matchesFilter(peru, { var: '?x', attr: 'population', op: 'between', value: [34_000_000, 34_000_000] })).toBe(true);
    expect(matchesFilter(peru, { var: '?x', attr: 'population', op: 'gt', value: 34_000_000 })).toBe(false);
    expect(matchesFilter(peru, { var: '?x', attr: 'missing', op: 'eq', value: 1 })).toBe(false);
    expect(matchesFilter(graph.nodes[2]!, { var: '?x', attr: 'landlocked', op: 'eq', value: 'NO' })).toBe(true);
  });

  it('evaluates a cyclic query with filters on several variables', () => {
    // a city that is the capital of a country bordering a country that borders it back, founded in the 1530s
    const r = run({
      answer: '?c',
      patterns: [
        { s: '?c', rel: 'capital_of', o: '?k' },
        { s: '?k', rel: 'borders', o: '?m' },
        { s: '?m', rel: 'borders', o: '?k' },
      ],
      filters: [
        { var: '?c', attr: 'founded', op: 'between', value: [1530, 1539] },
        { var: '?m', attr: 'population', op: 'lt', value: 20_000_000 },
      ],
    });
    // lima: peru borders ecuador (18M) and back -> yes; quito: ecuador borders peru (34M) -> no
    expect(r.candidates).toEqual(['lima']);
    expect(r.solutions).toBe(1);
    expect(r.domains['?m']).toBe(1);
  });

  it('keeps candidates exact when solution counting is capped', () => {
    const r = evaluateQuery(index, { answer: '?a', patterns: [{ s: '?a', rel: 'located_in', o: '?k' }, { s: '?b', rel: 'located_in', o: '?k' }], filters: [] }, { maxSolutions: 1 });
    expect(r.candidates).toEqual(['cusco', 'lima']);
    expect(r.solutionsCapped).toBe(true);
  });

  it('stays fast on a 50k-node graph', () => {
    const rng = createRng(5);
    const nodes: GraphNode[] = [];
    const edges: Graph['edges'] = [];
    const types = ['city', 'country', 'person', 'river', 'language'];
    for (let i = 0; i < 50_000; i++) {
      nodes.push(node(`n${i}`, types[i % 5]!, `Name ${i}`, { born: { type: 'date', value: String(1500 + (i % 500)) }, size: { type: 'number', value: i } }));
    }
    const rels = ['located_in', 'borders', 'born_in', 'flows_through', 'spoken_in'];
    for (let j = 0; j < 150_000; j++) {
      edges.push({ id: `e${j}`, source: `n${rng.int(50_000)}`, target: `n${rng.int(50_000)}`, relation: rels[rng.int(5)]!, meta: {} });
    }
    const big = buildQueryIndex({ format: GRAPH_FORMAT, nodes, edges });
    // CPU time, not wall time: CI runs this on a loaded machine, where the wall clock says little.
    const cpu0 = process.cpuUsage();
    let total = 0;
    for (let k = 0; k < 40; k++) {
      const r = evaluateQuery(big, {
        answer: '?a',
        patterns: [
          { s: '?a', rel: 'located_in', o: '?b' },
          { s: '?b', rel: 'borders', o: '?c' },
          { s: '?c', rel: rels[k % 5]!, o: '?d' },
        ],
        filters: [
          { var: '?a', attr: 'type', op: 'eq', value: types[k % 5]! },
          { var: '?b', attr: 'born', op: 'between', value: [1600 + k, 1620 + k] },
          { var: '?d', attr: 'size', op: 'lt', value: 20_000 },
        ],
      });
      total += r.candidates.length;
    }
    const { user, system } = process.cpuUsage(cpu0);
    expect(total).toBeGreaterThan(0);
    expect((user + system) / 1000).toBeLessThan(5000); // typically ~1 s: ~10 ms for an unanchored 4-variable join, microseconds with a constant
  }, 300_000); // building the 50k-node graph alone can take a minute on a loaded machine
});
