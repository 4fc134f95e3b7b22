// Runs' held-out evaluations side by side, paired question by question: greedy pass@1 with its Wilson 95%
// interval on every question and on the two-hop chains (contract/level-breakdown.ts questionHops), and the exact
// McNemar test of each row against the first (and against `--vs`, a second reference row), and where each row's
// missed chains broke (train/policy/chain.ts classifyChain, on the windows the policy read). Reads the
// evaluations the runs already made (runs/<id>/evals/step-N.jsonl), so it costs no rollout; every row must have
// evaluated the same held-out file with the same seed (the runs' held-out set and rng).
// A row may also be a `sailor eval --out` file of the same questions (NAME=path.jsonl); the first row must be RUN/STEP.
// Run: npx tsx bench/research/paired-evals.ts --home DIR --dataset held.jsonl --rows NAME=RUN/STEP,NAME=RUN/STEP,... [--vs NAME]
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { evalFile } from '../../main/lab/runs/layout';
import { readDataset } from '../../main/lab/synth/dataset';
import { questionHops } from '../../main/lab/contract/level-breakdown';
import { formatP, mcnemarExactP, wilsonInterval } from '../../main/lab/contract/stats';
import { isCorrect } from '../../main/lab/contract/correct';
import { join } from 'node:path';
import type { AgentStep } from '../../main/lab/agent/react';
import { readJsonFile } from '../../main/lab/store/files';
import { readGraphFile } from '../../main/lab/kg/io';
import { Tokenizer } from '../../main/lab/model/tokenizer';
import { readCheckpointManifest } from '../../main/lab/model/checkpoint';
import { checkpointDir, dataDir, runFile } from '../../main/lab/runs/layout';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import { policyPrompt, TURN_TOKENS } from '../../main/lab/train/policy/policy';
import { bridgeIds, CHAIN_OUTCOMES, classifyChain, type ChainOutcome } from '../../main/lab/train/policy/chain';

const { values } = parseArgs({ options: { home: { type: 'string' }, dataset: { type: 'string' }, rows: { type: 'string' }, vs: { type: 'string' } } });
if (!values.home || !values.dataset || !values.rows) throw new Error('usage: bench/research/paired-evals.ts --home DIR --dataset held.jsonl --rows NAME=RUN/STEP,... [--vs NAME]');
const home = values.home;
const qas = readDataset(values.dataset).qas;
const hops = new Map(qas.map((q) => [q.id, questionHops(q.query)]));

interface EvalTraj {
  qa_id: string;
  reward: { answer: number };
  steps: AgentStep[];
  prediction: string | null;
}

/** The first sample of each question of a run's evaluation at a step (RUN/STEP), or of a `sailor eval --out` file (*.jsonl). */
function episodes(ref: string): Map<string, EvalTraj> {
  const [run, step] = ref.split('/') as [string, string];
  const file = ref.endsWith('.jsonl') ? ref : evalFile(home, run, Number(step));
  const lines = readFileSync(file, 'utf8').trim().split('\n').slice(1);
  const out = new Map<string, EvalTraj>();
  for (const l of lines) {
    const t = JSON.parse(l) as EvalTraj;
    if (!out.has(t.qa_id)) out.set(t.qa_id, t);
  }
  return out;
}

const rows = values.rows.split(',').map((r) => {
  const [name, ref] = r.split('=') as [string, string];
  const eps = episodes(ref);
  return { name, ref, eps, solved: new Map([...eps].map(([id, t]) => [id, isCorrect(t.reward)])) };
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

// Where the missed chains broke, each row's greedy episodes (the windows rebuilt with its own run's tokenizer
// and context length; a `sailor eval --out` row takes the first row's).
const [run0] = rows[0]!.ref.split('/') as [string, string];
const config = parseRunConfig((readJsonFile(runFile(home, run0)) as { config: unknown }).config);
const names = new Map(readGraphFile(join(home, 'graphs', `${config.data.graphId}.json`)).nodes.map((n) => [n.id, n.name]));
function viewOf(ref: string): { tok: Tokenizer; blockSize: number } {
  const [run, step] = (ref.endsWith('.jsonl') ? rows[0]!.ref : ref).split('/') as [string, string];
  return { tok: Tokenizer.fromJSON(readJsonFile(join(dataDir(home, run), 'tokenizer.json'))), blockSize: readCheckpointManifest(checkpointDir(home, run, Number(step))).model.blockSize };
}
const chains = qas.filter((q) => hops.get(q.id) === 2);
console.log(`\nwhere the two-hop chains broke (greedy)\n| row | ${CHAIN_OUTCOMES.join(' | ')} |\n|---|${CHAIN_OUTCOMES.map(() => '---|').join('')}`);
for (const r of rows) {
  const tally = Object.fromEntries(CHAIN_OUTCOMES.map((o) => [o, 0])) as Record<ChainOutcome, number>;
  const { tok, blockSize } = viewOf(r.ref);
  for (const qa of chains) {
    const t = r.eps.get(qa.id);
    if (!t) continue;
    const windows = t.steps.map((_, i) => tok.decode(policyPrompt(tok, qa.question, t.steps.slice(0, i), blockSize, TURN_TOKENS)));
    tally[classifyChain({ steps: t.steps, windows, bridges: bridgeIds(qa).map((id) => names.get(id) ?? id), correct: isCorrect(t.reward), prediction: t.prediction })]++;
  }
  console.log(`| ${r.name} | ${CHAIN_OUTCOMES.map((o) => tally[o]).join(' | ')} |`);
}
