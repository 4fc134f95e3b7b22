// How a dataset's questions read (docs/pipeline.md, 'How the questions read'): mean / median / max length in
// words, questions with a number in scientific notation or with more than 3 significant digits (years aside),
// "an X that is an X" tautologies, sentences with more than two "that" clauses, and answer leaks. Several files
// print one row each; --json prints the reports. With --graph G (one graph for all files), it also counts the
// constraints that narrow nothing: filters (other than a variable's type) and patterns beyond the subgraph's edges
// whose removal leaves the answer the only candidate.
// Run: npx tsx bench/research/question-style.ts D1.jsonl [D2.jsonl ...] [--graph G.json] [--json] [--sample N --seed S]
import { parseArgs } from 'node:util';
import type { Graph, QA } from '../../main/lab/formats';
import { readGraphFile } from '../../main/lab/kg/io';
import { readDataset } from '../../main/lab/synth/dataset';
import { evaluateQuery } from '../../main/lab/synth/query';
import { buildQueryIndex } from '../../main/lab/synth/query-index';
import { styleReport } from '../../main/lab/synth/style';
import { createRng } from '../../main/lab/util/rng';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    json: { type: 'boolean', default: false },
    graph: { type: 'string' },
    sample: { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' },
  },
});
if (!positionals.length) {
  console.error('usage: bench/research/question-style.ts D1.jsonl [D2.jsonl ...] [--json] [--sample N --seed S]');
  process.exit(2);
}
const reports = positionals.map((file) => ({ file, qas: readDataset(file).qas }));
const all = reports.flatMap((r) => r.qas);
const rows = [...reports.map((r) => ({ file: r.file, report: styleReport(r.qas) })), ...(reports.length > 1 ? [{ file: 'all', report: styleReport(all) }] : [])];

/** Constraints of each QA (filters beyond types, patterns beyond the subgraph) and how many of them narrow nothing. */
function idleConstraints(graph: Graph, qas: QA[]): { constraints: number; idle: number } {
  const qindex = buildQueryIndex(graph);
  const edges = new Map(graph.edges.map((e) => [e.id, e]));
  let constraints = 0;
  let idle = 0;
  for (const qa of qas) {
    const q = qa.query;
    const sub = qa.subgraph.edges.map((id) => edges.get(id)!);
    const isConst = (t: string): boolean => !t.startsWith('?');
    const inSubgraph = (p: QA['query']['patterns'][number]): boolean =>
      sub.some((e) => e.relation === p.rel && (!isConst(p.s) || e.source === p.s) && (!isConst(p.o) || e.target === p.o));
    const drops = [
      ...q.filters.flatMap((f, i) => (f.attr === 'type' ? [] : [{ ...q, filters: q.filters.filter((_, j) => j !== i) }])),
      ...q.patterns.flatMap((p, i) => (inSubgraph(p) ? [] : [{ ...q, patterns: q.patterns.filter((_, j) => j !== i) }])),
    ];
    for (const drop of drops) {
      constraints++;
      if (evaluateQuery(qindex, drop, { maxSolutions: 1 }).candidates.length === 1) idle++;
    }
  }
  return { constraints, idle };
}
if (values.graph) {
  const graph = readGraphFile(values.graph);
  for (const r of reports) {
    const { constraints, idle } = idleConstraints(graph, r.qas);
    console.log(`${r.file}: ${constraints} constraints (${(constraints / r.qas.length).toFixed(2)} per question), ${idle} narrow nothing`);
  }
}
if (values.json) console.log(JSON.stringify(rows, null, 2));
else {
  console.log('file\tquestions\tmean\tmedian\tmax\tsci\t>3sig\ttautology\tthat>2\tleaks');
  for (const { file, report: r } of rows)
    console.log([file, r.questions, r.meanWords.toFixed(1), r.medianWords, r.maxWords, r.scientific, r.overPrecise, r.tautologies, r.thatChainsOver2, r.leaks].join('\t'));
}
// --sample N: N random questions (by id, so two datasets on the same seed can be set side by side)
const n = Number(values.sample);
if (n > 0) {
  const rng = createRng(Number(values.seed));
  const ids = rng.shuffle(all.map((q) => `${q.graph}\t${q.id}`)).slice(0, n);
  for (const key of ids) {
    const q = all.find((x) => `${x.graph}\t${x.id}` === key)!;
    console.log(`\n[${q.graph} ${q.id}] ${q.question}\n  -> ${q.answer}`);
  }
}
