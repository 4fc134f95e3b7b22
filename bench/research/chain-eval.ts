// A run's checkpoints on chained questions: held-out pass@1 by hops and by level with the expert's ceiling on the
// same questions, the misses of chained questions (hops >= 2) broken down by where the chain broke
// (train/policy/chain.ts classifyChain), and optionally pass@k at a temperature. Each dataset file is read as given
// (off the run's training edges: make them with `synth --exclude`), on the run's graph and simulated web.
// Run: npx tsx bench/research/chain-eval.ts --home DIR --run RUN_ID --datasets A.jsonl,B.jsonl [--steps last] [--questions 300]
//        [--k 8 --temperature 1]
import { parseArgs } from 'node:util';
import { basename, join } from 'node:path';
import type { QA, Trajectory } from '../../main/lab/formats';
import type { AgentStep } from '../../main/lab/agent/react';
import { readJsonFile } from '../../main/lab/store/files';
import { selectBackend } from '../../main/lab/model/backend';
import { readGraphFile } from '../../main/lab/kg/io';
import { readDataset } from '../../main/lab/synth/dataset';
import { SimWeb } from '../../main/lab/agent/web';
import { simToolset } from '../../main/lab/agent/env';
import type { PolicyFactory } from '../../main/lab/agent/policies';
import { rolloutDataset } from '../../main/lab/agent/rollout';
import { passAtK, sampleFromTrajectory, wilsonInterval } from '../../main/lab/agent/eval';
import { Tokenizer } from '../../main/lab/model/tokenizer';
import { loadCheckpoint } from '../../main/lab/model/checkpoint';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import { levelBreakdown, levelOfQuestion, questionScores, type LevelRow } from '../../main/lab/contract/level-breakdown';
import { checkpointDir, checkpointSteps, dataDir, runFile } from '../../main/lab/runs/layout';
import { checkpointPolicy, EPISODES_IN_FLIGHT, policyPrompt, TURN_TOKENS } from '../../main/lab/train/policy/policy';
import { ActingThreads } from '../../main/lab/model/acting-threads';
import { runEnvironment } from '../../main/lab/train/policy/checkpoints';
import { rftExpert } from '../../main/lab/train/policy/rft-expert';
import { evalSeed } from '../../main/lab/train/policy/eval-setup';
import { bridgeIds, CHAIN_OUTCOMES, classifyChain, type ChainOutcome } from '../../main/lab/train/policy/chain';
import { isCorrect } from '../../main/lab/contract/correct';

const { values } = parseArgs({
  options: {
    home: { type: 'string' }, run: { type: 'string' }, datasets: { type: 'string' }, steps: { type: 'string', default: 'last' },
    questions: { type: 'string', default: '300' }, k: { type: 'string', default: '1' }, temperature: { type: 'string', default: '0' },
  },
});
if (!values.home || !values.run || !values.datasets) throw new Error('usage: bench/research/chain-eval.ts --home DIR --run RUN_ID --datasets A.jsonl,B.jsonl [--steps last] [--questions N] [--k 8 --temperature 1]');
const home = values.home;
const runId = values.run;
const config = parseRunConfig((readJsonFile(runFile(home, runId)) as { config: unknown }).config);
const { report: backend } = await selectBackend(config.backend === 'auto' ? {} : { only: [config.backend] });
const graph = readGraphFile(join(home, 'graphs', `${config.data.graphId}.json`));
const names = new Map(graph.nodes.map((n) => [n.id, n.name]));
const env = runEnvironment(config);
const tools = simToolset(new SimWeb(graph, env.web));
const limits = { maxToolCalls: env.maxToolCalls, maxNewTokens: TURN_TOKENS * 4 };
const tok = Tokenizer.fromJSON(readJsonFile(join(dataDir(home, runId), 'tokenizer.json')));
const all = checkpointSteps(home, runId);
const steps = values.steps!.split(',').map((s) => (s === 'last' ? all.at(-1)! : Number(s)));
const k = Number(values.k);
const temperature = Number(values.temperature);
const seed = evalSeed(config.rng);

const pct = (x: number | null): string => (x === null ? '   —' : x.toFixed(3));
const row = (r: LevelRow): string => `${String(r.key).padStart(3)}  ${String(r.questions).padStart(4)}  ${pct(r.passAt1)}  ${pct(r.expert)}`;

console.log(`run ${runId}, backend ${backend.chosen}, ${k === 1 && temperature === 0 ? 'greedy' : `${k} samples at T ${temperature}`}`);
for (const file of values.datasets.split(',')) {
  const qas: QA[] = readDataset(file).qas.slice(0, Number(values.questions));
  const levels = new Map(qas.map((q) => [q.id, levelOfQuestion(q)]));
  const expertTrajs = await rolloutDataset(qas, rftExpert(config.rft.style, graph), tools, { n: 1, seed, limits });
  const expert = questionScores(expertTrajs.map((t) => sampleFromTrajectory(t)));
  for (const step of steps) {
    const t0 = performance.now();
    const { model } = await loadCheckpoint(checkpointDir(home, runId, step));
    const spec = `ckpt:${runId}/${step}`;
    // Every episode in flight decodes its turns in one batch on every core, as the run's own evaluations do.
    const decoder = await ActingThreads.start(model);
    const factory: PolicyFactory = { spec, kind: 'ckpt', inFlight: EPISODES_IN_FLIGHT, forQA: () => checkpointPolicy(model, tok, { name: spec, temperature, maxTurnTokens: TURN_TOKENS, decoder }) };
    const trajs: Trajectory[] = await rolloutDataset(qas, factory, tools, { n: k, seed, limits });
    await decoder.close();
    const samples = trajs.map((t) => sampleFromTrajectory(t));
    const scores = questionScores(samples);
    const p1 = [...scores.values()].reduce((a, b) => a + b, 0) / scores.size;
    const [lo, hi] = wilsonInterval(Math.round(p1 * qas.length), qas.length);
    const b = levelBreakdown(scores, levels, expert);
    const expertAll = [...expert.values()].reduce((a, x) => a + x, 0) / expert.size;
    console.log(`\n${basename(file)}, step ${step}: ${qas.length} questions, pass@1 ${p1.toFixed(3)} (95% ${lo.toFixed(2)}-${hi.toFixed(2)}), expert ${expertAll.toFixed(3)}  (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    if (k > 1) {
      const byQa = new Map<string, { n: number; c: number }>();
      for (const s of samples) {
        const g = byQa.get(s.qa_id) ?? byQa.set(s.qa_id, { n: 0, c: 0 }).get(s.qa_id)!;
        g.n++;
        if (s.correct) g.c++;
      }
      const curve = [1, 2, 4, 8, 16].filter((j) => j <= k).map((j) => `pass@${j} ${([...byQa.values()].reduce((a, g) => a + passAtK(g.n, g.c, j), 0) / byQa.size).toFixed(3)}`);
      console.log(`  ${curve.join('  ')}`);
    }
    console.log('  hops   n  pass@1 expert');
    for (const r of b.hops) console.log(`  ${row(r)}`);
    console.log('  level  n  pass@1 expert');
    for (const r of b.level) console.log(`  ${row(r)}`);
    // Where chained misses broke, greedy samples only (the first per question).
    const tally = Object.fromEntries(CHAIN_OUTCOMES.map((o) => [o, 0])) as Record<ChainOutcome, number>;
    const qaOf = new Map(qas.map((q) => [q.id, q]));
    const seen = new Set<string>();
    for (const t of trajs) {
      const qa = qaOf.get(t.qa_id)!;
      // A trajectory has no attempt number; rollouts come QA-major, so the first seen per question is its first sample.
      if (seen.has(qa.id)) continue;
      seen.add(qa.id);
      if (levels.get(qa.id)!.hops < 2) continue;
      const st = t.steps as AgentStep[];
      const windows = st.map((_, i) => tok.decode(policyPrompt(tok, qa.question, st.slice(0, i), model.config.blockSize, TURN_TOKENS)));
      tally[classifyChain({ steps: st, windows, bridges: bridgeIds(qa).map((id) => names.get(id) ?? id), correct: isCorrect(t.reward), prediction: t.prediction })]++;
    }
    console.log(`  chained (hops >= 2), first sample: ${CHAIN_OUTCOMES.map((o) => `${o} ${tally[o]}`).join(', ')}`);
  }
}
