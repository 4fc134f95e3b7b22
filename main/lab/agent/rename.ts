// Renamed worlds (issue #41): the same graph with its entities' names replaced, so that an episode played on it
// can only be solved by copying names from the context. Chan et al. 2022 (arXiv 2205.05055): in-context copying
// emerges when items are rare and bursty; a fixed web whose names recur in every episode teaches memorising.
// Every node gets a new name: another real name of the same type (the graph's names shuffled within a type) or a
// generated one (its rare words replaced by pronounceable made-up words, its common words such as "Airport" or
// "River" kept, so the name still says what it is). The web is then rendered from the renamed graph, so
// questions, search results, pages, URLs, thoughts and answers agree. Names in `protectedNames` (the held-out
// questions' entities) are never given to any node, and every node is renamed, so they appear nowhere.
import type { Graph, GraphNode, QA } from '../formats/index';
import type { Rng } from '../util/rng';

export interface RenameOptions {
  /** The share of nodes given a generated name; the others get another real name of their type. */
  generated: number;
  /** Names never given to a node (compared case-insensitively). */
  protectedNames?: ReadonlySet<string>;
  /** Words kept as they are in generated names; by default those in at least 15 names of the graph. */
  keepWords?: ReadonlySet<string>;
}

export interface RenamedWorld {
  graph: Graph;
  /** Node id -> its name in the renamed world. */
  names: Map<string, string>;
}

const CONSONANTS = 'bcdfghklmnprstvz';
const VOWELS = 'aeiou';

/** A pronounceable made-up word of about `length` letters (at least 3), capitalised like `like`. */
export function madeUpWord(length: number, rng: Rng, like = 'A'): string {
  const n = Math.max(3, length);
  let w = '';
  let vowel = rng.next() < 0.3;
  while (w.length < n) {
    w += (vowel ? VOWELS : CONSONANTS)[rng.int(vowel ? VOWELS.length : CONSONANTS.length)];
    vowel = !vowel;
  }
  return /^[A-Z]/.test(like) ? w[0]!.toUpperCase() + w.slice(1) : w;
}

/** The words (runs of letters) that occur in at least `min` distinct names: the type words of names. */
export function commonNameWords(names: readonly string[], min = 15): Set<string> {
  const count = new Map<string, number>();
  for (const name of names) for (const w of new Set(name.match(/\p{L}+/gu) ?? [])) count.set(w, (count.get(w) ?? 0) + 1);
  return new Set([...count].filter(([, c]) => c >= min).map(([w]) => w));
}

/**
 * A generated name in the shape of `name`: each run of letters that is not in `keep` becomes a made-up word of
 * its length; kept words, spaces, punctuation and digits stay ("Maribor Airport" -> "Kelonat Airport",
 * "Europe/Tallinn" -> "Utoka/Vemiral"). A name with nothing to replace gets a made-up word in front.
 */
export function generatedName(name: string, keep: ReadonlySet<string>, rng: Rng): string {
  let changed = false;
  const out = name.replace(/\p{L}+/gu, (word) => {
    if (keep.has(word)) return word;
    changed = true;
    return madeUpWord(word.length, rng, word);
  });
  return changed ? out : `${madeUpWord(6, rng)} ${name}`;
}

/**
 * The graph with every node renamed (aliases dropped: they would spell the old name). Names stay unique
 * (case-insensitively) and none is in `protectedNames`. Deterministic in `rng`.
 */
export function renameGraph(graph: Graph, rng: Rng, opts: RenameOptions): RenamedWorld {
  if (!(opts.generated >= 0 && opts.generated <= 1)) throw new RangeError(`generated must be in [0, 1], got ${opts.generated}`);
  const blocked = new Set([...(opts.protectedNames ?? [])].map((n) => n.toLowerCase()));
  const keep = opts.keepWords ?? commonNameWords(graph.nodes.map((n) => n.name));
  const byType = new Map<string, string[]>();
  for (const n of graph.nodes) if (!blocked.has(n.name.toLowerCase())) (byType.get(n.type) ?? byType.set(n.type, []).get(n.type)!).push(n.name);
  for (const pool of byType.values()) rng.shuffle(pool);
  const used = new Set<string>();
  const take = (name: string): boolean => {
    const key = name.toLowerCase();
    if (used.has(key) || blocked.has(key) || !name.trim()) return false;
    used.add(key);
    return true;
  };
  const names = new Map<string, string>();
  for (const n of graph.nodes) {
    let name: string | undefined;
    if (rng.next() >= opts.generated) {
      const pool = byType.get(n.type) ?? [];
      // Another real name of the type (its own only when nothing else is left), unused so far.
      while (pool.length > 0 && name === undefined) {
        const cand = pool.pop()!;
        if (cand !== n.name && take(cand)) name = cand;
      }
    }
    for (let tries = 0; name === undefined; tries++) {
      const cand = generatedName(n.name, tries < 8 ? keep : new Set<string>(), rng);
      if (take(cand)) name = cand;
    }
    names.set(n.id, name);
  }
  const nodes: GraphNode[] = graph.nodes.map((n) => ({ ...n, name: names.get(n.id)!, aliases: [] }));
  return { graph: { ...graph, nodes }, names };
}

/** `text` with each whole-word occurrence of a key of `map` replaced by its value, longest keys first. */
export function replaceNames(text: string, map: ReadonlyMap<string, string>): string {
  const keys = [...map.keys()].filter(Boolean).sort((a, b) => b.length - a.length);
  if (keys.length === 0) return text;
  const escaped = keys.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join('|')})(?![\\p{L}\\p{N}])`, 'gu');
  return text.replace(re, (m) => map.get(m) ?? m);
}

/**
 * The question in the renamed world: its entities' names (the subgraph's nodes and the query's anchors) replaced in the question, the
 * answer the answer node's new name, no aliases; the id gets `suffix`. Null when the question does not spell
 * every named node of its query by its name (an alias, say): it could not be renamed consistently.
 */
export function renameQa(qa: QA, original: ReadonlyMap<string, string>, renamed: ReadonlyMap<string, string>, suffix: string): QA | null {
  const answer = renamed.get(qa.answer_id);
  if (answer === undefined) return null;
  const map = new Map<string, string>();
  const anchors = qa.query.patterns.flatMap((p) => [p.s, p.o]).filter((t) => !t.startsWith('?'));
  for (const id of new Set([...qa.subgraph.nodes, ...anchors])) {
    const from = original.get(id);
    const to = renamed.get(id);
    if (from !== undefined && to !== undefined && id !== qa.answer_id) map.set(from, to);
  }
  for (const id of anchors) {
    const from = original.get(id);
    if (from === undefined || !wholeWord(qa.question, from)) return null;
  }
  return { ...qa, id: `${qa.id}${suffix}`, question: replaceNames(qa.question, map), answer, aliases: [] };
}

function wholeWord(text: string, name: string): boolean {
  return replaceNames(text, new Map([[name, '\u0000']])) !== text;
}

/** Every name a question set's answers and query anchors go by: what renamed worlds must never hand out. */
export function questionNames(qas: readonly QA[], graph: Pick<Graph, 'nodes'>): Set<string> {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const out = new Set<string>();
  for (const qa of qas) {
    out.add(qa.answer);
    for (const a of qa.aliases ?? []) out.add(a);
    for (const id of qa.subgraph.nodes) {
      const n = byId.get(id);
      if (n) [n.name, ...n.aliases].forEach((x) => out.add(x));
    }
  }
  return out;
}
