// The expert of PIPELINE 5: a solver that plans from the QA's formal `query` but learns every fact from
// real search/visit observations. It is a Policy: each turn it reads the latest <tool_response> out of the
// context, adds what it can parse to its notes, and picks the next action. It never sees the answer (its
// input type has no answer field) and it is deliberately imperfect: it only knows what the search ranking
// and the goal-focused page extracts happened to show it.
//
// Then the reasoning reconstruction: the expert's own thoughts are dropped and a short thought per step is
// written from (history, action, observation), by rules or by an LLM through the chat adapter.
import type { Query, QueryFilter, QueryPattern, ToolAction, Trajectory } from '../formats/index';
import type { Rng } from '../util/rng';
import type { AgentStep } from './react';
import { renderAction } from './react';
import type { GenerateOptions, Policy } from './runtime';
import { labelWords, normalizeAnswer, splitSentences } from './text';
import { OBSERVATION_SEPARATOR, URL_SCHEME, VISIT_FAILED_EVIDENCE, relationPhrase } from './web';

/** What the expert may know about a QA: the question and its formal query. No answer, no answer_id. */
export interface ExpertTask {
  id: string;
  question: string;
  query: Query;
}

export interface ExpertOptions {
  maxCalls: number; // tool-call budget before answering with the best guess
  maxUrlsPerVisit: number;
  maxQueriesPerSearch: number;
  maxCandidates: number; // per variable, from the order they were seen
  rng?: Rng; // shuffles candidate order, so repeated samples can differ
  /**
   * The names of the node ids the query is anchored on (the entities the question itself refers to).
   * With it the expert starts like any agent, by searching the name; without it, it reads the anchor's
   * permalink page `sim://<id>`, an action a trained policy could not imitate.
   */
  anchorName?: (id: string) => string | undefined;
  /**
   * Actions a small policy trained from scratch can imitate, since it must learn every token it writes:
   * visit goals as the bare list of what to look for ("what it borders and its population"), without the
   * varied opener, and without a named anchor the opening search is the kinds of entity asked about, not
   * the question's own 200 characters. It also skips the checks that are rarely needed on named-anchor
   * questions (a relation-phrase search when the page already showed the link, a visit to confirm a type).
   */
  compact?: boolean;
}

export const EXPERT_DEFAULTS: ExpertOptions = { maxCalls: 24, maxUrlsPerVisit: 5, maxQueriesPerSearch: 5, maxCandidates: 12 };

// ---------- notes: what the expert has read ----------

interface Entity {
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

export function checkFilter(e: Entity, f: QueryFilter): Truth {
  const op = f.op;
  if (f.attr === 'name') {
    const names = [e.name, ...e.aliases];
    const v = String(f.value).toLowerCase();
    if (op === 'eq') return names.some((n) => keyOf(n) === keyOf(String(f.value)));
    if (op === 'prefix') return names.some((n) => n.toLowerCase().startsWith(v));
    if (op === 'contains') return names.some((n) => n.toLowerCase().includes(v));
    return null;
  }
  if (f.attr === 'type') {
    if (e.type === undefined) return null;
    return op === 'eq' ? keyOf(e.type) === keyOf(labelWords(String(f.value))) : null;
  }
  const raw = e.attrs.get(labelWords(f.attr));
  if (raw === undefined) return null; // not in any extract read so far (an extract shows only what was asked)
  if (Array.isArray(f.value) || typeof f.value === 'number') {
    const x = valueNumber(raw);
    if (x === null) return false;
    if (Array.isArray(f.value)) return x >= f.value[0] && x <= f.value[1];
    if (op === 'eq') return x === f.value;
    if (op === 'lt') return x < f.value;
    if (op === 'gt') return x > f.value;
    return null;
  }
  const v = String(f.value).toLowerCase();
  const r = raw.toLowerCase();
  if (op === 'eq') return keyOf(raw) === keyOf(String(f.value));
  if (op === 'prefix') return r.startsWith(v);
  if (op === 'contains') return r.includes(v);
  return null;
}

// ---------- the plan ----------

const isVar = (x: string): boolean => x.startsWith('?');

interface Decision {
  think: string;
  action: ToolAction;
}

/** The expert's state machine; exported for tests. `next(observation)` returns the next action. */
export class ExpertSolver {
  readonly notes = new Notes();
  private readonly opts: ExpertOptions;
  private readonly relations: string[];
  private readonly attrs: string[];
  private readonly constants: string[];
  private calls = 0;
  private last: ToolAction | null = null;
  private readonly searched = new Set<string>(); // queries already issued
  private readonly visitedUrls = new Set<string>(); // URLs already requested
  private readonly asked = new Map<string, Set<string>>(); // URL -> attributes and relations its goals asked for
  private readonly nameSearched = new Set<string>(); // entity keys whose name was searched for a URL
  private fallbackDone = false;
  private fallbackKeys: string[] = []; // result titles of the opening search when there is no anchor
  private fallbackRead = false;
  private lastCand = new Map<string, string[]>(); // candidates as of the last plan, for a forced answer

  constructor(readonly task: ExpertTask, opts: Partial<ExpertOptions> = {}) {
    this.opts = { ...EXPERT_DEFAULTS, ...opts };
    const q = task.query;
    this.relations = [...new Set(q.patterns.map((p) => p.rel))];
    this.attrs = [...new Set(q.filters.map((f) => f.attr).filter((a) => a !== 'name' && a !== 'type'))];
    this.constants = [...new Set(q.patterns.flatMap((p) => [p.s, p.o]).filter((x) => !isVar(x)))];
  }

  /** Feeds the observation of the previous action (if any) and returns the next decision. */
  next(observation: string | null, forceAnswer = false): Decision {
    if (observation !== null && this.last) this.read(this.last, observation);
    const d = forceAnswer || this.calls >= this.opts.maxCalls ? this.answer('budget') : this.plan();
    if (d.action.name !== 'answer') this.calls++;
    this.last = d.action;
    return d;
  }

  private read(action: ToolAction, obs: string): void {
    for (const block of obs.split(OBSERVATION_SEPARATOR)) {
      if (action.name === 'search') {
        const keys = readSearch(this.notes, block, this.relations, this.attrs);
        if (this.fallbackDone && !this.fallbackRead) for (const k of keys) if (!this.fallbackKeys.includes(k)) this.fallbackKeys.push(k);
      } else if (action.name === 'visit') readVisit(this.notes, block, this.relations, this.attrs);
    }
    if (this.fallbackDone) this.fallbackRead = true;
    // Two pages can share a title (the Arabic script and the Arabic language): an anchor's own page is
    // the one at its permalink, when the results show it.
    if (action.name === 'search' && this.opts.anchorName) {
      for (const id of this.constants) {
        const name = this.opts.anchorName(id);
        if (name && obs.includes(`](${URL_SCHEME}${id})`)) this.notes.entity(name).url = URL_SCHEME + id;
      }
    }
  }

  private constKey(id: string): string | undefined {
    const name = this.opts.anchorName?.(id);
    if (name !== undefined) {
      const e = this.notes.entities.get(keyOf(name));
      return e?.visited ? e.key : undefined;
    }
    return this.notes.urlEntity.get(URL_SCHEME + id);
  }

  private name(key: string): string {
    return this.notes.entities.get(key)?.name ?? key;
  }

  private goalFor(keys: readonly string[], vars: readonly string[]): string {
    const q = this.task.query;
    const parts: string[] = [];
    if (q.filters.some((f) => vars.includes(f.var) && f.attr === 'type')) parts.push('what kind of entity it is');
    for (const p of q.patterns) {
      const phrase = relationPhrase(p.rel);
      if (vars.includes(p.s)) parts.push(`what it ${phrase}`);
      if (vars.includes(p.o)) parts.push(`what ${phrase} it`);
    }
    for (const f of q.filters) if (vars.includes(f.var) && f.attr !== 'name' && f.attr !== 'type') parts.push(`its ${labelWords(f.attr)}`);
    // Shuffled, with a varied opener: the same long goal repeated across visits would trip the n-gram filter.
    const what = list(this.shuffled([...new Set(parts)])) || 'what the page says';
    if (this.opts.compact) return what;
    const r = this.opts.rng;
    // Several pages share one goal; their names would match every sentence and crowd out the facts.
    if (keys.length === 1) {
      const name = this.name(keys[0]!);
      return pick(r, [`Find out about ${name}: ${what}.`, `For ${name}, look for ${what}.`, `On the page of ${name}, find ${what}.`], this.calls);
    }
    return pick(r, [`For each page, find ${what}.`, `On each page, look for ${what}.`, `Check on every page ${what}.`], this.calls);
  }

  private visit(urls: string[], goal: string, think: string): Decision {
    for (const u of urls) this.visitedUrls.add(u);
    return { think, action: { name: 'visit', arguments: { url: urls, goal } } };
  }

  private search(queries: string[], think: string): Decision {
    for (const q of queries) this.searched.add(q);
    return { think, action: { name: 'search', arguments: { query: queries } } };
  }

  private shuffled<T>(items: T[]): T[] {
    return this.opts.rng ? this.opts.rng.shuffle(items) : items;
  }

  /**
   * Makes sure the entities' pages have been read: searches names that have no known URL, then visits
   * unread pages. Returns null when nothing more can be done for them.
   */
  /** What a visit for these variables asks about: their attribute filters and relation phrases. */
  private wanted(vars: readonly string[]): { attrs: string[]; rels: string[] } {
    const q = this.task.query;
    const attrs = q.filters.filter((f) => vars.includes(f.var) && f.attr !== 'name' && f.attr !== 'type').map((f) => labelWords(f.attr));
    const rels = q.patterns.filter((p) => vars.includes(p.s) || vars.includes(p.o)).map((p) => `${p.s === vars[0] ? '>' : '<'}${p.rel}`);
    return { attrs: [...new Set(attrs)], rels: [...new Set(rels)] };
  }

  /**
   * Makes sure the entities' pages have been read with a goal covering what `vars` need (an extract only
   * shows what the goal asked for): searches names that have no known URL, then visits, or re-visits a page
   * read earlier for another purpose. Returns null when nothing more can be done for them.
   */
  private ensureRead(keys: readonly string[], vars: readonly string[], why: string): Decision | null {
    const { attrs, rels } = this.wanted(vars);
    const needs = (e: Entity): boolean => {
      if (!e.url) return !e.visited;
      if (this.notes.failedUrls.has(e.url)) return false;
      const asked = this.asked.get(e.url);
      if (!asked) return true;
      return attrs.some((a) => !asked.has(a) && !e.attrs.has(a)) || rels.some((r) => !asked.has(r));
    };
    const entities = keys.map((k) => this.notes.entities.get(k)).filter((e): e is Entity => !!e && needs(e));
    const toVisit = entities.filter((e) => e.url);
    if (toVisit.length) {
      const batch = toVisit.slice(0, this.opts.maxUrlsPerVisit);
      for (const e of batch) {
        const asked = this.asked.get(e.url!) ?? new Set<string>();
        for (const w of [...attrs, ...rels]) asked.add(w);
        this.asked.set(e.url!, asked);
      }
      return this.visit(
        batch.map((e) => e.url!),
        this.goalFor(batch.map((e) => e.key), vars),
        `Read the pages of ${batch.map((e) => e.name).join(', ')} (${why}).`,
      );
    }
    const toFind = entities.filter((e) => !e.url && !this.nameSearched.has(e.key));
    if (toFind.length) {
      const batch = toFind.slice(0, this.opts.maxQueriesPerSearch);
      for (const e of batch) this.nameSearched.add(e.key);
      return this.search(batch.map((e) => e.name), `Find the pages of ${batch.map((e) => e.name).join(', ')} (${why}).`);
    }
    return null;
  }

  /**
   * Without anchors: the variable whose known conditions (type from a lead snippet, name) the fewest
   * search results satisfy becomes the starting point, with those results as its candidates.
   */
  private seedFromResults(): Map<string, string[]> {
    const q = this.task.query;
    const vars = [...new Set([q.answer, ...q.patterns.flatMap((p) => [p.s, p.o]).filter(isVar)])];
    let best: { v: string; keys: string[] } | null = null;
    for (const v of vars) {
      const fs = q.filters.filter((f) => f.var === v && (f.attr === 'type' || f.attr === 'name'));
      const keys = this.fallbackKeys.filter((k) => {
        const e = this.notes.entities.get(k)!;
        return fs.every((f) => checkFilter(e, f) === true || (f.attr === 'type' && e.type === undefined && fs.length > 1));
      });
      if (keys.length && (!best || keys.length < best.keys.length)) best = { v, keys };
    }
    return best ? new Map([[best.v, best.keys.slice(0, this.opts.maxCandidates)]]) : new Map();
  }

  /** Candidates per variable, derived from the notes by following patterns out of the anchors. */
  private expand(seed?: Map<string, string[]>): { cand: Map<string, string[]>; need: Decision | null } {
    const q = this.task.query;
    const cand = new Map<string, string[]>(seed ?? []);
    const known = (x: string): string[] | undefined => {
      if (isVar(x)) return cand.get(x);
      const k = this.constKey(x);
      return k ? [k] : undefined;
    };
    const done = new Set<QueryPattern>();
    for (;;) {
      // Follow the pattern whose known side has the fewest candidates: the cheapest hop to read.
      let best: { p: QueryPattern; from: string[]; fromVar: string; to: string; dir: 'out' | 'in' } | null = null;
      for (const p of q.patterns) {
        if (done.has(p)) continue;
        const ks = known(p.s);
        const ko = known(p.o);
        if (ks && ko) {
          done.add(p);
          continue;
        }
        if (!ks && !ko) continue;
        const hop = ks ? { p, from: ks, fromVar: p.s, to: p.o, dir: 'out' as const } : { p, from: ko!, fromVar: p.o, to: p.s, dir: 'in' as const };
        if (!best || hop.from.length < best.from.length) best = hop;
      }
      if (!best) break;
      const { p, fromVar, to, dir } = best;
      let from = best.from;
      const need = this.ensureRead(from, [fromVar], `to see what ${relationPhrase(p.rel)} links to`);
      if (need) return { cand, need };
      // Pages read: drop the candidates whose own conditions fail before following their links.
      if (isVar(fromVar)) {
        const filters = q.filters.filter((f) => f.var === fromVar);
        const pruned = from.filter((k) => filters.every((f) => checkFilter(this.notes.entities.get(k)!, f) !== false));
        if (pruned.length > 0 && pruned.length < from.length) {
          from = pruned;
          cand.set(fromVar, pruned);
        }
      }
      // Hubs may list more links than an extract shows: search the relation phrase too (compact: only when
      // the pages showed no link at all, keeping the trajectory a short pattern a small policy can follow).
      const shown = from.every((k) => this.notes.neighbours(k, p.rel, dir).length > 0);
      if (from.length <= 3 && !(this.opts.compact && shown)) {
        const queries = from
          .map((k) => (dir === 'out' ? `${this.name(k)} ${relationPhrase(p.rel)}` : `${relationPhrase(p.rel)} ${this.name(k)}`))
          .filter((qq) => !this.searched.has(qq));
        if (queries.length) {
          return {
            cand,
            need: this.search(queries.slice(0, this.opts.maxQueriesPerSearch), `Look for everything that ${relationPhrase(p.rel)} ${from.map((k) => this.name(k)).join(' or ')}.`),
          };
        }
      }
      const found: string[] = [];
      for (const k of from) for (const n of this.notes.neighbours(k, p.rel, dir)) if (!found.includes(n)) found.push(n);
      // Name filters need no page: apply them at once to keep the candidate list short.
      const nameFilters = q.filters.filter((f) => f.var === to && f.attr === 'name');
      const kept = found.filter((k) => nameFilters.every((f) => checkFilter(this.notes.entities.get(k)!, f) !== false));
      cand.set(to, kept.slice(0, this.opts.maxCandidates));
      done.add(p);
    }
    return { cand, need: null };
  }

  private plan(): Decision {
    const q = this.task.query;
    // 1. The anchors: the entities named by node ids in the query. By name: search and read their pages.
    //    Without names: read their permalink pages.
    if (this.opts.anchorName) {
      const keys = this.constants.map((id) => this.opts.anchorName!(id)).filter((n): n is string => !!n).map((n) => this.notes.entity(n).key);
      const need = this.ensureRead(keys, this.constants, 'the entities the question is anchored on');
      if (need) return need;
    } else {
      const pending = this.constants.filter((id) => !this.visitedUrls.has(URL_SCHEME + id));
      if (pending.length) {
        const batch = pending.slice(0, this.opts.maxUrlsPerVisit);
        return this.visit(batch.map((id) => URL_SCHEME + id), this.goalFor([], batch), 'Identify the anchor entities of the question and their links.');
      }
    }
    // 2. Without any readable anchor, start from a search of the question itself and of the kinds of
    //    entity it asks about (a type word finds pages whose lead says "X is a <type>").
    const anyAnchor = this.constants.some((id) => this.constKey(id));
    if (!anyAnchor && !this.fallbackDone) {
      this.fallbackDone = true;
      const types = [...new Set(q.filters.filter((f) => f.attr === 'type').map((f) => labelWords(String(f.value))))];
      const queries = [...(this.opts.compact && types.length > 0 ? [] : [this.task.question.slice(0, 200)]), ...types].slice(0, this.opts.maxQueriesPerSearch);
      return this.search(queries, 'No entity is named outright; search the description and the kinds of entity it mentions.');
    }
    let seed: Map<string, string[]> | undefined;
    if (!anyAnchor) seed = this.seedFromResults();
    const { cand, need } = this.expand(seed);
    this.lastCand = cand;
    if (need) return need;
    // 3. Filters on attributes and types need each candidate's page (compact: types are taken on trust
    //    from the relation that led to the candidate; the lenient pass of `solve` accepts them unread).
    const needsPage = (f: QueryFilter): boolean => f.attr !== 'name' && !(this.opts.compact && f.attr === 'type');
    for (const v of new Set(q.filters.filter(needsPage).map((f) => f.var))) {
      const keys = cand.get(v) ?? [];
      const vars = [v];
      const n = this.ensureRead(keys, vars, 'to check the conditions on them');
      if (n) return n;
    }
    return this.answer('solved', cand);
  }

  private answer(why: 'solved' | 'budget', cand?: Map<string, string[]>): Decision {
    const c = cand ?? this.lastCand;
    const pick = this.solve(c);
    const answer = pick ? this.name(pick) : 'unknown';
    return {
      think: why === 'solved' ? `All conditions checked; ${answer} fits.` : `Out of budget; best guess ${answer}.`,
      action: { name: 'answer', arguments: { answer } },
    };
  }

  /** Backtracking over the candidates: strict first (unknown facts fail), then lenient (unknown passes). */
  solve(cand: Map<string, string[]>): string | null {
    const q = this.task.query;
    const vars = [q.answer, ...[...cand.keys()].filter((v) => v !== q.answer)];
    for (const strict of [true, false]) {
      const found = this.solutions(vars, cand, strict);
      if (found.length) return found[0]!;
    }
    const any = cand.get(q.answer);
    return any && any.length ? any[0]! : null;
  }

  private solutions(vars: string[], cand: Map<string, string[]>, strict: boolean): string[] {
    const q = this.task.query;
    const answers: string[] = [];
    const binding = new Map<string, string>();
    const value = (x: string): string | undefined => (isVar(x) ? binding.get(x) : this.constKey(x));
    const ok = (v: string): boolean => {
      const key = binding.get(v)!;
      for (const [other, k] of binding) if (other !== v && k === key) return false; // distinct variables
      const e = this.notes.entities.get(key);
      for (const f of q.filters) {
        if (f.var !== v) continue;
        const t = e ? checkFilter(e, f) : null;
        if (t === false || (t === null && strict)) return false;
      }
      for (const p of q.patterns) {
        if (p.s !== v && p.o !== v) continue;
        const s = value(p.s);
        const o = value(p.o);
        if (s === undefined || o === undefined) continue;
        // Lenient pass: a link between two variables may simply not have been shown in an extract.
        if (!strict && isVar(p.s) && isVar(p.o)) continue;
        if (!this.notes.hasEdge(s, p.rel, o)) return false;
      }
      return true;
    };
    const rec = (i: number): void => {
      if (answers.length >= 4) return;
      if (i === vars.length) {
        const a = binding.get(q.answer);
        if (a && !answers.includes(a)) answers.push(a);
        return;
      }
      const v = vars[i]!;
      const dom = cand.get(v);
      if (!dom || dom.length === 0) {
        if (v === q.answer) return;
        rec(i + 1); // a variable nothing was learned about stays unbound (its patterns are skipped)
        return;
      }
      for (const k of this.shuffled([...dom])) {
        binding.set(v, k);
        if (ok(v)) rec(i + 1);
        binding.delete(v);
      }
    };
    rec(0);
    return answers;
  }
}

/** The expert as a Policy for one QA; the text it writes is always well-formed ReAct. */
export function createExpert(task: ExpertTask, opts: Partial<ExpertOptions> = {}): Policy {
  const solver = new ExpertSolver(task, opts);
  return {
    name: 'oracle',
    async generate(context: string, _opts: GenerateOptions): Promise<string> {
      const obs = lastObservation(context);
      const force = obs !== null && obs.includes('Do not call any more tools');
      const d = solver.next(obs, force);
      return `<think>\n${d.think}\n</think>\n${renderAction(d.action)}`;
    },
  };
}

// ---------- reasoning reconstruction ----------

export interface ReconstructInput {
  question: string;
  history: readonly AgentStep[]; // steps before t, with their (reconstructed) thoughts
  action: ToolAction;
  observation: string | undefined;
  rng?: Rng;
}

export type Reconstructor = (input: ReconstructInput) => Promise<string>;

function pick<T>(rng: Rng | undefined, items: readonly T[], salt: number): T {
  return rng ? rng.pick(items) : items[salt % items.length]!;
}

function titlesIn(obs: string | undefined): string[] {
  if (!obs) return [];
  const out: string[] = [];
  for (const m of obs.matchAll(/^\d+\. \[(.*)\]\(\S+\)$/gm)) if (!out.includes(m[1]!)) out.push(m[1]!);
  return out;
}

function list(xs: readonly string[]): string {
  if (xs.length <= 1) return xs[0] ?? '';
  return `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}

/**
 * The rule-based reconstructor: a short thought justifying a_t from the history. It uses the previous
 * observation (titles that motivate a visit) but never states facts that only o_t reveals, so a model
 * trained on it does not learn to predict observations.
 */
export function ruleThought(input: ReconstructInput): string {
  const { action, history, rng } = input;
  const t = history.length;
  const prev = history[t - 1];
  if (action.name === 'search') {
    const qs = (action.arguments.query as string[] | undefined) ?? [];
    const quoted = list(qs.map((q) => `"${q.length > 60 ? `${q.slice(0, 57)}…` : q}"`));
    // Only short, capitalised queries found in the question are names it gives; the question's own words or
    // type words ("language family") searched for lack of a name are not, and the thought must not claim so.
    const isGivenName = (q: string): boolean => q.split(/\s+/).length <= 6 && /^\p{Lu}/u.test(q) && input.question.toLowerCase().includes(q.toLowerCase());
    if (t === 0 && qs.length > 0 && qs.every(isGivenName)) {
      return pick(rng, [
        `The question names ${quoted} outright, so that is the firmest starting point: find its page and what links to it.`,
        `Of all the clues, ${quoted} is the one concrete name. I'll search for it first.`,
      ], t);
    }
    if (t === 0) {
      return pick(rng, [
        `The question describes its target only through linked clues, so I need a starting point. Searching for ${quoted} should surface candidate pages.`,
        `Nothing here can be answered from memory with confidence; I'll begin by searching ${quoted} and see which entities come up.`,
        `First I need concrete pages to work from. Let me search ${quoted}.`,
      ], t);
    }
    const noPage = prev?.observation?.includes('could not be accessed') ? 'That page was not available. ' : '';
    return noPage + pick(rng, [
      `To follow the next clue I'll search ${quoted}.`,
      `This link is still open. A search for ${quoted} should reveal the connected entities.`,
      `Next I need pages for ${quoted}; a search gives their addresses and a first snippet.`,
      `Let me search ${quoted} to widen the set of candidates.`,
      `I'll query ${quoted} and compare what comes back with the clues.`,
    ], t);
  }
  if (action.name === 'visit') {
    const urls = (action.arguments.url as string[] | undefined) ?? [];
    const goal = String(action.arguments.goal ?? '');
    const titles = titlesIn(prev?.observation).slice(0, 3);
    const from = prev?.action.name === 'search' && titles.length ? `The results mention ${list(titles)}. ` : '';
    // The goal's items as short terms ("has official language", "longitude"), not the goal verbatim.
    const items = (goal.split(/: |find |for /).pop() ?? '').replace(/\.$/, '').split(/, | and /).map((x) =>
      x.replace(/^what kind of entity it is$/, 'type').replace(/^(what it |what |its )/, '').replace(/ it$/, '').trim(),
    ).filter(Boolean);
    const terms = list(rng ? rng.shuffle([...items]) : items) || 'the details';
    const pages = urls.length > 1 ? `these ${urls.length} pages` : 'this page';
    if (t === 0) return `The question is anchored on a specific entity, so its page is the natural starting point; I want its ${terms}.`;
    return from + pick(rng, [
      `Reading ${pages} should settle the ${terms}.`,
      `I'll open ${pages}; snippets alone cannot verify ${terms}.`,
      `Next, ${pages}: I need to check ${terms}.`,
      `Visiting ${pages} to confirm ${terms}.`,
      `The conditions involve ${terms}, so I'll read ${pages}.`,
    ], t);
  }
  if (action.name === 'answer') {
    const a = String(action.arguments.answer ?? '');
    return pick(rng, [
      `Cross-checking what the pages said against every condition in the question, ${a} is the one entity that fits them all.`,
      `The evidence collected connects all the clues, and only ${a} satisfies each constraint. I'm confident in this answer.`,
      `Every clue now points the same way: ${a}.`,
    ], t);
  }
  return 'I will continue with the next step.';
}

export const ruleReconstructor: Reconstructor = async (input) => ruleThought(input);

/**
 * The terse reconstructor, for small policies trained from scratch: a few words naming the step (what is
 * searched, how many pages are read, the answer), with no varied phrasing to imitate. The same rule as
 * ruleThought: nothing that only the step's own result reveals.
 */
export function terseThought(input: ReconstructInput, opts: { citeGoal?: boolean } = {}): string {
  const { action } = input;
  if (action.name === 'search') {
    const qs = (action.arguments.query as string[] | undefined) ?? [];
    // The no-anchor opening searches the question itself: naming it again would double a long span.
    const named = qs.filter((q) => q.length <= 60);
    return named.length === qs.length && named.length > 0 ? `Search ${list(named.map((q) => `"${q}"`))}.` : 'Search the description.';
  }
  if (action.name === 'visit') {
    const n = ((action.arguments.url as string[] | undefined) ?? []).length;
    return n > 1 ? `Read these ${n} pages.` : 'Read this page.';
  }
  // A fixed first word: the decision to answer is one likely token, not spread over every entity name.
  if (action.name === 'answer') {
    const answer = String(action.arguments.answer ?? '');
    const goal = opts.citeGoal ? answeredGoal(input.history, answer) : undefined;
    return goal ? `Answer (${goal}): ${answer}.` : `Answer: ${answer}.`;
  }
  return 'Next step.';
}

/**
 * The part of the last visit's goal that the answer fills: `what it <rel>` when an evidence line reads
 * "<page> <rel> <answer>.", `what <rel> it` when it reads "<answer> <rel> <page>.". Restated right before the
 * answer, it says which side of the line to copy: the entity after the relation phrase, or the one before it.
 * Undefined when the answer did not come from a visit, or no part of its goal names the answer's slot (the
 * visit checked a candidate, and the answer is the page itself).
 */
export function answeredGoal(history: readonly AgentStep[], answer: string): string | undefined {
  const last = history.at(-1);
  const goal = last?.action.name === 'visit' ? last.action.arguments.goal : undefined;
  if (typeof goal !== 'string' || answer.length === 0) return undefined;
  const lines = (last?.observation ?? '').split('\n').map((l) => l.trim());
  for (const part of goal.split(/, | and /)) {
    const object = /^what it (.+)$/.exec(part)?.[1];
    if (object && lines.some((l) => l.endsWith(` ${object} ${answer}.`))) return part;
    const subject = /^what (.+) it$/.exec(part)?.[1];
    if (subject && lines.some((l) => l.startsWith(`${answer} ${subject} `))) return part;
  }
  return undefined;
}

export const terseReconstructor: Reconstructor = async (input) => terseThought(input);
/** The terse reconstructor whose answer thought restates the goal of the page it answers from (rft style `cited`). */
export const citedReconstructor: Reconstructor = async (input) => terseThought(input, { citeGoal: true });

/** Chat function used by the LLM reconstructor (see tools.ts `chatFn`). */
export type ChatFn = (messages: { role: 'system' | 'user' | 'assistant'; content: string }[]) => Promise<string>;

/** The LLM reconstructor: an instruction model writes the thought (WebSailor 3.2), pi*(tau | H, a, o). */
export function llmReconstructor(chat: ChatFn, fallback: Reconstructor = ruleReconstructor): Reconstructor {
  return async (input) => {
    const hist = input.history
      .map((s, i) => `Step ${i + 1}: thought: ${s.think}\naction: ${JSON.stringify(s.action)}\nobservation: ${(s.observation ?? '').slice(0, 600)}`)
      .join('\n\n');
    const prompt = [
      `Question: ${input.question}`,
      hist ? `History:\n${hist}` : 'History: (none yet)',
      `Next action: ${JSON.stringify(input.action)}`,
      `Its result: ${(input.observation ?? '(final answer)').slice(0, 1200)}`,
      'Write the short thought (1-3 sentences) that the agent had just before taking the next action, justifying it from the history. Do not state facts that only the result reveals. Reply with the thought only.',
    ].join('\n\n');
    try {
      const text = (await chat([{ role: 'user', content: prompt }])).trim();
      return text || (await fallback(input));
    } catch {
      return fallback(input); // the reconstruction must not fail a whole rollout
    }
  };
}

/** Replaces every thought of a trajectory by a reconstructed one; actions and observations are kept. */
export async function reconstructTrajectory(
  traj: Trajectory,
  question: string,
  reconstruct: Reconstructor,
  rng?: Rng,
): Promise<Trajectory> {
  const steps: AgentStep[] = [];
  for (const s of traj.steps as AgentStep[]) {
    const think = await reconstruct({ question, history: steps, action: s.action, observation: s.observation, rng });
    const { raw: _raw, ...rest } = s; // a rewritten thought invalidates any raw text
    steps.push({ ...rest, think });
  }
  return { ...traj, steps };
}
