// What the expert has read: entities, their attributes and links parsed out of the simulated web's search
// and visit observations (the templates web.ts writes), and the query's filters checked against them. The
// expert learns every fact here, from observations only, never from the graph.
import type { QueryFilter } from '../formats/index';
import { orderOpHolds, textOpHolds } from '../synth/query-filters';
import { labelWords, normalizeAnswer, splitSentences } from './text';
import { VISIT_FAILED_EVIDENCE, relationPhrase } from './web';

// ---------- notes: what the expert has read ----------

export interface Entity {
  key: string;
  name: string;
  aliases: string[];
  type?: string;
  url?: string;
  attrs: Map<string, string>; // attribute words -> value text as written on the page
  visited: boolean;
}

export const keyOf = (name: string): string => normalizeAnswer(name);

export class Notes {
  readonly entities = new Map<string, Entity>();
  private readonly edges = new Set<string>();
  readonly urlEntity = new Map<string, string>(); // url -> entity key (from a visited page's lead)
  readonly failedUrls = new Set<string>();

  entity(name: string): Entity {
    const key = keyOf(name);
    let e = this.entities.get(key);
    if (!e) {
      e = { key, name: name.trim(), aliases: [], attrs: new Map(), visited: false };
      this.entities.set(key, e);
    }
    return e;
  }

  addEdge(source: string, rel: string, target: string): void {
    const s = this.entity(source).key;
    const t = this.entity(target).key;
    this.edges.add(`${s}\u0000${rel}\u0000${t}`);
  }

  hasEdge(sKey: string, rel: string, tKey: string): boolean {
    return this.edges.has(`${sKey}\u0000${rel}\u0000${tKey}`);
  }

  /** Keys of entities linked to `key` by `rel`, as target (dir 'out') or as source (dir 'in'). */
  neighbours(key: string, rel: string, dir: 'out' | 'in'): string[] {
    const out: string[] = [];
    for (const e of this.edges) {
      const [s, r, t] = e.split('\u0000') as [string, string, string];
      if (r !== rel) continue;
      if (dir === 'out' && s === key) out.push(t);
      if (dir === 'in' && t === key) out.push(s);
    }
    return out;
  }
}

const LEAD = /^(.+?)(?: \(also known as (.+?)\))? is an? ([^.]+?)\.(?:\s|$)/;
const NO_MATCH_PREFIX = 'Nothing in the page addresses the goal directly. ';

/** Reads one sentence written by the simulated web's templates; unknown shapes are ignored. */
export function readSentence(notes: Notes, sentence: string, relations: readonly string[], attrs: readonly string[]): void {
  const s = sentence.trim();
  if (!s || s.endsWith('…')) return; // a truncated snippet cannot be read reliably
  for (const attr of attrs) {
    const prefix = `The ${labelWords(attr)} of `;
    if (!s.startsWith(prefix)) continue;
    const rest = s.slice(prefix.length);
    const at = rest.indexOf(' is ');
    if (at <= 0) continue;
    notes.entity(rest.slice(0, at)).attrs.set(labelWords(attr), rest.slice(at + 4).replace(/\.$/, ''));
    return;
  }
  for (const rel of relations) {
    const phrase = ` ${relationPhrase(rel)} `;
    const at = s.indexOf(phrase);
    if (at <= 0) continue;
    notes.addEdge(s.slice(0, at), rel, s.slice(at + phrase.length).replace(/\.$/, ''));
    return;
  }
}

function readLead(notes: Notes, sentence: string): Entity | undefined {
  const m = LEAD.exec(sentence.replace(NO_MATCH_PREFIX, '').trim());
  if (!m) return undefined;
  const e = notes.entity(m[1]!);
  if (m[2]) for (const a of m[2].split('; ')) if (!e.aliases.includes(a)) e.aliases.push(a);
  e.type = m[3]!.trim();
  return e;
}

/** Reads a search observation: every result's title and URL, and its snippet sentence. */
export function readSearch(notes: Notes, obs: string, relations: readonly string[], attrs: readonly string[]): string[] {
  const lines = obs.split('\n');
  const keys: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^\d+\. \[(.*)\]\((\S+)\)$/.exec(lines[i]!);
    if (!m) continue;
    const e = notes.entity(m[1]!);
    e.url ??= m[2]!;
    if (!keys.includes(e.key)) keys.push(e.key);
    const snippet = lines[i + 1];
    if (snippet === undefined) continue;
    // A snippet may be the page's lead ("X is a city."), which gives the type.
    const lead = keyOf(snippet).startsWith(e.key) ? readLead(notes, snippet) : undefined;
    if (!lead) readSentence(notes, snippet, relations, attrs);
  }
  return keys;
}

/** Reads a visit observation block: the page's lead (from the summary) and every evidence sentence. */
export function readVisit(notes: Notes, block: string, relations: readonly string[], attrs: readonly string[]): void {
  const head = /^The useful information in (\S+) for user goal/.exec(block.trim());
  if (!head) return;
  const url = head[1]!;
  const ev = block.indexOf('Evidence in page: \n');
  const sm = block.indexOf('\n\nSummary: \n');
  if (ev < 0 || sm < 0) return;
  const evidence = block.slice(ev + 'Evidence in page: \n'.length, sm);
  const summary = block.slice(sm + '\n\nSummary: \n'.length).trim();
  if (evidence.startsWith(VISIT_FAILED_EVIDENCE)) {
    notes.failedUrls.add(url);
    return;
  }
  const lead = readLead(notes, summary);
  if (lead) {
    lead.url ??= url;
    lead.visited = true;
    notes.urlEntity.set(url, lead.key);
  }
  for (const line of evidence.split('\n')) readSentence(notes, line, relations, attrs);
  for (const s of splitSentences(summary.replace(NO_MATCH_PREFIX, ''))) readSentence(notes, s, relations, attrs);
}

/** The last <tool_response> body in a context, or null before the first tool call. */
export function lastObservation(context: string): string | null {
  const open = context.lastIndexOf('<tool_response>\n');
  if (open < 0) return null;
  const close = context.indexOf('\n</tool_response>', open);
  return context.slice(open + '<tool_response>\n'.length, close < 0 ? undefined : close);
}

// ---------- checking filters on what was read ----------

const MONTH_RE = '(?:January|February|March|April|May|June|July|August|September|October|November|December)';
const DATE_RE = new RegExp(`^(?:\\d{1,2} )?(?:${MONTH_RE} )?(\\d+)( BC)?$`);

/** A value as written on a page -> a number to compare (a date's year, a quantity's number). */
export function valueNumber(text: string): number | null {
  const t = text.trim();
  const d = DATE_RE.exec(t);
  if (d) return d[2] ? -Number(d[1]) : Number(d[1]);
  const n = /^-?\d+(?:\.\d+)?/.exec(t);
  return n ? Number(n[0]) : null;
}

type Truth = true | false | null; // null: not known from what was read

/** A filter on what was read of an entity, by the operators' one rule (synth/query-filters.ts); null when the pages read do not tell. */
export function checkFilter(e: Entity, f: QueryFilter): Truth {
  const { op, value } = f;
  if (f.attr === 'name') return textOpHolds([e.name, ...e.aliases], op, value, keyOf);
  if (f.attr === 'type') return e.type === undefined ? null : textOpHolds([e.type], op, typeof value === 'string' ? labelWords(value) : value, keyOf);
  const raw = e.attrs.get(labelWords(f.attr));
  if (raw === undefined) return null; // not in any extract read so far (an extract shows only what was asked)
  if (typeof value === 'string') return textOpHolds([raw], op, value, keyOf);
  const x = valueNumber(raw); // a number (or a [lo, hi] pair) compares with the page's number or year
  return x === null ? false : orderOpHolds((v) => x - Number(v), op, value);
}
