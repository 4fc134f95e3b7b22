// How one filter of a `sailor.qa/1` query tests one node (see docs/formats.md, 'sailor.qa/1'): `attr` is an
// attribute name, `name` (the name or any alias) or `type`; ops eq / lt / gt / between (inclusive) / prefix /
// contains (both case-insensitive); on a `date` attribute a numeric value compares with the date's year.
// Choices the format leaves open: `eq` on a name or string attribute is case-insensitive too (`type` is
// exact); a date string compares at the precision both dates have.
import type { GraphNode, QueryFilter } from '../formats';

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

/** Applies an ordering op given `cmp(v)` = sign of (attribute - v); NaN (incomparable) never matches. */
function compareOp(cmp: (v: number | string) => number, op: QueryFilter['op'], value: QueryFilter['value']): boolean {
  if (op === 'between') {
    if (!Array.isArray(value)) return false;
    return cmp(value[0]) >= 0 && cmp(value[1]) <= 0;
  }
  if (Array.isArray(value)) return false;
  const c = cmp(value);
  return op === 'eq' ? c === 0 : op === 'lt' ? c < 0 : op === 'gt' ? c > 0 : false;
}

/** Does one node satisfy one filter? (Exported for tests and for the level rule.) */
export function matchesFilter(node: GraphNode, f: QueryFilter, names?: string[]): boolean {
  const { op, value } = f;
  if (f.attr === 'type') return textMatch([node.type], op, value, false);
  if (f.attr === 'name') return textMatch(names ?? [node.name, ...node.aliases].map((s) => s.toLowerCase()), op, value, true);
  const a = node.attrs[f.attr];
  if (!a) return false;
  if (a.type === 'string') return textMatch([a.value.toLowerCase()], op, value, true);
  if (op === 'prefix' || op === 'contains') return textMatch([String(a.value).toLowerCase()], op, value, true);
  if (a.type === 'number') return compareOp((v) => a.value - Number(v), op, value);
  const parts = dateParts(a.value);
  if (!parts) return false;
  // a number compares with the year; a date string at the precision both dates have
  return compareOp((v) => {
    if (typeof v === 'number') return parts[0]! - v;
    const other = dateParts(v);
    return other ? compareDates(parts, other) : NaN;
  }, op, value);
}

function textMatch(texts: string[], op: QueryFilter['op'], value: QueryFilter['value'], fold: boolean): boolean {
  if (typeof value !== 'string' && typeof value !== 'number') return false;
  const v = fold ? String(value).toLowerCase() : String(value);
  switch (op) {
    case 'eq':
      return texts.some((t) => t === v);
    case 'prefix':
      return texts.some((t) => (fold ? t : t.toLowerCase()).startsWith(v.toLowerCase()));
    case 'contains':
      return texts.some((t) => (fold ? t : t.toLowerCase()).includes(v.toLowerCase()));
    default:
      return false;
  }
}
