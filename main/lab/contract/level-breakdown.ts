// Pass@1 broken down by how far a question's answer lies from what it names (hops) and by its obfuscation
// level (1-3), with the expert's pass@1 on the same questions beside each as the ceiling: the environment and
// the data allow that much. Shared by evaluation reports (main) and the dashboard and Compare (renderer).
// Pure, type imports only: the renderer bundles this file.
import type { Query } from '../formats/index';

/** What the breakdown needs of a question. */
export interface QuestionLevel {
  hops: number;
  level: number;
}

/** One group of questions: how many, the policy's pass@1 on them and the expert's (null when not measured). */
export interface LevelRow {
  key: number;
  questions: number;
  passAt1: number;
  expert: number | null;
}

export interface LevelBreakdown {
  hops: LevelRow[];
  level: LevelRow[];
}

const isVar = (x: string): boolean => x.startsWith('?');

/**
 * The hops of a question: how many lookups must be chained from what it names to reach the answer, i.e. the
 * shortest path, in query patterns (undirected), from the answer to the nearest named entity. A one-hop lookup
 * is 1 (also when it names a second entity further out, "State College is in the United States; which airport
 * serves it?"), a chain through one unnamed bridge entity 2. With nothing named, the farthest term; 0 for a
 * query without patterns (an imported question).
 */
export function questionHops(query: Pick<Query, 'answer' | 'patterns'>): number {
  const adj = new Map<string, string[]>();
  const link = (a: string, b: string): void => void (adj.get(a) ?? adj.set(a, []).get(a)!).push(b);
  for (const p of query.patterns) {
    link(p.s, p.o);
    link(p.o, p.s);
  }
  const dist = new Map<string, number>([[query.answer, 0]]);
  const queue = [query.answer];
  for (let i = 0; i < queue.length; i++) {
    for (const n of adj.get(queue[i]!) ?? []) {
      if (dist.has(n)) continue;
      dist.set(n, dist.get(queue[i]!)! + 1);
      queue.push(n);
    }
  }
  const named = [...dist].filter(([term]) => !isVar(term)).map(([, d]) => d);
  return named.length ? Math.min(...named) : Math.max(0, ...dist.values());
}

/** A QA's hops and level (anything with a query and a level: a QA, a dataset row). */
export function levelOfQuestion(qa: { level: number; query: Pick<Query, 'answer' | 'patterns'> }): QuestionLevel {
  return { hops: questionHops(qa.query), level: qa.level };
}

/** Per question, the share of its samples that were correct (pass@1 over samples), from (qa_id, correct) samples. */
export function questionScores(samples: ReadonlyArray<{ qa_id: string; correct: boolean }>): Map<string, number> {
  const tally = new Map<string, { c: number; n: number }>();
  for (const s of samples) {
    const t = tally.get(s.qa_id) ?? tally.set(s.qa_id, { c: 0, n: 0 }).get(s.qa_id)!;
    t.n++;
    if (s.correct) t.c++;
  }
  return new Map([...tally].map(([id, t]) => [id, t.c / t.n]));
}

function groupBy(scores: ReadonlyMap<string, number>, levels: ReadonlyMap<string, QuestionLevel>, by: keyof QuestionLevel, expert?: ReadonlyMap<string, number>): LevelRow[] {
  const groups = new Map<number, string[]>();
  for (const id of scores.keys()) {
    const l = levels.get(id);
    if (!l) continue; // a question whose dataset row is gone has no level
    (groups.get(l[by]) ?? groups.set(l[by], []).get(l[by])!).push(id);
  }
  const mean = (ids: string[], m: ReadonlyMap<string, number>): number => ids.reduce((a, id) => a + (m.get(id) ?? 0), 0) / ids.length;
  return [...groups].sort(([a], [b]) => a - b).map(([key, ids]) => {
    const known = expert ? ids.filter((id) => expert.has(id)) : [];
    return { key, questions: ids.length, passAt1: mean(ids, scores), expert: known.length ? mean(known, expert!) : null };
  });
}

/**
 * Pass@1 by hops and by level. `scores`: each question's pass@1 (questionScores); `levels`: each question's
 * hops and level; `expert`: the expert's pass@1 per question, when measured (its row's ceiling is over the
 * questions of that row it attempted). Questions without a level are left out; rows are sorted by key.
 */
export function levelBreakdown(
  scores: ReadonlyMap<string, number>,
  levels: ReadonlyMap<string, QuestionLevel>,
  expert?: ReadonlyMap<string, number>,
): LevelBreakdown {
  return { hops: groupBy(scores, levels, 'hops', expert), level: groupBy(scores, levels, 'level', expert) };
}

/**
 * Metric names of a breakdown, flat, for a run's metrics stream: `eval/pass@1_hops2`, `eval/pass@1_level3`, and
 * the expert's ceiling beside each where measured (`eval/pass@1_hops2_expert`).
 */
export function breakdownMetrics(b: LevelBreakdown, prefix = 'eval/pass@1'): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [by, rows] of [['hops', b.hops], ['level', b.level]] as const) {
    for (const r of rows) {
      out[`${prefix}_${by}${r.key}`] = r.passAt1;
      if (r.expert !== null) out[`${prefix}_${by}${r.key}_expert`] = r.expert;
    }
  }
  return out;
}

/**
 * The breakdown back from a run's metrics (breakdownMetrics' names, each metric's latest value), for the
 * dashboard; question counts are not in the metrics and read 0. Null when the run recorded none.
 */
export function breakdownFromMetrics(metrics: Readonly<Record<string, number>>, prefix = 'eval/pass@1'): LevelBreakdown | null {
  const out: LevelBreakdown = { hops: [], level: [] };
  const re = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}_(hops|level)(\\d+)$`);
  for (const [name, value] of Object.entries(metrics)) {
    const m = re.exec(name);
    if (!m) continue;
    const expert = metrics[`${name}_expert`];
    out[m[1] as 'hops' | 'level'].push({ key: Number(m[2]), questions: 0, passAt1: value, expert: expert ?? null });
  }
  if (!out.hops.length && !out.level.length) return null;
  out.hops.sort((a, b) => a.key - b.key);
  out.level.sort((a, b) => a.key - b.key);
  return out;
}

/**
 * One breakdown per checkpoint of a comparison, from its question-by-question results, the questions' levels and
 * the expert's per-question pass@1 (ComparisonView's `questions`, `questionLevels`, `expert`). Empty when the
 * comparison has no levels (its dataset is gone).
 */
export function comparisonBreakdowns(view: {
  questions: ReadonlyArray<{ qa_id: string; results: ReadonlyArray<{ correct: number; n: number }> }>;
  questionLevels?: Readonly<Record<string, QuestionLevel>>;
  expert?: Readonly<Record<string, number>>;
}): LevelBreakdown[] {
  if (!view.questionLevels || !Object.keys(view.questionLevels).length) return [];
  const levels = new Map(Object.entries(view.questionLevels));
  const expert = view.expert ? new Map(Object.entries(view.expert)) : undefined;
  const columns = Math.max(0, ...view.questions.map((q) => q.results.length));
  return Array.from({ length: columns }, (_, i) => {
    const scores = new Map(view.questions.filter((q) => (q.results[i]?.n ?? 0) > 0).map((q) => [q.qa_id, q.results[i]!.correct / q.results[i]!.n]));
    return levelBreakdown(scores, levels, expert);
  });
}
