// Published QA sets in and out (docs/formats.md, 'Published QA sets'): JSON Lines of `{question, answer, …}` as
// SailorFog-QA, WebDancer (`tag`) and WebShaper (`id`, `formalization`, `urls`) release them, read into a
// `sailor.qa/1` dataset and written back in the same shape.
//
// An imported QA has no graph query behind it: its `query` has no patterns, `source` is 'external' (so
// `sailor check` skips it with a message), and the fields other than question and answer are kept in
// `original`, so an export gives back the published line. The runtime evaluates such a QA like any other:
// the policy answers the question with the tool layer and the reward compares with answer and aliases.
import type { Graph, GraphNode, QA } from '../formats';
import { inputError } from '../base/errors';
import { isObj } from '../util/fields';
import { readJsonl } from '../store/files';

/** The published line: question and answer first, then whatever else it carried. */
export type PublishedQa = { question: string; answer: string } & Record<string, unknown>;

/** Reads a published QA file; errors name the file and line (`F.jsonl:3: question: expected a non-empty string`). */
export function readPublished(path: string): PublishedQa[] {
  const { records, tornTail } = readJsonl(path);
  if (tornTail) throw inputError(path, 'the last line is not valid JSON (cut short?)');
  if (records.length === 0) throw inputError(path, 'empty file, expected one {"question": …, "answer": …} JSON object per line');
  return records.map(({ line, value }) => {
    if (!isObj(value)) throw inputError(path, `expected a JSON object with "question" and "answer", got ${Array.isArray(value) ? 'an array' : typeof value}`, { line });
    const { question, answer } = value;
    if (typeof question !== 'string' || !question.trim()) throw inputError(path, 'expected a non-empty string', { line, field: 'question' });
    const answerText = typeof answer === 'number' ? String(answer) : answer;
    if (typeof answerText !== 'string' || !answerText.trim()) throw inputError(path, 'expected a non-empty string (or a number)', { line, field: 'answer' });
    return { ...value, question, answer: answerText };
  });
}

/** The graph node an answer names (by name or alias, ignoring case), when exactly one does. */
function nodeNamed(byName: Map<string, GraphNode[]>, answer: string): GraphNode | undefined {
  const hits = byName.get(answer.trim().toLowerCase());
  return hits?.length === 1 ? hits[0] : undefined;
}

/** Published lines as lab QAs (source 'external'); with a graph, an answer that names one node gets its id and aliases. */
export function importPublished(rows: readonly PublishedQa[], opts: { graph?: Graph; graphName?: string } = {}): QA[] {
  const byName = new Map<string, GraphNode[]>();
  for (const n of opts.graph?.nodes ?? [])
    for (const name of new Set([n.name, ...n.aliases].map((s) => s.trim().toLowerCase()))) byName.set(name, [...(byName.get(name) ?? []), n]);
  const seen = new Set<string>();
  return rows.map((row, i) => {
    const { question, answer, ...original } = row;
    const given = typeof row.id === 'string' && row.id && !seen.has(row.id) ? row.id : '';
    const id = given || `ext-${String(i + 1).padStart(6, '0')}`;
    seen.add(id);
    const node = opts.graph ? nodeNamed(byName, answer) : undefined;
    return {
      id,
      question,
      answer,
      answer_id: node?.id ?? `external:${id}`,
      aliases: node ? [node.name, ...node.aliases].filter((s) => s !== answer) : [],
      level: 2, // the level rule needs a graph query; published multi-hop sets sit at 2-3
      graph: opts.graphName ?? '',
      subgraph: { nodes: [], edges: [] },
      wl_hash: '',
      orbit: 0,
      topology: '',
      query: { answer: '?a', patterns: [], filters: [] },
      obfuscations: [],
      distractors: [],
      support: [],
      candidates: 1,
      source: 'external',
      ...(Object.keys(original).length ? { original } : {}),
    };
  });
}

/** A lab QA in the published shape (the fields all three samples share): `{question, answer}`, plus an imported QA's own fields back as they were. */
export function toPublished(qa: QA): PublishedQa {
  if (qa.source === 'external') return { question: qa.question, answer: qa.answer, ...(qa.original ?? {}) };
  return { question: qa.question, answer: qa.answer };
}
