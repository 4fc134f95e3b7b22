// The answer turn, teacher-forced. For each question the run's RFT expert plays the episode; the checkpoint
// is given the prompt of the expert's answer turn (train/policy policyPrompt) and the expert's turn up to
// the answer, and predicts the answer's tokens one by one with the true ones before each. Prints how often
// its first answer token is right, the whole answer right, and the later tokens right once the first is
// (copying); and, on one-edge questions, the first-token figure split by where the answer stands in its
// evidence sentence: after what identifies it ("where is Gulf of Ob located?" over `Gulf of Ob is located in
// Kara Sea.`) or before it ("what flows into Andaman Sea?" over `Irrawaddy River flows into Andaman Sea.`).
// A causal model reads the answer before what identifies it in the second case; bidirectionalObservations
// (model/gpt) lets the response's tokens read the whole response.
// Run: npx tsx bench/research/answers.ts --home DIR --run RUN_ID [--step last] [--split held-out|train] [--questions 100]
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import { renderStepParts } from '../../main/lab/agent/react';
import { forward } from '../../main/lab/model/gpt';
import { policyPrompt, TURN_TOKENS } from '../../main/lab/train/policy/policy';
import { EPISODE_OPTIONS, episodesFromArgs } from '../lib/expert-episodes';

const { values } = parseArgs({ options: { ...EPISODE_OPTIONS, questions: { type: 'string', default: '100' } } });
const usage = 'usage: bench/research/answers.ts --home DIR --run RUN_ID [--step last] [--split held-out|train] [--questions N]';
const { step, backend, model, tok, episodes } = await episodesFromArgs(values, usage);

interface Tally {
  n: number;
  first: number;
  whole: number;
}
const tally = (): Tally => ({ n: 0, first: 0, whole: 0 });
const total = tally();
const byPlace = { after: tally(), before: tally() };
let later = 0;
let laterN = 0;
let inWindow = 0;
for (const { qa, trajectory } of episodes) {
  const last = trajectory.steps.at(-1);
  if (!last || last.action.name !== 'answer') continue;
  const { think, action } = renderStepParts(last);
  const turn = think + action;
  const at = turn.indexOf(qa.answer);
  if (at < 0) continue; // the expert answered with an alias: nothing to align
  const prompt = policyPrompt(tok, qa.question, trajectory.steps.slice(0, -1), model.config.blockSize, TURN_TOKENS);
  // Cut before the space that precedes the answer, so the answer's tokens are the ones the tokenizer makes in place.
  const cut = turn.slice(0, at).trimEnd().length;
  const prefix = tok.encode(turn.slice(0, cut));
  let answer = tok.encode(turn.slice(cut, at + qa.answer.length));
  const ids = [...prompt, ...prefix, ...answer];
  if (ids.length > model.config.blockSize) continue;
  const pred = tf.tidy(() => tf.argMax(forward(model, tf.tensor2d(Int32Array.from(ids), [1, ids.length], 'int32')), -1).dataSync());
  let start = prompt.length + prefix.length;
  if (tok.decode([answer[0]!]).trim() === '') {
    answer = answer.slice(1); // a lone space token: the answer starts after it
    start++;
  }
  const right = answer.map((id, i) => pred[start + i - 1] === id);
  const add = (t: Tally): void => {
    t.n++;
    if (right[0]) t.first++;
    if (right.every(Boolean)) t.whole++;
  };
  add(total);
  if (right[0]) {
    later += right.slice(1).filter(Boolean).length;
    laterN += right.length - 1;
  }
  if (tok.decode(prompt).includes(qa.answer)) inWindow++;
  const patterns = qa.query.patterns;
  if (qa.subgraph.edges.length === 1 && patterns.length === 1) add(patterns[0]!.s === qa.query.answer ? byPlace.before : byPlace.after);
}
const pct = (a: number, b: number): string => `${a} of ${b}`;
console.log(`run ${values.run} step ${step}, ${values.split} questions, backend ${backend}: ${total.n} answer turns scored`);
console.log(`first answer token right: ${pct(total.first, total.n)}; whole answer right: ${pct(total.whole, total.n)}; answer in the prompt window: ${pct(inWindow, total.n)}`);
console.log(`later answer tokens right once the first is: ${pct(later, laterN)}`);
console.log(`one-edge questions, first answer token right, answer after what identifies it: ${pct(byPlace.after.first, byPlace.after.n)}; before it: ${pct(byPlace.before.first, byPlace.before.n)}`);
