// How one filter of a `sailor.qa/1` query tests one node (see docs/formats.md, 'sailor.qa/1'): `attr` is an
// attribute name, `name` (the name or any alias) or `type`; ops eq / lt / gt / between (inclusive) / prefix /
// contains (both case-insensitive); on a `date` attribute a numeric value compares with the date's year.
// Choices the format leaves open: `eq` on a name or string attribute is case-insensitive too (`type` is
// exact); a date string compares at the precision both dates have.
import type { FilterOp, GraphNode, QueryFilter } from '../formats';

/** The year of an ISO date `YYYY`, `YYYY-MM`, `YYYY-MM-DD` (a leading `-` for years before 1 CE), or NaN. */
export function yearOf(date: string): number {
  const m = /^([+-]?\d{1,6})(?:-|$)/.exec(date.trim());
  return m ? Number(m[1]) : NaN;
}

const partsCache = new Map<string, number[] | null>();

/** [year, month, day] as far as given; null when not a date. Memoised: graphs repeat few distinct dates. */
function dateParts(date: string): number[] | null {
  let parts = partsCache.get(date);
  if (parts === undefined) {
    if (partsCache.size > 200_000) partsCache.clear();
    parts = parseDateParts(date);
    partsCache.set(date, parts);
  }
  return parts;
}

function parseDateParts(date: string): number[] | null {
  const m = /^([+-]?\d{1,6})(?:-(\d{1,2}))?(?:-(\d{1,2}))?/.exec(date.trim());
  if (!m) return null;
  const parts = [Number(m[1])];
  if (m[2] !== undefined) parts.push(Number(m[2]));
  if (m[3] !== undefined) parts.push(Number(m[3]));
  return parts;
}

/** Compares two dates at the precision both have (a year-only date equals every day of that year). */
function compareDates(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return 0;
}

// ---------- the operators, once: the graph's matchesFilter below and the expert's checkFilter (agent/expert-notes.ts) ----------

/** The sign of (attribute - v), NaN when the two do not compare. */
export type Compare = (v: number | string) => number;

/**
 * An ordering op on a value that compares: eq, lt, gt, and between (inclusive; its value is a [lo, hi] pair,
 * as the format requires). NaN (incomparable) never holds. null for a text op (prefix, contains): they say
 * nothing of order.
 */
export function orderOpHolds(cmp: Compare, op: FilterOp, value: QueryFilter['value']): boolean | null {
  if (op === 'prefix' || op === 'contains') return null;
  if (op === 'between') return Array.isArray(value) && cmp(value[0]) >= 0 && cmp(value[1]) <= 0;
  if (Array.isArray(value)) return false;
  const c = cmp(value);
  return op === 'eq' ? c === 0 : op === 'lt' ? c < 0 : c > 0;
}

/**
 * A text op on some texts (a node's name and aliases, or an attribute's text): eq when a text has the value's
 * key (`key` makes the two alike: the graph lower-cases, the expert normalises as answers are), prefix and
 * contains case-insensitive. null for an ordering op (lt, gt, between).
 */
export function textOpHolds(texts: readonly string[], op: FilterOp, value: QueryFilter['value'], key: (s: string) => string): boolean | null {
  if (op !== 'eq' && op !== 'prefix' && op !== 'contains') return null;
  if (Array.isArray(value)) return false;
  if (op === 'eq') {
    const k = key(String(value));
    return texts.some((t) => key(t) === k);
  }
  const v = String(value).toLowerCase();
  return op === 'prefix' ? texts.some((t) => t.toLowerCase().startsWith(v)) : texts.some((t) => t.toLowerCase().includes(v));
}

const lower = (s: string): string => s.toLowerCase();
const exact = (s: string): string => s;

/** Does one node satisfy one filter? (Exported for tests and for the level rule.) `names`: its names, lower-cased. */
export function matchesFilter(node: GraphNode, f: QueryFilter, names?: string[]): boolean {
  const { op, value } = f;
  if (f.attr === 'type') return textOpHolds([node.type], op, value, exact) ?? false;
  if (f.attr === 'name') return textOpHolds(names ?? [node.name, ...node.aliases], op, value, lower) ?? false;
  const a = node.attrs[f.attr];
  if (!a) return false;
  if (a.type === 'string' || op === 'prefix' || op === 'contains') return textOpHolds([String(a.value)], op, value, lower) ?? false;
  if (a.type === 'number') return orderOpHolds((v) => a.value - Number(v), op, value) ?? false;
  const parts = dateParts(a.value);
  if (!parts) return false;
  // a number compares with the year; a date string at the precision both dates have
  const cmp: Compare = (v) => {
    if (typeof v === 'number') return parts[0]! - v;
    const other = dateParts(v);
    return other ? compareDates(parts, other) : NaN;
  };
  return orderOpHolds(cmp, op, value) ?? false;
}
