// Where a trained policy departs from the expert it learned from, turn by turn. For each question the run's
// RFT expert plays the episode; at every expert turn the checkpoint is given exactly the prompt it would get
// at that point (train/policy policyPrompt) and writes one turn greedily. Prints, per turn index, how often
// the checkpoint's turn equals the expert's, and the teacher-forced accuracy on the same episodes' training
// rows (train/view turnWindows). High teacher-forced accuracy with few exact turns means the policy cannot
// yet write a whole turn unaided (a name copied wrong compounds); a gap that opens only on late turns, where
// the context is cut, points at a difference between training rows and inference prompts.
// Run: npx tsx bench/turns.ts --home DIR --run RUN_ID [--step last] [--split held-out|train] [--questions 20] [--show 3]
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { readJsonFile } from '../main/lab/store/files';
import { selectBackend } from '../main/lab/compute/backend';
import { readGraphFile } from '../main/lab/kg/io';
import { readDataset } from '../main/lab/synth/dataset';
import { SimWeb } from '../main/lab/agent/web';
import { simToolset } from '../main/lab/agent/env';
import { rolloutDataset } from '../main/lab/agent/rollout';
import { renderStepParts } from '../main/lab/agent/react';
import { loadCheckpoint } from '../main/lab/model/checkpoint';
import { forward, generate } from '../main/lab/model/gpt';
import { buildMaskedTokens } from '../main/lab/model/mask';
import { parseRunConfig } from '../main/lab/contract/run-config';
import { checkpointDir, checkpointSteps, runFile } from '../main/lab/runs/layout';
import { policyPrompt, TURN_TOKENS } from '../main/lab/train/policy';
import { policyView, turnWindows } from '../main/lab/train/view';
import { runEnvironment } from '../main/lab/train/checkpoints';
import { rftExpert } from '../main/lab/train/sft-job';
import { createRng } from '../main/lab/util/rng';

const { values } = parseArgs({
  options: {
    home: { type: 'string' },
    run: { type: 'string' },
    step: { type: 'string', default: 'last' },
    split: { type: 'string', default: 'held-out' },
    questions: { type: 'string', default: '20' },
    show: { type: 'string', default: '3' },
  },
});
if (!values.home || !values.run || !['held-out', 'train'].includes(values.split!)) {
  throw new Error('usage: bench/turns.ts --home DIR --run RUN_ID [--step last] [--split held-out|train] [--questions N] [--show N]');
}
const home = values.home;
const runId = values.run;
const config = parseRunConfig((readJsonFile(runFile(home, runId)) as { config: unknown }).config);
const { report: backend } = await selectBackend(config.backend === 'auto' ? {} : { only: [config.backend] });
const all = checkpointSteps(home, runId);
const step = values.step === 'last' ? all.at(-1) : Number(values.step);
if (step === undefined || !all.includes(step)) throw new Error(`run ${runId} has no checkpoint ${values.step}; it has ${all.join(', ') || 'none'}`);
const { model, tokenizer: tok } = await loadCheckpoint(checkpointDir(home, runId, step));
if (!tok) throw new Error('the checkpoint has no tokenizer');

const graph = readGraphFile(join(home, 'graphs', `${config.data.graphId}.json`));
const datasetId = values.split === 'train' ? config.data.datasetId : config.data.heldOutDatasetId;
const qas = readDataset(join(home, 'datasets', `${datasetId}.jsonl`)).qas.slice(0, Number(values.questions));
const env = runEnvironment(config);
const trajs = await rolloutDataset(qas, rftExpert(config, graph), simToolset(new SimWeb(graph, env.web)), {
  n: 1,
  seed: 7,
  limits: { maxToolCalls: env.maxToolCalls, maxNewTokens: TURN_TOKENS * 4 },
});
const eos = tok.special('<|eos|>');
const stops = [tok.special('</tool_call>'), tok.special('</answer>'), eos];
const blockSize = model.config.blockSize;

const exact: number[] = [];
const total: number[] = [];
let hit = 0;
let scored = 0;
let shown = 0;
for (const t of trajs) {
  const { question, answer } = qas.find((q) => q.id === t.qa_id)!;
  const lines: string[] = [];
  for (let i = 0; i < t.steps.length; i++) {
    const prompt = policyPrompt(tok, question, t.steps.slice(0, i), blockSize, TURN_TOKENS);
    const out = await generate(model, prompt, { maxNewTokens: TURN_TOKENS, temperature: 0, rng: createRng(0), stopTokens: stops });
    const got = tok.decode(out.tokens.filter((id) => id !== eos)).trim();
    const { think, action } = renderStepParts(t.steps[i]!);
    const want = (think + action).trim();
    total[i] = (total[i] ?? 0) + 1;
    if (got === want) exact[i] = (exact[i] ?? 0) + 1;
    else lines.push(`  turn ${i} (context ${prompt.length} tokens)\n    expert: ${JSON.stringify(want)}\n    policy: ${JSON.stringify(got)}`);
  }
  const v = policyView(question, t.steps);
  for (const row of turnWindows(buildMaskedTokens(tok, v.text, v.spans), blockSize, TURN_TOKENS)) {
    const ids = row.ids.slice(0, -1);
    const pred = tf.tidy(() => tf.argMax(forward(model, tf.tensor2d(Int32Array.from(ids), [1, ids.length], 'int32')), -1).dataSync());
    for (let j = 0; j < ids.length; j++) {
      if (row.mask[j + 1] !== 1) continue;
      scored++;
      if (pred[j] === row.ids[j + 1]) hit++;
    }
  }
  if (lines.length > 0 && shown < Number(values.show)) {
    shown++;
    console.log(`Q: ${question}  (gold: ${answer})\n${lines.join('\n')}`);
  }
}
console.log(`\nrun ${runId} step ${step}, ${trajs.length} ${values.split} questions, backend ${backend.chosen}`);
console.log(`teacher-forced token accuracy on the training rows: ${(hit / Math.max(1, scored)).toFixed(3)} (${scored} tokens)`);
for (let i = 0; i < total.length; i++) console.log(`turn ${i}: the policy writes the expert's turn exactly in ${exact[i] ?? 0} of ${total[i]}`);
