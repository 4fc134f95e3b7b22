// What a policy's context keeps of a chained question, turn by turn. The run's RFT expert (compact thoughts)
// plays the questions; before each of its turns the bench cuts the context as the policy's would be cut
// (train/policy policyPrompt: the question pinned, the most recent tokens after it, TURN_TOKENS kept for the
// turn) and checks: is the question pinned; once a bridge entity has been read, is it still in view; at the turn
// that hops to the bridge (its search or visit names it), is it in view there; at the answer turn, is the answer.
// Run: npx tsx bench/research/chain-context.ts --graph G.json --dataset D.jsonl [--questions 200] [--block 256] [--style compact] [--show 1]
import { parseArgs } from 'node:util';
import { readGraphFile } from '../../main/lab/kg/io';
import { readDataset } from '../../main/lab/synth/dataset';
import { SimWeb } from '../../main/lab/agent/web';
import { simToolset } from '../../main/lab/agent/env';
import { rolloutDataset } from '../../main/lab/agent/rollout';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import { questionHops } from '../../main/lab/contract/level-breakdown';
import { Tokenizer } from '../../main/lab/model/tokenizer';
import { readJsonFile } from '../../main/lab/store/files';
import { policyPrompt, TURN_TOKENS } from '../../main/lab/train/policy/policy';
import { policyView } from '../../main/lab/train/policy/view';
import { rftExpert, type RftStyle } from '../../main/lab/train/policy/rft-expert';
import { runLimits } from '../../main/lab/train/policy/eval-setup';
import { requireBaseModel } from '../../main/lab/train/policy/base-model';
import { bridgeIds, chainViews, type TurnView } from '../../main/lab/train/policy/chain';
import { isCorrect } from '../../main/lab/contract/correct';

const { values } = parseArgs({
  options: {
    graph: { type: 'string' }, dataset: { type: 'string' }, questions: { type: 'string', default: '200' },
    block: { type: 'string', default: '256' }, style: { type: 'string', default: 'compact' }, show: { type: 'string', default: '0' },
  },
});
if (!values.graph || !values.dataset) throw new Error('usage: bench/research/chain-context.ts --graph G.json --dataset D.jsonl [--questions N] [--block 256] [--style compact] [--show N]');
const graph = readGraphFile(values.graph);
const names = new Map(graph.nodes.map((n) => [n.id, n.name]));
const qas = readDataset(values.dataset).qas.filter((q) => questionHops(q.query) >= 2).slice(0, Number(values.questions));
const config = parseRunConfig({ data: { graphId: 'g', datasetId: 'd', heldOutDatasetId: 'h' } });
const web = new SimWeb(graph, { topK: config.env.topK, snippetChars: config.env.snippetChars, maxEvidence: config.env.maxEvidence });
const tok = Tokenizer.fromJSON(readJsonFile(`${requireBaseModel()}/tokenizer.json`));
const block = Number(values.block);
const trajs = await rolloutDataset(qas, rftExpert(values.style as RftStyle, graph), simToolset(web), { n: 1, seed: 7, limits: runLimits(config) });

const views: TurnView[][] = [];
let solved = 0;
let shown = 0;
for (const t of trajs) {
  if (!isCorrect(t.reward)) continue; // RFT keeps only the expert's correct episodes
  solved++;
  const qa = qas.find((q) => q.id === t.qa_id)!;
  const windows = t.steps.map((_, i) => tok.decode(policyPrompt(tok, qa.question, t.steps.slice(0, i), block, TURN_TOKENS)));
  const bridges = bridgeIds(qa).map((id) => names.get(id) ?? id);
  const v = chainViews({ question: qa.question, steps: t.steps, windows, bridges, answers: [qa.answer, ...qa.aliases] });
  views.push(v);
  if (shown < Number(values.show) && v.some((x) => (x.usesBridge && !x.bridgeInView) || x.answerInView === false)) {
    shown++;
    console.log(`--- ${qa.question} -> ${qa.answer} (bridge ${bridges.join(', ')})\n${policyView(qa.question, t.steps).text}\n`);
  }
}
const share = (xs: boolean[]): string => (xs.length ? `${(xs.filter(Boolean).length / xs.length).toFixed(3)} of ${xs.length}` : '—');
console.log(`${qas.length} chained questions (hops >= 2) from ${values.dataset}; the ${values.style} expert solves ${solved}; context ${block} tokens, ${block - TURN_TOKENS} before a turn`);
console.log('turn  episodes  question pinned  bridge in view (after it was read)');
const maxTurns = Math.max(0, ...views.map((v) => v.length));
for (let i = 0; i < maxTurns; i++) {
  const at = views.map((v) => v[i]).filter((x): x is TurnView => !!x);
  console.log(`${String(i).padStart(4)}  ${String(at.length).padStart(8)}  ${share(at.map((x) => x.questionPinned)).padStart(15)}  ${share(at.filter((x) => x.bridgeSeen).map((x) => x.bridgeInView))}`);
}
const hop = views.map((v) => v.find((x) => x.usesBridge && x.bridgeSeen)).filter((x): x is TurnView => !!x);
console.log(`the hop turn (its action names the bridge): bridge in view ${share(hop.map((x) => x.bridgeInView))}`);
console.log(`the answer turn: answer in view ${share(views.map((v) => v.at(-1)!).map((x) => x.answerInView === true))}`);
