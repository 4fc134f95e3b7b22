// Text for graph attributes and QA queries, shared by the Graph explorer and the Datasets view.
import type { AttrValue, Query, QueryFilter, QueryPattern } from '@formats';

const NUM = new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 });

export function formatNumber(n: number): string {
  return NUM.format(n);
}

export function formatAttr(a: AttrValue): string {
  if (a.type === 'number') return a.unit ? `${formatNumber(a.value)} ${a.unit}` : formatNumber(a.value);
  return String(a.value);
}

/** Turns snake_case labels into words for headings ("official_language" -> "official language"). */
export function words(label: string): string {
  return label.replace(/_/g, ' ');
}

export function isVar(term: string): boolean {
  return term.startsWith('?');
}

/** A query term: a variable as is, a node id as its name (the id kept in the title by callers). */
export function formatTerm(term: string, nameOf: (id: string) => string | undefined): string {
  if (isVar(term)) return term;
  return nameOf(term) ?? term;
}

export function formatPattern(p: QueryPattern, nameOf: (id: string) => string | undefined): string {
  return `${formatTerm(p.s, nameOf)} —${p.rel}→ ${formatTerm(p.o, nameOf)}`;
}

function formatValue(v: QueryFilter['value']): string {
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'string') return JSON.stringify(v);
  return `${formatNumber(v[0])} and ${formatNumber(v[1])}`;
}

const OPS: Record<QueryFilter['op'], string> = { eq: '=', lt: '<', gt: '>', between: 'between', prefix: 'prefix', contains: 'contains' };

export function formatFilter(f: QueryFilter): string {
  // Types read better bare (?a.type = country); every other string value is quoted.
  const value = f.attr === 'type' && f.op === 'eq' && typeof f.value === 'string' ? f.value : formatValue(f.value);
  return `${f.var}.${f.attr} ${OPS[f.op] ?? f.op} ${value}`;
}

/** The query as lines of text: the answer variable, the patterns, then the filters. */
export function formatQuery(q: Query, nameOf: (id: string) => string | undefined): string[] {
  return [`find ${q.answer}`, ...q.patterns.map((p) => formatPattern(p, nameOf)), ...q.filters.map(formatFilter)];
}
