import { describe, expect, it } from 'vitest';
import { GRAPH_FORMAT, type Graph, type GraphNode } from '../../main/lab/formats';
import {
  amount, describeByAttr, description, distractor, implicitOrder, mentionsAny, multiConstraint, numericRange, partialName, period, TIME_STYLES, vagueTime,
  type Constraint,
} from '../../main/lab/synth/obfuscate';
import { evaluateQuery } from '../../main/lab/synth/query';
import { buildQueryIndex } from '../../main/lab/synth/query-index';
import { matchesFilter, yearOf } from '../../main/lab/synth/query-filters';
import { createRng } from '../../main/lab/util/rng';

function node(id: string, type: string, name: string, attrs: GraphNode['attrs'] = {}, aliases: string[] = []): GraphNode {
  return { id, type, name, aliases, attrs, meta: {} };
}
const formfactor = node(
  'n17',
  'company',
  'FormFactor',
  {
    inception: { type: 'date', value: '1993-04-01' },
    employees: { type: 'number', value: 2100, unit: 'people' },
    revenue: { type: 'number', value: 747_000_000, unit: 'USD' },
    share: { type: 'number', value: 0.42, unit: '%' },
    state: { type: 'string', value: 'Delaware' },
  },
  ['FormFactor, Inc.', 'FF'],
);
const names = [formfactor.name, ...formfactor.aliases];

/** Every filter of the constraint holds for the node it was made from. */
function holds(c: Constraint, n: GraphNode): boolean {
  return c.filters.every((f) => matchesFilter(n, f));
}

/** Numbers in "between 27 and 74 thousand" read back with their scale word. */
function readAmounts(text: string): number[] {
  const scale: Record<string, number> = { thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 };
  const m = /(-?[\d,.]+)(?: and (-?[\d,.]+))?(?: (thousand|million|billion|trillion))?/.exec(text.replace(/^\D*?(?=-?\d)/, ''));
  if (!m) return [];
  const f = m[3] ? scale[m[3]]! : 1;
  return [m[1], m[2]].filter((x): x is string => x !== undefined).map((x) => Number(x.replace(/,/g, '')) * f);
}

describe('vague_time', () => {
  it('every style gives a period that contains the year, and its filter says exactly that period', () => {
    const rng = createRng(1);
    const seen = new Set<string>();
    for (const y of [5, 450, 1066, 1900, 1993, 2000, 2001, 2010]) {
      for (const style of TIME_STYLES) {
        const p = period(y, style, rng);
        if (!p) continue;
        seen.add(style);
        if (p.filter.op === 'between') {
          const [lo, hi] = p.filter.value;
          expect(lo).toBeLessThanOrEqual(y);
          expect(hi).toBeGreaterThanOrEqual(y);
          expect(p.width).toBe(hi - lo + 1);
        } else if (p.filter.op === 'lt') expect(y).toBeLessThan(p.filter.value);
        else expect(y).toBeGreaterThan(p.filter.value);
      }
    }
    expect(seen).toEqual(new Set(TIME_STYLES));
  });

  it('phrases known periods as people say them', () => {
    const rng = createRng(1);
    expect(period(1993, 'decade', rng)).toMatchObject({ text: 'in the 1990s', filter: { op: 'between', value: [1990, 1999] } });
    expect(period(1992, 'decade_part', rng)).toMatchObject({ text: 'in the early 1990s', filter: { value: [1990, 1993] } });
    expect(period(450, 'century_part', rng)).toMatchObject({ text: 'in the mid-5th century', filter: { value: [434, 466] } });
    expect(period(2005, 'century_decade', rng)).toMatchObject({ text: 'in the first decade of the 21st century', filter: { value: [2001, 2010] } });
    expect(period(1900, 'century', rng)).toMatchObject({ text: 'in the 19th century', filter: { value: [1801, 1900] } });
    expect(period(1993, 'decade', rng, 5)).toBeNull(); // wider than allowed
  });

  it('builds a clause and a filter on the attribute that hold for the node, without leaking it', () => {
    const rng = createRng(2);
    for (let i = 0; i < 20; i++) {
      const c = vagueTime('?a', formfactor, 'inception', rng)!;
      expect(c.kind).toBe('vague_time');
      expect(holds(c, formfactor)).toBe(true);
      expect(c.filters[0]!.attr).toBe('inception');
      expect(c.clause).toMatch(/^that was founded /); // "inception" reads as founding
      expect(c.clause).not.toContain('1993-04-01');
      expect(c.obfuscations[0]).toMatchObject({ kind: 'vague_time', target: '?a.inception', from: '1993-04-01' });
      expect(c.clause).toContain(c.obfuscations[0]!.to);
      expect(mentionsAny(c.clause, names)).toBe(false);
    }
    expect(vagueTime('?a', formfactor, 'employees', rng)).toBeNull(); // not a date
  });
});

describe('numeric_range', () => {
  it('ranges and bounds contain the value and the prose states the same numbers', () => {
    const rng = createRng(3);
    for (const value of [2100, 747_000_000, 31_500, 0.42, 12.011, 88, -35.2]) {
      for (const style of ['between', 'lt', 'gt'] as const) {
        const a = amount(value, undefined, style, rng);
        expect(a).not.toBeNull();
        const nums = readAmounts(a!.text);
        if (a!.filter.op === 'between') {
          const [lo, hi] = a!.filter.value;
          expect(lo).toBeLessThanOrEqual(value);
          expect(hi).toBeGreaterThanOrEqual(value);
          expect(nums[0]).toBeCloseTo(lo, 6);
          expect(nums[1]).toBeCloseTo(hi, 6);
          if (value > 0) expect(lo).toBeGreaterThanOrEqual(0);
        } else {
          if (a!.filter.op === 'lt') expect(value).toBeLessThan(a!.filter.value);
          else expect(value).toBeGreaterThan(a!.filter.value);
          expect(nums[0]).toBeCloseTo(a!.filter.value, 6);
        }
      }
    }
  });

  it('says "fewer than" for counts, keeps percentages within 0..100, and reads units', () => {
    const rng = createRng(4);
    const c = numericRange('?a', formfactor, 'employees', rng, { style: 'lt' })!;
    expect(c.clause).toMatch(/^with fewer than [\d.,]+( million)? employees$/);
    expect(holds(c, formfactor)).toBe(true);
    for (let i = 0; i < 30; i++) {
      const p = numericRange('?a', formfactor, 'share', rng);
      if (!p) continue;
      const f = p.filters[0]!;
      if (f.op === 'between') expect((f.value as number[])[1]).toBeLessThanOrEqual(100);
      if (f.op === 'lt') expect(f.value).toBeLessThanOrEqual(100);
      expect(p.clause).toContain('percent');
    }
    const r = numericRange('?a', formfactor, 'revenue', rng, { style: 'between' })!;
    expect(r.clause).toMatch(/million US dollars$/);
    expect(holds(r, formfactor)).toBe(true);
  });

  it('narrows: a smaller maxWidth gives a narrower range that still holds', () => {
    const rng = createRng(5);
    const wide = numericRange('?a', formfactor, 'revenue', rng, { style: 'between' })!;
    const narrow = numericRange('?a', formfactor, 'revenue', rng, { style: 'between', maxWidth: wide.range!.width / 2 })!;
    expect(narrow.range!.width).toBeLessThanOrEqual(wide.range!.width / 2);
    expect(holds(narrow, formfactor)).toBe(true);
  });
});

describe('partial_name', () => {
  it('prefix and contains fragments match the name, are quoted in the prose, and are never a whole name', () => {
    const rng = createRng(6);
    const ops = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const c = partialName('?a', formfactor, rng)!;
      const f = c.filters[0]!;
      ops.add(f.op);
      expect(f.attr).toBe('name');
      expect(holds(c, formfactor)).toBe(true);
      expect(c.clause).toContain(`"${f.value as string}"`);
      expect(mentionsAny(c.clause, names)).toBe(false);
      expect(names.map((n) => n.toLowerCase())).not.toContain(String(f.value).toLowerCase());
    }
    expect(ops).toEqual(new Set(['prefix', 'contains']));
    expect(partialName('?a', formfactor, rng, { style: 'initial' })!.filters[0]).toEqual({ var: '?a', attr: 'name', op: 'prefix', value: 'F' });
    // a one-letter name cannot be hinted at by its own first letter
    expect(partialName('?a', node('x', 'element', 'F', {}, []), rng, { style: 'initial' })).toBeNull();
  });
});

describe('description, implicit_order, multi_constraint, distractor', () => {
  // A company in a state of a country; a second company in the same state (a distractor candidate);
  // Peru founded 1821 as the reference of an implicit order.
  const graph: Graph = {
    format: GRAPH_FORMAT,
    nodes: [
      formfactor,
      node('n2', 'state', 'Delaware'),
      node('n3', 'company', 'Acme Widgets', { inception: { type: 'date', value: '1950' } }),
      node('n4', 'country', 'Peru', { independence: { type: 'date', value: '1821-07-28' }, region: { type: 'string', value: 'South America' } }),
      node('n5', 'country', 'Chile', { independence: { type: 'date', value: '1818' }, region: { type: 'string', value: 'South America' } }),
      node('n6', 'company', 'Zeta Probes', { inception: { type: 'date', value: '1995' } }),
    ],
    edges: [
      { id: 'e1', source: 'n17', target: 'n2', relation: 'incorporated_in', meta: {} },
      { id: 'e2', source: 'n3', target: 'n2', relation: 'incorporated_in', meta: {} },
    ],
  };
  const index = buildQueryIndex(graph);
  const candidatesOf = (c: Constraint): string[] =>
    evaluateQuery(index, { answer: c.var, patterns: c.patterns, filters: c.filters }).candidates;

  it('description: a type and a relation to a named neighbour, as a pattern to a constant', () => {
    const c = description('?a', formfactor, { edgeId: 'e1', relation: 'incorporated_in', neighbour: graph.nodes[1]!, direction: 'out' });
    expect(c.clause).toBe('that is incorporated in Delaware');
    expect(c.patterns).toEqual([{ s: '?a', rel: 'incorporated_in', o: 'n2' }]);
    expect(c.filters).toEqual([{ var: '?a', attr: 'type', op: 'eq', value: 'company' }]);
    expect(c.support).toEqual(['e1']);
    expect(candidatesOf(c)).toEqual(['n17', 'n3']); // the description alone is true of both companies
    expect(mentionsAny(c.clause, names)).toBe(false);
  });

  it('description by category: "a country that lies in South America" as an eq filter', () => {
    const c = describeByAttr('?k', graph.nodes[3]!, 'region')!;
    expect(c.clause).toBe('that lies in South America');
    expect(c.filters).toContainEqual({ var: '?k', attr: 'region', op: 'eq', value: 'South America' });
    expect(candidatesOf(c)).toEqual(['n4', 'n5']);
  });

  it('implicit_order: "after the independence of Peru" is the concrete filter year > 1821', () => {
    const c = implicitOrder('?a', formfactor, 'inception', { node: graph.nodes[3]!, attr: 'independence' })!;
    expect(c.clause).toBe('that was founded after the independence of Peru');
    expect(c.filters).toEqual([{ var: '?a', attr: 'inception', op: 'gt', value: 1821 }]);
    expect(holds(c, formfactor)).toBe(true);
    expect(c.clause).not.toMatch(/\d/); // neither year is stated
    const before = implicitOrder('?k', graph.nodes[4]!, 'independence', { node: graph.nodes[3]!, attr: 'independence' })!;
    expect(before.filters[0]).toMatchObject({ op: 'lt', value: 1821 });
    expect(before.clause).toBe('that became independent before the independence of Peru');
    // equal years give no order
    expect(implicitOrder('?k', graph.nodes[3]!, 'independence', { node: graph.nodes[3]!, attr: 'independence' })).toBeNull();
  });

  it('multi_constraint: conditions on one entity that hold together, none enough alone', () => {
    const rng = createRng(7);
    const d = description('?a', formfactor, { edgeId: 'e1', relation: 'incorporated_in', neighbour: graph.nodes[1]!, direction: 'out' });
    const t = vagueTime('?a', formfactor, 'inception', rng, { style: 'decade' })!; // the 1990s
    const m = multiConstraint([d, t])!;
    expect(m.kind).toBe('multi_constraint');
    expect(m.clause).toBe(`${d.clause} and ${t.clause}`);
    expect(m.filters).toEqual([...d.filters, ...t.filters]);
    expect(m.patterns).toEqual(d.patterns);
    expect(m.obfuscations.map((o) => o.kind)).toEqual(['description', 'vague_time', 'multi_constraint']);
    expect(candidatesOf(d)).toEqual(['n17', 'n3']); // Acme is in Delaware too
    expect(candidatesOf(t)).toEqual(['n17', 'n6']); // Zeta Probes was founded in the 1990s too
    expect(candidatesOf(m)).toEqual(['n17']);
    expect(multiConstraint([d])).toBeNull();
  });

  it('distractor: a related entity in a remark, recorded, with no effect on the query', () => {
    const c = distractor('?a', graph.nodes[2]!, { relation: 'incorporated_in', neighbour: graph.nodes[1]!, direction: 'out' });
    expect(c.filters).toEqual([]);
    expect(c.patterns).toEqual([]);
    expect(c.distractors).toEqual(['n3']);
    expect(c.remark!('the company')).toBe('the company is not to be confused with Acme Widgets, another company that is incorporated in Delaware');
    expect(mentionsAny(c.remark!('the company'), names)).toBe(false);
  });
});

describe('leak check', () => {
  it('finds a name or alias as a whole word or phrase, case-insensitively', () => {
    expect(mentionsAny('Which firm, formfactor, …', names)).toBe(true);
    expect(mentionsAny('the maker FormFactor, Inc. of probes', names)).toBe(true);
    expect(mentionsAny('an FF design', names)).toBe(true);
    expect(mentionsAny('stuff and offers', names)).toBe(false); // "ff" inside words is not the alias
    expect(mentionsAny('thus', ['US'])).toBe(false);
    expect(mentionsAny('made in the US.', ['US'])).toBe(true);
    expect(yearOf('1993')).toBe(1993);
  });
});
