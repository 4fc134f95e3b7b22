// Runs' held-out evaluations side by side, paired question by question: greedy pass@1 with its Wilson 95%
// interval on every question and on the two-hop chains (contract/level-breakdown.ts questionHops), and the exact
// McNemar test of each row against the first (and against `--vs`, a second reference row). Reads the
// evaluations the runs already made (runs/<id>/evals/step-N.jsonl), so it costs no rollout; every row must have
// evaluated the same held-out file with the same seed (the runs' held-out set and rng).
// Run: npx tsx bench/paired-evals.ts --home DIR --dataset held.jsonl --rows NAME=RUN/STEP,NAME=RUN/STEP,... [--vs NAME]
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { evalFile } from '../main/lab/runs/layout';
import { readDataset } from '../main/lab/synth/dataset';
import { questionHops } from '../main/lab/contract/level-breakdown';
import { formatP, mcnemarExactP, wilsonInterval } from '../main/lab/contract/stats';

const { values } = parseArgs({ options: { home: { type: 'string' }, dataset: { type: 'string' }, rows: { type: 'string' }, vs: { type: 'string' } } });
if (!values.home || !values.dataset || !values.rows) throw new Error('usage: bench/paired-evals.ts --home DIR --dataset held.jsonl --rows NAME=RUN/STEP,... [--vs NAME]');
const home = values.home;
const qas = readDataset(values.dataset).qas;
const hops = new Map(qas.map((q) => [q.id, questionHops(q.query)]));

/** Question id -> solved (the first sample of each question). */
function solved(ref: string): Map<string, boolean> {
  const [run, step] = ref.split('/') as [string, string];
  const lines = readFileSync(evalFile(home, run, Number(step)), 'utf8').trim().split('\n').slice(1);
  const out = new Map<string, boolean>();
  for (const l of lines) {
    const t = JSON.parse(l) as { qa_id: string; reward: { answer: number } };
    if (!out.has(t.qa_id)) out.set(t.qa_id, t.reward.answer >= 1);
  }
  return out;
}

const rows = values.rows.split(',').map((r) => {
  const [name, ref] = r.split('=') as [string, string];
  return { name, solved: solved(ref) };
});
const subsets: [string, (id: string) => boolean][] = [
  ['all', () => true],
  ['two-hop chains', (id) => hops.get(id) === 2],
];
const fmt = (s: number, n: number): string => {
  const [lo, hi] = wilsonInterval(s, n);
  return `${(s / n).toFixed(3)} (${lo.toFixed(2)}-${hi.toFixed(2)})`;
};
function versus(a: Map<string, boolean>, b: Map<string, boolean>, ids: string[]): string {
  let onlyA = 0;
  let onlyB = 0;
  for (const id of ids) {
    if (a.get(id) && !b.get(id)) onlyA++;
    if (!a.get(id) && b.get(id)) onlyB++;
  }
  return `${onlyA} / ${onlyB}, ${formatP(mcnemarExactP(onlyA, onlyB))}`;
}
const ref = rows[0]!;
const vs = values.vs ? rows.find((r) => r.name === values.vs) : undefined;
for (const [label, keep] of subsets) {
  const ids = qas.map((q) => q.id).filter((id) => keep(id) && ref.solved.has(id));
  console.log(`\n${label} (${ids.length} questions)`);
  console.log(`| row | pass@1 (95%) | only ${ref.name} / only this, McNemar |${vs ? ` only ${vs.name} / only this, McNemar |` : ''}`);
  console.log(`|---|---|---|${vs ? '---|' : ''}`);
  for (const r of rows) {
    const s = ids.filter((id) => r.solved.get(id)).length;
    console.log(`| ${r.name} | ${fmt(s, ids.length)} | ${r === ref ? '—' : versus(ref.solved, r.solved, ids)} |${vs ? ` ${r === vs ? '—' : versus(vs.solved, r.solved, ids)} |` : ''}`);
  }
}
