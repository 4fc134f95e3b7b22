// Runs' held-out evaluations on chained questions, paired question by question (issue 42): for each `RUN:STEP`, the
// evaluation the run wrote at that step (runs/<id>/evals/step-N.jsonl, greedy), split into two-hop chains (hops >= 2)
// and the other questions; pass@1 with its Wilson 95% interval, the exact McNemar test against the first, and where
// each one's chained misses broke (train/policy/chain.ts classifyChain).
// Run: npx tsx bench/research/chain-compare.ts --home DIR --dataset held.jsonl RUN_A:STEP RUN_B:STEP ...
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { QA, Trajectory } from '../../main/lab/formats';
import type { AgentStep } from '../../main/lab/agent/react';
import { readTrajectories } from '../../main/lab/agent/data';
import { readJsonFile } from '../../main/lab/store/files';
import { readGraphFile } from '../../main/lab/kg/io';
import { readDataset } from '../../main/lab/synth/dataset';
import { Tokenizer } from '../../main/lab/model/tokenizer';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import { levelOfQuestion } from '../../main/lab/contract/level-breakdown';
import { formatP, mcnemarExactP, wilsonInterval } from '../../main/lab/contract/stats';
import { isCorrect } from '../../main/lab/contract/correct';
import { dataDir, evalFile, runFile } from '../../main/lab/runs/layout';
import { policyPrompt, TURN_TOKENS } from '../../main/lab/train/policy/policy';
import { bridgeIds, CHAIN_OUTCOMES, classifyChain, type ChainOutcome } from '../../main/lab/train/policy/chain';

const { values, positionals } = parseArgs({ options: { home: { type: 'string' }, dataset: { type: 'string' }, block: { type: 'string', default: '256' } }, allowPositionals: true });
if (!values.home || !values.dataset || positionals.length === 0) throw new Error('usage: bench/research/chain-compare.ts --home DIR --dataset held.jsonl RUN:STEP ...');
const home = values.home;
const qas: QA[] = readDataset(values.dataset).qas;
const qaOf = new Map(qas.map((q) => [q.id, q]));
const chained = (q: QA): boolean => levelOfQuestion(q).hops >= 2;

interface Scored { name: string; correct: Map<string, boolean>; outcomes: Record<ChainOutcome, number> }

function scored(spec: string): Scored {
  const [runId, step] = spec.split(':') as [string, string];
  const config = parseRunConfig((readJsonFile(runFile(home, runId)) as { config: unknown }).config);
  const graph = readGraphFile(join(home, 'graphs', `${config.data.graphId}.json`));
  const names = new Map(graph.nodes.map((n) => [n.id, n.name]));
  const tok = Tokenizer.fromJSON(readJsonFile(join(dataDir(home, runId), 'tokenizer.json')));
  const trajs: Trajectory[] = readTrajectories(evalFile(home, runId, Number(step)));
  const correct = new Map<string, boolean>();
  const outcomes = Object.fromEntries(CHAIN_OUTCOMES.map((o) => [o, 0])) as Record<ChainOutcome, number>;
  for (const t of trajs) {
    const qa = qaOf.get(t.qa_id);
    if (!qa || correct.has(qa.id)) continue;
    correct.set(qa.id, isCorrect(t.reward));
    if (!chained(qa)) continue;
    const st = t.steps as AgentStep[];
    const windows = st.map((_, i) => tok.decode(policyPrompt(tok, qa.question, st.slice(0, i), Number(values.block), TURN_TOKENS)));
    outcomes[classifyChain({ steps: st, windows, bridges: bridgeIds(qa).map((id) => names.get(id) ?? id), correct: isCorrect(t.reward), prediction: t.prediction })]++;
  }
  return { name: spec, correct, outcomes };
}

const runs = positionals.map(scored);
const base = runs[0]!;
const groups: [string, (q: QA) => boolean][] = [['all', () => true], ['two-hop chains', chained], ['other two-edge', (q) => !chained(q)]];
for (const [label, keep] of groups) {
  console.log(`\n${label}`);
  console.log('| run | n | pass@1 | Wilson 95% | only first | only this | McNemar p |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of runs) {
    const ids = [...r.correct.keys()].filter((id) => keep(qaOf.get(id)!) && base.correct.has(id));
    const s = ids.filter((id) => r.correct.get(id)).length;
    const [lo, hi] = wilsonInterval(s, ids.length);
    const onlyA = ids.filter((id) => base.correct.get(id) && !r.correct.get(id)).length;
    const onlyThis = ids.filter((id) => !base.correct.get(id) && r.correct.get(id)).length;
    console.log(`| ${r.name} | ${ids.length} | ${(s / Math.max(1, ids.length)).toFixed(3)} | ${lo.toFixed(2)}–${hi.toFixed(2)} | ${onlyA} | ${onlyThis} | ${r === base ? '—' : formatP(mcnemarExactP(onlyA, onlyThis))} |`);
  }
}
console.log('\nchained questions, where they broke');
for (const r of runs) console.log(`${r.name}: ${CHAIN_OUTCOMES.map((o) => `${o} ${r.outcomes[o]}`).join(', ')}`);
