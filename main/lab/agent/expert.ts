// The expert (see docs/pipeline.md, 'RFT cold start'): a solver that plans from the QA's formal `query` but learns
// every fact from real search/visit observations. It is a Policy: each turn it reads the latest
// <tool_response> out of the context, adds what it can parse to its notes (expert-notes.ts), and picks the
// next action. It never sees the answer (its input type has no answer field) and it is deliberately
// imperfect: it only knows what the search ranking and the goal-focused page extracts happened to show it.
// When RFT data is written, its thoughts are replaced by reasoning reconstruction (thoughts.ts).
import type { Query, QueryFilter, QueryPattern, ToolAction } from '../formats/index';
import type { Rng } from '../util/rng';
import { checkFilter, keyOf, lastObservation, Notes, readSearch, readVisit, type Entity } from './expert-notes';
import { renderAction } from './react';
import type { GenerateOptions, Policy } from './runtime';
import { labelWords } from './text';
import { phraseList, pickPhrase } from './thoughts';
import { OBSERVATION_SEPARATOR, URL_SCHEME, relationPhrase } from './web';

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
  /**
   * A forced answer (budget spent) from the candidates of everything read, the last observation included; without
   * it, from those of the last plan, made before that observation. Relabeling sets it (expert-label.ts): a state it
   * labels has no earlier plan of the expert's.
   */
  freshForcedAnswer?: boolean;
}

export const EXPERT_DEFAULTS: ExpertOptions = { maxCalls: 24, maxUrlsPerVisit: 5, maxQueriesPerSearch: 5, maxCandidates: 12 };

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
    const forced = forceAnswer || this.calls >= this.opts.maxCalls;
    const d = forced ? this.answer('budget', this.opts.freshForcedAnswer ? this.candidatesNow() : undefined) : this.plan();
    if (d.action.name !== 'answer') this.calls++;
    this.last = d.action;
    return d;
  }

  /**
   * Takes a turn someone else played (the agent's, for relabeling: expert-label.ts) as if the expert had: its
   * queries and URLs count as issued, a visit's goal as asked for what it names, and its observation is read.
   * The next `next(null)` then plans from the state that turn left.
   */
  follow(action: ToolAction, observation: string | undefined): void {
    if (action.name !== 'search' && action.name !== 'visit') return; // answers end an episode; format errors run nothing
    const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
    if (action.name === 'search') {
      const queries = list(action.arguments.query);
      for (const q of queries) {
        this.searched.add(q);
        this.nameSearched.add(keyOf(q)); // a name searched once is not searched again
      }
      // A question that names no entity opens with a search read for candidates, whoever issued it.
      if (this.constants.length === 0) this.fallbackDone = true;
    } else {
      const goal = String(action.arguments.goal ?? '');
      const asked = (marks: string[]): void => {
        for (const u of list(action.arguments.url)) {
          this.visitedUrls.add(u);
          const set = this.asked.get(u) ?? new Set<string>();
          for (const m of marks) set.add(m);
          this.asked.set(u, set);
        }
      };
      const q = this.task.query;
      const marks = this.attrs.map(labelWords).filter((a) => goal.includes(`its ${a}`));
      for (const p of q.patterns) {
        if (goal.includes(`what it ${relationPhrase(p.rel)}`)) marks.push(`>${p.rel}`);
        if (goal.includes(`what ${relationPhrase(p.rel)} it`)) marks.push(`<${p.rel}`);
      }
      asked(marks);
    }
    this.calls++;
    this.last = action;
    if (observation !== undefined) this.read(action, observation);
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
    const what = phraseList(this.shuffled([...new Set(parts)])) || 'what the page says';
    if (this.opts.compact) return what;
    const r = this.opts.rng;
    // Several pages share one goal; their names would match every sentence and crowd out the facts.
    if (keys.length === 1) {
      const name = this.name(keys[0]!);
      return pickPhrase(r, [`Find out about ${name}: ${what}.`, `For ${name}, look for ${what}.`, `On the page of ${name}, find ${what}.`], this.calls);
    }
    return pickPhrase(r, [`For each page, find ${what}.`, `On each page, look for ${what}.`, `Check on every page ${what}.`], this.calls);
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

  /** The candidates of what has been read so far (no action taken: the episode ends with the answer). */
  private candidatesNow(): Map<string, string[]> {
    const anyAnchor = this.constants.some((id) => this.constKey(id));
    return this.expand(anyAnchor ? undefined : this.seedFromResults()).cand;
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
