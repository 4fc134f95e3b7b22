// Where a trained policy departs from the expert it learned from, turn by turn. For each question the run's
// RFT expert plays the episode; at every expert turn the checkpoint is given exactly the prompt it would get
// at that point (train/policy policyPrompt) and writes one turn greedily. Prints, per turn index, how often
// the checkpoint's turn equals the expert's, and the teacher-forced accuracy on the same episodes' training
// rows (train/view turnWindows). High teacher-forced accuracy with few exact turns means the policy cannot
// yet write a whole turn unaided (a name copied wrong compounds); a gap that opens only on late turns, where
// the context is cut, points at a difference between training rows and inference prompts.
// Run: npx tsx bench/research/turns.ts --home DIR --run RUN_ID [--step last] [--split held-out|train] [--questions 20] [--show 3]
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import { renderStepParts } from '../../main/lab/agent/react';
import { forward } from '../../main/lab/model/gpt';
import { generate } from '../../main/lab/model/generate';
import { buildMaskedTokens } from '../../main/lab/model/mask';
import { policyPrompt, TURN_STOP_TAGS, TURN_TOKENS } from '../../main/lab/train/policy/policy';
import { policyView, turnWindows } from '../../main/lab/train/policy/view';
import { createRng } from '../../main/lab/util/rng';
import { EPISODE_OPTIONS, episodesFromArgs } from '../lib/expert-episodes';

const { values } = parseArgs({ options: { ...EPISODE_OPTIONS, questions: { type: 'string', default: '20' }, show: { type: 'string', default: '3' } } });
const usage = 'usage: bench/research/turns.ts --home DIR --run RUN_ID [--step last] [--split held-out|train] [--questions N] [--show N]';
const { step, backend, model, tok, episodes } = await episodesFromArgs(values, usage);
const runId = values.run!;
const eos = tok.special('<|eos|>');
const stops = TURN_STOP_TAGS.map((t) => tok.special(t));
const blockSize = model.config.blockSize;

const exact: number[] = [];
const total: number[] = [];
let hit = 0;
let scored = 0;
let shown = 0;
for (const { qa, trajectory: t } of episodes) {
  const { question, answer } = qa;
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
console.log(`\nrun ${runId} step ${step}, ${episodes.length} ${values.split} questions, backend ${backend}`);
console.log(`teacher-forced token accuracy on the training rows: ${(hit / Math.max(1, scored)).toFixed(3)} (${scored} tokens)`);
for (let i = 0; i < total.length; i++) console.log(`turn ${i}: the policy writes the expert's turn exactly in ${exact[i] ?? 0} of ${total[i]}`);
