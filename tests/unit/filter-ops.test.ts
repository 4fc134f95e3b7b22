// The filter operators' one rule (synth/query-filters.ts orderOpHolds, textOpHolds): the graph's matchesFilter,
// which makes and verifies questions, and the expert's checkFilter, which reads the same facts off the simulated
// web's pages, give the same verdict on every operator, for every node of the demo graph.
import { describe, expect, it } from 'vitest';
import { demoGraph } from '../../main/lab/agent/demo';
import { checkFilter, Notes, readVisit, type Entity } from '../../main/lab/agent/expert-notes';
import { attrSentence, formatVisitObservation, leadSentence } from '../../main/lab/agent/web';
import type { GraphNode, QueryFilter } from '../../main/lab/formats';
import { matchesFilter, orderOpHolds, textOpHolds, yearOf } from '../../main/lab/synth/query-filters';

const graph = demoGraph();

/** What the expert knows of a node after visiting its page: the lead (name, aliases, type) and every attribute sentence. */
function readPage(node: GraphNode): Entity {
  const notes = new Notes();
  const evidence = Object.entries(node.attrs).map(([attr, value]) => attrSentence(attr, node.name, value)).join('\n');
  readVisit(notes, formatVisitObservation(`sim://${node.id}`, 'everything', evidence, leadSentence(node)), [], Object.keys(node.attrs));
  return notes.entity(node.name);
}

/** Filters on every field of a node, each op with values below, at and above the node's own. */
function filtersOn(node: GraphNode): QueryFilter[] {
  const f = (attr: string, op: QueryFilter['op'], value: QueryFilter['value']): QueryFilter => ({ var: '?x', attr, op, value });
  const out = [f('type', 'eq', node.type), f('type', 'eq', 'planet'), f('name', 'eq', node.name.toUpperCase()), f('name', 'eq', 'Nobody')];
  for (const text of [node.name, ...node.aliases]) out.push(f('name', 'prefix', text.slice(0, 2).toLowerCase()), f('name', 'contains', text.slice(1, 4).toUpperCase()));
  out.push(f('name', 'prefix', 'zz'), f('name', 'contains', 'qq'));
  for (const [attr, a] of Object.entries(node.attrs)) {
    if (a.type === 'string') {
      out.push(f(attr, 'eq', a.value.toLowerCase()), f(attr, 'eq', 'elsewhere'), f(attr, 'prefix', a.value.slice(0, 3)), f(attr, 'contains', a.value.slice(2, 5)), f(attr, 'contains', 'xyz'));
      continue;
    }
    const x = a.type === 'number' ? a.value : yearOf(a.value); // a date's filters compare its year
    for (const v of [x - 1, x, x + 1]) out.push(f(attr, 'eq', v), f(attr, 'lt', v), f(attr, 'gt', v));
    out.push(f(attr, 'between', [x - 1, x]), f(attr, 'between', [x, x]), f(attr, 'between', [x + 1, x + 9]), f(attr, 'between', [x - 9, x - 1]));
  }
  return out;
}

describe('filter operators, one rule', () => {
  it('the expert reading a page and the graph agree on every filter on every demo node', () => {
    let checked = 0;
    for (const node of graph.nodes) {
      const entity = readPage(node);
      for (const filter of filtersOn(node)) {
        expect(checkFilter(entity, filter), `${node.name} ${filter.attr} ${filter.op} ${JSON.stringify(filter.value)}`).toBe(matchesFilter(node, filter));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(150);
  });

  it('ordering ops: between is inclusive, NaN never holds, a text op says nothing of order', () => {
    const cmp = (v: number | string) => 5 - Number(v);
    expect([orderOpHolds(cmp, 'between', [5, 5]), orderOpHolds(cmp, 'between', [6, 9]), orderOpHolds(cmp, 'lt', 6), orderOpHolds(cmp, 'gt', 5), orderOpHolds(cmp, 'eq', 5)]).toEqual([true, false, true, false, true]);
    expect(orderOpHolds(() => NaN, 'lt', 1)).toBe(false);
    expect(orderOpHolds(cmp, 'prefix', '5')).toBeNull();
  });

  it('text ops: eq by the caller\'s key, prefix and contains case-insensitive, an ordering op unknown', () => {
    const lower = (s: string) => s.toLowerCase();
    expect(textOpHolds(['FormFactor, Inc.'], 'eq', 'formfactor, inc.', lower)).toBe(true);
    expect(textOpHolds(['FormFactor, Inc.'], 'eq', 'formfactor inc', lower)).toBe(false);
    expect(textOpHolds(['FormFactor, Inc.'], 'eq', 'formfactor inc', (s) => s.toLowerCase().replace(/[^a-z]/g, ''))).toBe(true);
    expect(textOpHolds(['Moscow'], 'prefix', 'mO', (s) => s)).toBe(true);
    expect(textOpHolds(['Moscow'], 'contains', 'SCO', (s) => s)).toBe(true);
    expect(textOpHolds(['Moscow'], 'lt', 'N', lower)).toBeNull();
  });
});
