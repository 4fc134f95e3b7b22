// The copy probe (issue #41): does a policy copy a name it has never seen? The held-out questions are played
// twice, greedy, on the same facts: on the run's own web, and on a probe world where every entity has a made-up
// name (agent/rename.ts, generated share 1, a seed no training world uses), so nothing can be recalled. Per world:
// pass@1, the share of first searches that copy the question's entity name exactly, the share of answers that
// are an exact copy of a name the policy read, and why the misses failed (one-hop classes, first that fits).
// Run: npx tsx bench/research/copy-probe.ts --checkpoint DIR --graph G.json --held H.jsonl [--questions 300] [--seed 1]
//        [--rft RUN_DIR/data/rft.jsonl]   (counts probe names that occur in that training data: should be 0)
//      --checkpoint takes a run's checkpoint folder (RUNS/<id>/checkpoints/<step>) or resources/base-model.
import { parseArgs } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import type { QA, Trajectory } from '../../main/lab/formats';
import type { AgentStep } from '../../main/lab/agent/react';
import { selectBackend } from '../../main/lab/model/backend';
import { readGraphFile } from '../../main/lab/kg/io';
import { readDataset } from '../../main/lab/synth/dataset';
import { SimWeb } from '../../main/lab/agent/web';
import { simToolset } from '../../main/lab/agent/env';
import type { PolicyFactory } from '../../main/lab/agent/policies';
import { rolloutDataset } from '../../main/lab/agent/rollout';
import { normalizeAnswer } from '../../main/lab/agent/text';
import { renameGraph, renameQa } from '../../main/lab/agent/rename';
import { loadCheckpoint } from '../../main/lab/model/checkpoint';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import { mcnemarExactP, wilsonInterval } from '../../main/lab/contract/stats';
import { isCorrect } from '../../main/lab/contract/correct';
import { checkpointPolicy, TURN_TOKENS } from '../../main/lab/train/policy/policy';
import { runEnvironment } from '../../main/lab/train/policy/checkpoints';
import { EPISODES_IN_FLIGHT, evalSeed } from '../../main/lab/train/policy/eval-setup';
import { ActingThreads } from '../../main/lab/model/acting-threads';
import { actionText, mentions, nearCopy } from '../../main/lab/agent/mentions';
import { createRng, seedFrom } from '../../main/lab/util/rng';

const { values } = parseArgs({
  options: {
    checkpoint: { type: 'string' }, graph: { type: 'string' }, held: { type: 'string' }, questions: { type: 'string', default: '300' },
    seed: { type: 'string', default: '1' }, rft: { type: 'string' }, worlds: { type: 'string', default: 'original,probe' },
  },
});
if (!values.checkpoint || !values.graph || !values.held) throw new Error('usage: bench/research/copy-probe.ts --checkpoint DIR --graph G.json --held H.jsonl [--questions N] [--seed S] [--rft rft.jsonl]');

/** The one-hop miss classes, checked in this order; `loop` is a non-answer whose text repeats a short unit 3+ times. */
export const PROBE_CLASSES = ['solved', 'loop', 'no_answer', 'never_saw_answer', 'repeated_question_entity', 'near_copy', 'wrong_with_answer_in_view'] as const;
type ProbeClass = (typeof PROBE_CLASSES)[number];

const generated = (steps: readonly AgentStep[]): string => steps.map((s) => `${s.think ?? ''}\n${actionText(s)}`).join('\n');
const repeats = (text: string): boolean => /(\p{L}[^\n]{1,11}?)\1{2,}/u.test(text);

interface Probe {
  cls: ProbeClass;
  queryCopied: boolean | null; // the first search names the question's entity exactly (null: no search)
  answerCopied: boolean | null; // the answer is a name read verbatim in an observation (null: no answer)
}

function probe(t: Trajectory, qa: QA, anchors: readonly string[]): Probe {
  const steps = t.steps as AgentStep[];
  const seen = steps.map((s) => s.observation ?? '').join('\n');
  const firstSearch = steps.find((s) => s.action.name === 'search');
  const queryCopied = firstSearch ? anchors.some((a) => mentions(actionText(firstSearch), a)) : null;
  const pred = t.prediction;
  const answerCopied = pred ? mentions(seen, pred) : null;
  const answers = [qa.answer, ...(qa.aliases ?? [])];
  let cls: ProbeClass;
  if (isCorrect(t.reward)) cls = 'solved';
  else if (!pred) cls = repeats(generated(steps)) ? 'loop' : 'no_answer';
  else if (!answers.some((a) => mentions(seen, a))) cls = 'never_saw_answer';
  else if (anchors.some((a) => normalizeAnswer(a) === normalizeAnswer(pred))) cls = 'repeated_question_entity';
  else if (answers.some((a) => nearCopy(pred, a))) cls = 'near_copy';
  else cls = 'wrong_with_answer_in_view';
  return { cls, queryCopied, answerCopied };
}

const config = parseRunConfig({ data: { graphId: 'g', datasetId: 'd', heldOutDatasetId: 'h' } });
const env = runEnvironment(config);
const limits = { maxToolCalls: env.maxToolCalls, maxNewTokens: TURN_TOKENS * 4 };
const { report: backend } = await selectBackend({});
const graph = readGraphFile(values.graph);
const held = readDataset(values.held).qas.slice(0, Number(values.questions));
const loaded = await loadCheckpoint(values.checkpoint);
if (!loaded.tokenizer) throw new Error(`${values.checkpoint} has no tokenizer`);
const tok = loaded.tokenizer;
// Batched decoding on every core, as the runs' evaluations: the same greedy trajectories, sooner.
const decoder = await ActingThreads.start(loaded.model);
decoder.sync();
const factory: PolicyFactory = {
  spec: 'probe',
  kind: 'ckpt',
  forQA: () => checkpointPolicy(loaded.model, tok, { name: 'probe', temperature: 0, maxTurnTokens: TURN_TOKENS, decoder }),
  inFlight: EPISODES_IN_FLIGHT,
};

const original = new Map(graph.nodes.map((n) => [n.id, n.name]));
// Made-up names only, from a seed of the probe's own: no renamed training world ('renamed/<rng>/<k>') shares it.
const world = renameGraph(graph, createRng(seedFrom(`copy-probe/${values.seed}`)), { generated: 1 });
const probeQas = held.map((q) => renameQa(q, original, world.names, '')).filter((q): q is QA => q !== null);
const kept = new Set(probeQas.map((q) => q.id));
const worlds: Record<string, { qas: QA[]; web: SimWeb; names: Map<string, string> }> = {
  original: { qas: held.filter((q) => kept.has(q.id)), web: new SimWeb(graph, env.web), names: original },
  probe: { qas: probeQas, web: new SimWeb(world.graph, env.web), names: world.names },
};

console.log(`${values.checkpoint}, backend ${backend.chosen}, greedy; ${kept.size} of ${held.length} held-out questions renamable`);
if (values.rft && existsSync(values.rft)) {
  const text = readFileSync(values.rft, 'utf8');
  const probeNames = probeQas.flatMap((q) => [q.answer, ...q.query.patterns.flatMap((p) => [p.s, p.o]).filter((x) => !x.startsWith('?')).map((id) => world.names.get(id)!)]);
  console.log(`probe names found in ${values.rft}: ${probeNames.filter((n) => text.includes(n)).length} of ${probeNames.length}`);
}
const solvedBy: Record<string, Set<string>> = {};
for (const name of values.worlds!.split(',')) {
  const w = worlds[name];
  if (!w) throw new Error(`unknown world ${name}: original or probe`);
  const t0 = performance.now();
  const trajs = await rolloutDataset(w.qas, factory, simToolset(w.web), { n: 1, seed: evalSeed(config.rng), limits });
  const byId = new Map(w.qas.map((q) => [q.id, q]));
  const probes = trajs.map((t) => {
    const qa = byId.get(t.qa_id)!;
    const anchors = qa.query.patterns.flatMap((p) => [p.s, p.o]).filter((x) => !x.startsWith('?')).map((id) => w.names.get(id) ?? id);
    return probe(t, qa, anchors);
  });
  solvedBy[name] = new Set(trajs.filter((t) => isCorrect(t.reward)).map((t) => t.qa_id));
  const n = probes.length;
  const solved = solvedBy[name]!.size;
  const [lo, hi] = wilsonInterval(solved, n);
  const share = (xs: (boolean | null)[]): string => {
    const d = xs.filter((x) => x !== null);
    return `${d.filter(Boolean).length}/${d.length} (${(d.filter(Boolean).length / Math.max(1, d.length)).toFixed(3)})`;
  };
  const tally = Object.fromEntries(PROBE_CLASSES.map((c) => [c, probes.filter((p) => p.cls === c).length]));
  console.log(`\n${name} names: pass@1 ${(solved / n).toFixed(3)} (95% ${lo.toFixed(2)}-${hi.toFixed(2)}), ${n} questions, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  console.log(`  first search copies the question's entity exactly: ${share(probes.map((p) => p.queryCopied))}`);
  console.log(`  answer is a name read verbatim on a page:          ${share(probes.map((p) => p.answerCopied))}`);
  console.log(`  ${PROBE_CLASSES.map((c) => `${c} ${tally[c]}`).join(', ')}`);
}
if (solvedBy.original && solvedBy.probe) {
  const only = (a: Set<string>, b: Set<string>): number => [...a].filter((x) => !b.has(x)).length;
  const b = only(solvedBy.original, solvedBy.probe);
  const c = only(solvedBy.probe, solvedBy.original);
  console.log(`\noriginal only ${b}, probe only ${c}: McNemar p = ${mcnemarExactP(b, c).toFixed(3)}`);
}
await decoder.close();
