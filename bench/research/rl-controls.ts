// RL against its honest controls (issue #31, docs/learning.md §4c), on one data directory made as
// docs/experiments.md "few" says (graph.json, train.jsonl = the demonstrated questions, held.jsonl, rl.jsonl =
// the answer-only questions). Every row is a real `sailor train` run in --home, every figure greedy pass@1 on
// the same held-out questions with `sailor eval`, so the rows pair question by question:
//   (a) SFT start            SFT on the demonstrations (configs/few-demos.json)
//   RL                       (a), then the RL stage on the answer-only questions (`--rl` JSON, default {})
//   (b) SFT continued        (a), then more SFT on the same demonstrations (`--continue-steps`, set it to the
//                            steps that take RL's wall time on your machine)
//   (d) SFT on every question demonstrations for the RL questions too, the same SFT steps as (a): the upper reference
//   (c) rejection fine-tuning (a), then SFT on its own correct samples of the RL questions at RL's rollout budget
//                            (expert iteration): `sailor eval` samples G rollouts of each of the first steps x
//                            batchQuestions RL questions at temperature 1 (the `--rl` section's, defaults 40 x 8,
//                            G 8), and a run from (a) with `data.trajectoriesFile` trains `--rft-steps` on the
//                            correct, well-formed ones (the RFT filters)
// Prints one table: pass@1, its Wilson 95% interval, and the exact McNemar test of each row against (a).
// Run: npx tsx bench/research/rl-controls.ts --data configs/data/few --home DIR [--sft RUN/STEP] [--rl-run RUN/STEP]
//      [--rows a,rl,b,c,d] [--sft-steps 1000] [--continue-steps 500] [--rft-steps 500] [--rft-lr 2e-4] [--rl '{}']
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatP, mcnemarExactP, wilsonInterval } from '../../main/lab/contract/stats';
import { isCorrect } from '../../main/lab/contract/correct';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    home: { type: 'string' },
    sft: { type: 'string' },
    'rl-run': { type: 'string' },
    rows: { type: 'string', default: 'a,rl,b,c,d' },
    'rft-steps': { type: 'string', default: '500' },
    /** Rejection fine-tuning's learning rate, constant (absent: SFT's default schedule, 2e-3 decaying to 2e-4). */
    'rft-lr': { type: 'string' },
    'sft-steps': { type: 'string', default: '1000' },
    'continue-steps': { type: 'string', default: '500' },
    rl: { type: 'string', default: '{}' },
  },
});
if (!values.data || !values.home) throw new Error('usage: bench/research/rl-controls.ts --data DIR --home DIR [--sft RUN/STEP] [--rl-run RUN/STEP] [--rows a,rl,b,d]');
const data = resolve(values.data);
const home = resolve(values.home);
const work = join(home, 'rl-controls');
mkdirSync(work, { recursive: true });
const rows = new Set(values.rows!.split(','));
const sftSteps = Number(values['sft-steps']);
const files = { graphFile: join(data, 'graph.json'), datasetFile: join(data, 'train.jsonl'), heldOutFile: join(data, 'held.jsonl') };

function sailor(args: string[]): string {
  const r = spawnSync(process.execPath, [resolve('bin/sailor.mjs'), ...args], { env: { ...process.env, SAILOR_HOME: home }, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`sailor ${args.join(' ')} failed:\n${r.stderr.slice(-2000)}`);
  return r.stdout;
}

/** A `sailor train --config` run; returns its last checkpoint, RUN/STEP. */
function train(name: string, config: Record<string, unknown>): string {
  const file = join(work, `${name}.json`);
  writeFileSync(file, JSON.stringify({ name, ...config }, null, 2));
  const out = sailor(['train', '--config', file]);
  const ckpt = [...out.matchAll(/checkpoints: (.*)/g)].at(-1)?.[1]?.split(', ').at(-1);
  if (!ckpt) throw new Error(`no checkpoint in the output of ${name}:\n${out.slice(-1000)}`);
  return ckpt.trim();
}

/** Greedy held-out episodes of a checkpoint: question id -> solved. */
function solvedBy(name: string, ckpt: string): Map<string, boolean> {
  const out = join(work, `eval-${name}.jsonl`);
  sailor(['eval', '--checkpoint', ckpt, '--graph', files.graphFile, '--dataset', files.heldOutFile, '--out', out, '--json']);
  const lines = readFileSync(out, 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l) as { qa_id: string; reward: { answer: number } });
  return new Map(lines.map((t) => [t.qa_id, isCorrect(t.reward)]));
}

/** The demonstrated questions and the RL questions as one training set (row d). */
function everyQuestion(): string {
  const [header, ...train] = readFileSync(files.datasetFile, 'utf8').trim().split('\n');
  const rl = readFileSync(join(data, 'rl.jsonl'), 'utf8').trim().split('\n').slice(1).map((l) => {
    const qa = JSON.parse(l) as { id: string };
    return JSON.stringify({ ...qa, id: `rl-${qa.id}` });
  });
  const file = join(work, 'every-question.jsonl');
  writeFileSync(file, [header, ...train, ...rl].join('\n') + '\n');
  return file;
}

const start = values.sft ?? train('a-sft', { data: files, sft: { steps: sftSteps } });
const results: { name: string; solved: Map<string, boolean> }[] = [{ name: `(a) SFT start (${start})`, solved: solvedBy('a', start) }];
if (rows.has('rl')) {
  const ckpt = values['rl-run'] ?? train('rl', { data: { ...files, rlFile: join(data, 'rl.jsonl') }, init: { checkpoint: start }, rl: JSON.parse(values.rl!) as unknown });
  results.push({ name: `RL (${ckpt})`, solved: solvedBy('rl', ckpt) });
}
if (rows.has('b')) {
  const ckpt = train('b-sft-continued', { data: files, init: { checkpoint: start }, sft: { steps: Number(values['continue-steps']) } });
  results.push({ name: `(b) SFT continued (${ckpt})`, solved: solvedBy('b', ckpt) });
}
if (rows.has('c')) {
  // RL's rollout budget: its steps x batchQuestions questions, G rollouts each (the schema's defaults otherwise).
  const rl = { steps: 40, batchQuestions: 8, groupSize: 8, ...(JSON.parse(values.rl!) as Record<string, number>) };
  const rlFile = join(data, 'rl.jsonl');
  const samples = join(work, 'c-own-samples.jsonl');
  sailor(['eval', '--checkpoint', start, '--graph', files.graphFile, '--dataset', rlFile, '--limit', String(rl.steps * rl.batchQuestions), '--n', String(rl.groupSize), '--k', String(rl.groupSize), '--temperature', '1', '--out', samples, '--json']);
  const ckpt = train('c-rejection-ft', { data: { ...files, datasetFile: rlFile, trajectoriesFile: samples }, init: { checkpoint: start }, sft: { steps: Number(values['rft-steps']), ...(values['rft-lr'] ? { lr: Number(values['rft-lr']), minLr: Number(values['rft-lr']) } : {}) } });
  results.push({ name: `(c) rejection fine-tuning (${ckpt})`, solved: solvedBy('c', ckpt) });
}
if (rows.has('d')) {
  const ckpt = train('d-sft-every-question', { data: { ...files, datasetFile: everyQuestion() }, sft: { steps: sftSteps } });
  results.push({ name: `(d) SFT on every question (${ckpt})`, solved: solvedBy('d', ckpt) });
}

const base = results[0]!.solved;
console.log('| policy | pass@1 | 95% interval | only (a) | only this | McNemar vs (a) |');
console.log('|---|---|---|---|---|---|');
for (const r of results) {
  const n = r.solved.size;
  const s = [...r.solved.values()].filter(Boolean).length;
  const [lo, hi] = wilsonInterval(s, n);
  let onlyA = 0;
  let onlyThis = 0;
  for (const [id, ok] of r.solved) {
    if (base.get(id) && !ok) onlyA++;
    if (!base.get(id) && ok) onlyThis++;
  }
  console.log(`| ${r.name} | ${(s / n).toFixed(3)} | ${lo.toFixed(2)}–${hi.toFixed(2)} | ${onlyA} | ${onlyThis} | ${formatP(mcnemarExactP(onlyA, onlyThis))} |`);
}
