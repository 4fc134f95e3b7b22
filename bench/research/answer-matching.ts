// Answer matching's effect on a run's figures: every evaluation of a run re-graded three ways (the gold
// answer's text only; any of its knowledge-base aliases; those or their standard forms, what evaluation and the
// RL reward use now, agent/answer-forms.ts). Prints pass@1 each way per evaluation step, and the questions
// whose grade changed. It reads the run's stored trajectories; the policy is not run again.
// Run: npx tsx bench/research/answer-matching.ts --home H --run R [--show N]
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readJsonFile } from '../../main/lab/store/files';
import { datasetFile } from '../../main/lab/store/layout';
import { readDataset } from '../../main/lab/synth/dataset';
import { readTrajectories } from '../../main/lab/agent/data';
import { evaluate, sampleFromTrajectory } from '../../main/lab/agent/eval';
import { matchLevels } from '../../main/lab/agent/answer-forms';
import { evalFile, evalSteps, runFile } from '../../main/lab/runs/layout';
import type { QA } from '../../main/lab/formats';

const { values } = parseArgs({ options: { home: { type: 'string' }, run: { type: 'string' }, show: { type: 'string', default: '20' } } });
if (!values.home || !values.run) {
  console.error('usage: npx tsx bench/research/answer-matching.ts --home <data directory> --run <run id> [--show N]');
  process.exit(2);
}
const home = values.home;
const runId = values.run;
if (!existsSync(runFile(home, runId))) {
  console.error(`no run ${runId} in ${home} (looked for ${runFile(home, runId)})`);
  process.exit(2);
}
const config = (readJsonFile(runFile(home, runId)) as { config: { data: { heldOutDatasetId: string }; eval: { samples: number } } }).config;
const qas = new Map<string, QA>(readDataset(datasetFile(home, config.data.heldOutDatasetId)).qas.map((q) => [q.id, q]));
const steps = evalSteps(home, runId);
if (!steps.length) {
  console.error(`run ${runId} has no evaluations yet`);
  process.exit(1);
}

const MODES = ['plain', 'aliases', 'forms'] as const;
console.log(`run ${runId}: held-out set ${config.data.heldOutDatasetId}, ${steps.length} evaluation${steps.length === 1 ? '' : 's'}`);
console.log('pass@1 per evaluation: plain = the gold answer only; aliases = any KB name; forms = names or standard forms (now used)');
console.log(['step', 'trajectories', ...MODES, 'forms − plain', 'changed'].join('\t'));
const changed: string[] = [];
for (const step of steps) {
  const trajs = readTrajectories(evalFile(home, runId, step));
  const grades = trajs.map((t) => {
    const qa = qas.get(t.qa_id);
    return qa ? matchLevels(t.prediction, qa.answer, qa.aliases ?? []) : { plain: false, aliases: false, forms: false };
  });
  const pass = Object.fromEntries(
    MODES.map((m) => [m, evaluate(trajs.map((t, i) => ({ ...sampleFromTrajectory(t), correct: grades[i]![m] })), config.eval.samples)['pass@1']]),
  ) as Record<(typeof MODES)[number], number>;
  const diffs = trajs.flatMap((t, i) => (grades[i]!.plain !== grades[i]!.forms ? [t] : []));
  console.log([step, trajs.length, ...MODES.map((m) => pass[m].toFixed(4)), (pass.forms - pass.plain >= 0 ? '+' : '') + (pass.forms - pass.plain).toFixed(4), diffs.length].join('\t'));
  for (const t of diffs) {
    const qa = qas.get(t.qa_id)!;
    const g = grades[trajs.indexOf(t)]!;
    changed.push(`step ${step}\t${t.qa_id}\t${g.aliases ? 'alias' : 'standard form'}\tpredicted "${t.prediction}"\tgold "${qa.answer}"${qa.aliases?.length ? ` (aliases: ${qa.aliases.join('; ')})` : ''}\t${qa.question}`);
  }
}
const show = Number(values.show);
console.log(`\nquestions whose grade changed (wrong under plain match, right now): ${changed.length}${changed.length > show ? `, the first ${show}` : ''}`);
for (const line of changed.slice(0, show)) console.log(line);
