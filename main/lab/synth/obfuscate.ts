// Uncertainty injection (docs/pipeline.md, 'Uncertainty injection'): small pure functions that each return BOTH the
// prose fragment and the exact query content it implies, so the question and its `query` never drift apart.
//
// Every fragment is a relative clause about one variable ("that was founded in the early 1990s",
// "whose population is fewer than 2 million", "that is located in Peru"), except distractors, which are
// a separate remark. The filter always holds for the true node (ranges are built around the true value),
// so the subgraph's own binding stays a solution: obfuscation can only widen the candidate set, and the
// builder then verifies and tightens.
import type { GraphNode, Obfuscation, QueryFilter, QueryPattern } from '../formats';
import type { Rng } from '../util/rng';
import { amount, type NumberStyle } from './numbers';
import { yearOf } from './query-filters';
import {
  attrWords,
  dateClause,
  dateEvent,
  numberClause,
  ordinal,
  ordinalWord,
  relPhrase,
  typeNoun,
  withArticle,
  yearText,
} from './lexicon';

export const OBFUSCATION_KINDS = [
  'vague_time',
  'numeric_range',
  'partial_name',
  'description',
  'multi_constraint',
  'implicit_order',
  'distractor',
] as const;
export type ObfuscationKind = (typeof OBFUSCATION_KINDS)[number];

export function isObfuscationKind(s: string): s is ObfuscationKind {
  return (OBFUSCATION_KINDS as readonly string[]).includes(s);
}

/** One injected piece of uncertainty: prose and the exact logic it stands for. */
export interface Constraint {
  kind: ObfuscationKind;
  /** The variable it constrains (a distractor names the variable it is mentioned next to). */
  var: string;
  /** Relative clause about `var`; '' for a distractor. */
  clause: string;
  /** A remark given the referent of `var` ("the river"); only distractors have one. */
  remark?: (ref: string) => string;
  /** A distractor's look-alike as the realiser words it: "(The river is not the Amur, another river …)". */
  aside?: { name: string; noun: string; clause: string };
  /** The single constraints a multi_constraint joins (each is said, and weighed, on its own). */
  parts?: Constraint[];
  /** Candidates of the whole query without this constraint (set once the QA is verified; see economy.ts). */
  without?: number;
  filters: QueryFilter[];
  patterns: QueryPattern[];
  obfuscations: Obfuscation[];
  support: string[];
  distractors: string[];
  /** For narrowing a range later: the attribute, its true value and the width of the range (Infinity if open). */
  range?: { node: string; attr: string; value: string | number; unit?: string; width: number };
}

function base(kind: ObfuscationKind, v: string): Constraint {
  return { kind, var: v, clause: '', filters: [], patterns: [], obfuscations: [], support: [], distractors: [] };
}

// ---------------------------------------------------------------- leak check

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Does `text` mention any of `names` (case-insensitive, as a whole word or phrase, so the alias "US" is
 * found in "the US" but not in "thus")? Used for the answer's name and every alias.
 */
export function mentionsAny(text: string, names: readonly string[]): boolean {
  const lower = text.toLowerCase();
  for (const raw of names) {
    const name = raw.trim().toLowerCase();
    if (!name) continue;
    if (!lower.includes(name)) continue;
    const re = new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(name)}($|[^\\p{L}\\p{N}])`, 'u');
    if (re.test(lower)) return true;
  }
  return false;
}

// ---------------------------------------------------------------- vague time

export type TimeStyle = 'century' | 'century_part' | 'century_decade' | 'decade' | 'decade_part' | 'range' | 'before' | 'after';
export const TIME_STYLES: readonly TimeStyle[] = ['century', 'century_part', 'century_decade', 'decade', 'decade_part', 'range', 'before', 'after'];

export interface Period {
  text: string; // "in the early 1990s"
  filter: { op: 'between'; value: [number, number] } | { op: 'lt' | 'gt'; value: number };
  width: number; // years covered; Infinity for an open bound
}

/** A vague period that contains year `y`, in the given style; null when the style does not apply. */
export function period(y: number, style: TimeStyle, rng: Rng, maxWidth = Infinity): Period | null {
  const between = (text: string, lo: number, hi: number): Period | null =>
    hi - lo + 1 <= maxWidth ? { text, filter: { op: 'between', value: [lo, hi] }, width: hi - lo + 1 } : null;
  const c = Math.floor((y - 1) / 100) + 1; // century of year y (y >= 1)
  const c0 = (c - 1) * 100; // year before the century's first
  switch (style) {
    case 'century':
      return y >= 1 ? between(`in the ${ordinal(c)} century`, c0 + 1, c0 + 100) : null;
    case 'century_part': {
      if (y < 1) return null;
      const pos = y - c0; // 1..100
      const [word, lo, hi] = pos <= 33 ? ['early', 1, 33] : pos <= 66 ? ['mid', 34, 66] : ['late', 67, 100];
      return between(`in the ${word}${word === 'mid' ? '-' : ' '}${ordinal(c)} century`, c0 + lo, c0 + hi);
    }
    case 'century_decade': {
      if (y < 1) return null;
      const d = Math.floor((y - c0 - 1) / 10) + 1; // 1..10
      return between(`in the ${ordinalWord(d)} decade of the ${ordinal(c)} century`, c0 + (d - 1) * 10 + 1, c0 + d * 10);
    }
    case 'decade': {
      if (y < 1000) return null;
      const d0 = Math.floor(y / 10) * 10;
      return between(`in the ${d0}s`, d0, d0 + 9);
    }
    case 'decade_part': {
      if (y < 1000) return null;
      const d0 = Math.floor(y / 10) * 10;
      const k = y - d0;
      const [word, lo, hi] = k <= 3 ? ['early', 0, 3] : k <= 6 ? ['mid', 4, 6] : ['late', 7, 9];
      return between(`in the ${word}${word === 'mid' ? '-' : ' '}${d0}s`, d0 + lo, d0 + hi); // "the early 1990s", "the mid-1990s"
    }
    case 'range': {
      const cap = Math.min(maxWidth, 16);
      if (cap < 3) return null;
      const width = 3 + rng.int(cap - 2); // 3..cap years
      const lo = y - rng.int(width); // the true year sits anywhere inside [lo, hi]
      const hi = lo + width - 1;
      return between(`between ${yearText(lo)} and ${yearText(hi)}`, lo, hi);
    }
    case 'before': {
      if (maxWidth !== Infinity) return null;
      const bound = y + 1 + rng.int(12);
      return { text: `before ${yearText(bound)}`, filter: { op: 'lt', value: bound }, width: Infinity };
    }
    case 'after': {
      if (maxWidth !== Infinity) return null;
      const bound = y - 1 - rng.int(12);
      return { text: `after ${yearText(bound)}`, filter: { op: 'gt', value: bound }, width: Infinity };
    }
  }
}

/**
 * vague_time: an exact date becomes a period ("in the early 1990s", "around the mid 5th century",
 * "at some point between 2004 and 2006", "before 1910") and a `between` / `lt` / `gt` filter on the year.
 */
export function vagueTime(
  v: string,
  node: GraphNode,
  attr: string,
  rng: Rng,
  opts: { style?: TimeStyle; maxWidth?: number } = {},
): Constraint | null {
  const a = node.attrs[attr];
  if (!a || a.type !== 'date') return null;
  const y = yearOf(a.value);
  if (!Number.isFinite(y)) return null;
  const styles = opts.style ? [opts.style] : rng.shuffle([...TIME_STYLES]);
  for (const style of styles) {
    const p = period(y, style, rng, opts.maxWidth);
    if (!p) continue;
    const c = base('vague_time', v);
    c.clause = dateClause(attr, p.text);
    c.filters.push({ var: v, attr, ...p.filter });
    c.obfuscations.push({ kind: 'vague_time', target: `${v}.${attr}`, from: a.value, to: p.text });
    c.support.push(`${node.id}.${attr}`);
    c.range = { node: node.id, attr, value: a.value, width: p.width };
    return c;
  }
  return null;
}

// ---------------------------------------------------------------- numeric ranges

export { amount, type Amount, type NumberStyle } from './numbers';

/** numeric_range: an exact number becomes a range or a qualitative bound, with the matching filter. */
export function numericRange(
  v: string,
  node: GraphNode,
  attr: string,
  rng: Rng,
  opts: { style?: NumberStyle; maxWidth?: number } = {},
): Constraint | null {
  const a = node.attrs[attr];
  if (!a || a.type !== 'number') return null;
  const styles: NumberStyle[] = opts.style ? [opts.style] : rng.shuffle(['between', 'between', 'lt', 'gt']);
  for (const style of styles) {
    const amt = amount(a.value, a.unit, style, rng, opts.maxWidth, attr);
    if (!amt) continue;
    const c = base('numeric_range', v);
    c.clause = numberClause(attr, amt);
    c.filters.push({ var: v, attr, ...amt.filter });
    c.obfuscations.push({ kind: 'numeric_range', target: `${v}.${attr}`, from: `${a.value}${a.unit ? ` ${a.unit}` : ''}`, to: amt.text });
    c.support.push(`${node.id}.${attr}`);
    c.range = { node: node.id, attr, value: a.value, unit: a.unit, width: amt.width };
    return c;
  }
  return null;
}

// ---------------------------------------------------------------- partial names

export type NameStyle = 'initial' | 'prefix' | 'contains';

/**
 * partial_name: "known by a name beginning with "F"" (prefix) or "... containing "act"" (contains).
 * The filter is on `name`, which matches the name or any alias, so the prose says "known by a name".
 * Returns null when the fragment would be a whole name or alias of the node.
 */
export function partialName(v: string, node: GraphNode, rng: Rng, opts: { style?: NameStyle } = {}): Constraint | null {
  const name = node.name.trim();
  const all = [node.name, ...node.aliases].map((s) => s.trim().toLowerCase());
  const styles: NameStyle[] = opts.style ? [opts.style] : rng.shuffle(['initial', 'prefix', 'contains']);
  for (const style of styles) {
    let frag = '';
    let op: 'prefix' | 'contains' = 'prefix';
    if (style === 'initial') frag = name.slice(0, 1);
    else if (style === 'prefix') frag = name.slice(0, 2 + rng.int(2));
    else {
      op = 'contains';
      const spans: string[] = [];
      for (const m of name.matchAll(/\p{L}{4,}/gu)) {
        const w = m[0];
        for (let i = 1; i + 3 <= w.length; i++) spans.push(w.slice(i, i + 3));
      }
      if (spans.length === 0) continue;
      frag = rng.pick(spans);
    }
    if (!frag.trim() || frag.length >= name.length || all.includes(frag.toLowerCase())) continue;
    const c = base('partial_name', v);
    const q = `"${frag}"`;
    c.clause = op === 'prefix' ? `that is known by a name beginning with ${q}` : `that is known by a name containing the letters ${q}`;
    c.filters.push({ var: v, attr: 'name', op, value: frag });
    c.obfuscations.push({ kind: 'partial_name', target: `${v}.name`, from: node.id, to: op === 'prefix' ? `name starts with ${q}` : `name contains ${q}` });
    c.support.push(`${node.id}.name`);
    return c;
  }
  return null;
}

// ---------------------------------------------------------------- description instead of a name

/**
 * description: the entity is described through its type and one relation to a named neighbour instead of
 * by its own name ("a country that is located in South America"): a type filter plus a pattern to a constant.
 */
export function description(
  v: string,
  node: GraphNode,
  link: { edgeId: string; relation: string; neighbour: GraphNode; direction: 'out' | 'in' },
): Constraint {
  const c = base('description', v);
  const rp = relPhrase(link.relation);
  const other = link.neighbour;
  c.clause = link.direction === 'out' ? rp.onSubject(other.name) : rp.onObject(other.name);
  c.filters.push({ var: v, attr: 'type', op: 'eq', value: node.type });
  c.patterns.push(link.direction === 'out' ? { s: v, rel: link.relation, o: other.id } : { s: other.id, rel: link.relation, o: v });
  c.obfuscations.push({ kind: 'description', target: v, from: node.id, to: `${withArticle(typeNoun(node.type))} ${c.clause}` });
  c.support.push(link.edgeId);
  return c;
}

const ADJECTIVES = new Set(['landlocked', 'coastal', 'independent', 'extinct', 'active', 'endangered']);

/**
 * description by category: a categorical string attribute instead of the name ("a country that lies in
 * Northern Africa", "a country that is landlocked", "an airport whose airport size is "medium""), as an
 * `eq` filter on that attribute. The caller decides what is categorical (a value many nodes share).
 */
export function describeByAttr(v: string, node: GraphNode, attr: string): Constraint | null {
  const a = node.attrs[attr];
  if (!a || a.type !== 'string' || !a.value.trim()) return null;
  const value = a.value.trim();
  const w = attrWords(attr);
  const yes = /^(yes|true)$/i.test(value);
  const no = /^(no|false)$/i.test(value);
  let clause: string;
  if ((yes || no) && ADJECTIVES.has(attr)) clause = `that is ${no ? 'not ' : ''}${w}`;
  else if (yes || no) clause = `that has ${no ? 'no ' : ''}${w}`;
  else if (attr === 'region' || attr === 'subregion' || attr === 'continent') clause = `that lies in ${value}`;
  else clause = `whose ${w} is "${value}"`;
  const c = base('description', v);
  c.clause = clause;
  c.filters.push({ var: v, attr: 'type', op: 'eq', value: node.type }, { var: v, attr, op: 'eq', value });
  c.obfuscations.push({ kind: 'description', target: `${v}.${attr}`, from: node.id, to: `${withArticle(typeNoun(node.type))} ${clause}` });
  c.support.push(`${node.id}.${attr}`);
  return c;
}

// ---------------------------------------------------------------- implicit order

/**
 * implicit_order: "that was founded after the independence of Peru": the order of two entities' dates,
 * stated without either year, and recorded as the concrete filter `year(attr) > year(reference)`
 * (or `<` for "before"). Null when both years are equal.
 */
export function implicitOrder(
  v: string,
  node: GraphNode,
  attr: string,
  ref: { node: GraphNode; attr: string },
): Constraint | null {
  const a = node.attrs[attr];
  const r = ref.node.attrs[ref.attr];
  if (!a || a.type !== 'date' || !r || r.type !== 'date') return null;
  const y = yearOf(a.value);
  const ry = yearOf(r.value);
  if (!Number.isFinite(y) || !Number.isFinite(ry) || y === ry) return null;
  const word = y > ry ? 'after' : 'before';
  const when = `${word} ${dateEvent(ref.attr, ref.node.name)}`;
  const c = base('implicit_order', v);
  c.clause = dateClause(attr, when);
  c.filters.push({ var: v, attr, op: y > ry ? 'gt' : 'lt', value: ry });
  c.obfuscations.push({ kind: 'implicit_order', target: `${v}.${attr}`, from: a.value, to: `${when} (${ref.node.id}.${ref.attr} = ${r.value})` });
  c.support.push(`${node.id}.${attr}`, `${ref.node.id}.${ref.attr}`);
  return c;
}

// ---------------------------------------------------------------- multi-condition constraint

/**
 * multi_constraint: two or more conditions on one entity that must hold at once ("that was founded in the
 * 1990s and that is known by a name beginning with "F""). The builder only calls it a multi_constraint
 * when no single part narrows the entity to one node on its own.
 */
export function multiConstraint(parts: Constraint[]): Constraint | null {
  if (parts.length < 2 || parts.some((p) => p.var !== parts[0]!.var || !p.clause)) return null;
  const c = base('multi_constraint', parts[0]!.var);
  c.clause = parts.map((p) => p.clause).join(' and ');
  for (const p of parts) {
    c.filters.push(...p.filters);
    c.patterns.push(...p.patterns);
    c.obfuscations.push(...p.obfuscations);
    c.support.push(...p.support);
  }
  c.obfuscations.push({ kind: 'multi_constraint', target: c.var, from: parts.map((p) => p.kind).join('+'), to: 'all conditions hold at once' });
  c.parts = parts;
  return c;
}

// ---------------------------------------------------------------- counterfactual distractor

/**
 * distractor: a related-looking but irrelevant entity mentioned in the prose ("The river is not to be
 * confused with the Amur, another river that flows through China."). It adds no filter: the remark is
 * true and leaves the query unchanged; the entity is recorded in `distractors`.
 */
export function distractor(
  v: string,
  other: GraphNode,
  link: { relation: string; neighbour: GraphNode; direction: 'out' | 'in' },
): Constraint {
  const c = base('distractor', v);
  const rp = relPhrase(link.relation);
  const clause = link.direction === 'out' ? rp.onSubject(link.neighbour.name) : rp.onObject(link.neighbour.name);
  const noun = typeNoun(other.type);
  c.remark = (ref) => `${ref} is not to be confused with ${other.name}, another ${noun} ${clause}`;
  c.aside = { name: other.name, noun, clause };
  c.obfuscations.push({ kind: 'distractor', target: v, from: other.id, to: `${other.name}, another ${noun} ${clause}` });
  c.distractors.push(other.id);
  return c;
}
