// A run's policy against its baselines, on the same held-out questions, seeds and simulated web:
// the expert (the ceiling its RFT data came from), an untrained model of the same size (the floor),
// and the run's checkpoints. Prints pass@1, tool calls, turns and terminations for each.
// Run: npx tsx bench/policies.ts --home DIR --run RUN_ID [--steps 200,last] [--questions 40] [--temperature 0.7]
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import type { Trajectory } from '../main/lab/formats';
import { readJsonFile } from '../main/lab/store/files';
import { selectBackend } from '../main/lab/compute/backend';
import { readGraphFile } from '../main/lab/kg/io';
import { readDataset } from '../main/lab/synth/dataset';
import { SimWeb } from '../main/lab/agent/web';
import { simToolset } from '../main/lab/agent/env';
import { resolvePolicy, type PolicyFactory } from '../main/lab/agent/policies';
import { rolloutDataset } from '../main/lab/agent/rollout';
import { evaluate, sampleFromTrajectory } from '../main/lab/agent/eval';
import { Tokenizer } from '../main/lab/model/tokenizer';
import { createModel, resolveGPTConfig } from '../main/lab/model/gpt';
import { loadCheckpoint } from '../main/lab/model/checkpoint';
import { parseRunConfig } from '../main/lab/contract/run-config';
import { checkpointDir, checkpointSteps, dataDir, runFile } from '../main/lab/runs/layout';
import { checkpointPolicy } from '../main/lab/train/policy';
import { runEnvironment } from '../main/lab/train/checkpoints';

const { values } = parseArgs({
  options: {
    home: { type: 'string' },
    run: { type: 'string' },
    steps: { type: 'string', default: 'last' },
    questions: { type: 'string', default: '40' },
    temperature: { type: 'string' },
  },
});
if (!values.home || !values.run) throw new Error('usage: bench/policies.ts --home DIR --run RUN_ID [--steps 200,last] [--questions N] [--temperature T]');
const home = values.home;
const runId = values.run;
const config = parseRunConfig((readJsonFile(runFile(home, runId)) as { config: unknown }).config);
const { report: backend } = await selectBackend(config.backend === 'auto' ? {} : { only: [config.backend] });
const temperature = values.temperature !== undefined ? Number(values.temperature) : config.eval.temperature;
const graph = readGraphFile(join(home, 'graphs', `${config.data.graphId}.json`));
const qas = readDataset(join(home, 'datasets', `${config.data.heldOutDatasetId}.jsonl`)).qas.slice(0, Number(values.questions));
const env = runEnvironment(config);
const web = new SimWeb(graph, env.web);
const tools = simToolset(web);
const limits = { maxToolCalls: env.maxToolCalls, maxNewTokens: 400 };
const tok = Tokenizer.fromJSON(readJsonFile(join(dataDir(home, runId), 'tokenizer.json')));
const all = checkpointSteps(home, runId);
const steps = values.steps!.split(',').map((s) => (s === 'last' ? all.at(-1)! : Number(s)));

const model = (name: string, m: Parameters<typeof checkpointPolicy>[0]): PolicyFactory => ({ spec: name, kind: 'ckpt', forQA: () => checkpointPolicy(m, tok, { name, temperature }) });
const gptConfig = (await loadCheckpoint(checkpointDir(home, runId, all.at(-1)!))).model.config;
const contenders: Array<[string, PolicyFactory]> = [
  ['expert (oracle)', resolvePolicy('oracle', { anchorName: (id) => web.page(`sim://${id}`)?.title, expert: { maxCalls: env.maxToolCalls - 1 } })],
  ['untrained (same size)', model('untrained', createModel(resolveGPTConfig({ ...gptConfig }), { seed: 12345 }))],
  ...(await Promise.all(steps.map(async (s): Promise<[string, PolicyFactory]> => [`SFT step ${s}`, model(`ckpt:${runId}/${s}`, (await loadCheckpoint(checkpointDir(home, runId, s))).model)]))),
];

console.log(`run ${runId}: ${qas.length} held-out questions, env topK ${config.env.topK} / evidence ${config.env.maxEvidence} / ${env.maxToolCalls} calls, temperature ${temperature}, backend ${backend.chosen}`);
console.log(`${'policy'.padEnd(24)} ${'pass@1'.padStart(7)} ${'calls'.padStart(6)} ${'turns'.padStart(6)}  terminations`);
for (const [name, factory] of contenders) {
  const t0 = performance.now();
  const trajs: Trajectory[] = await rolloutDataset(qas, factory, tools, { n: 1, seed: 7, limits });
  const r = evaluate(trajs.map((t) => sampleFromTrajectory(t)), 1);
  const term: Record<string, number> = {};
  for (const t of trajs) term[t.termination] = (term[t.termination] ?? 0) + 1;
  const mean = (f: (t: Trajectory) => number) => trajs.reduce((a, t) => a + f(t), 0) / trajs.length;
  console.log(
    `${name.padEnd(24)} ${r['pass@1'].toFixed(3).padStart(7)} ${mean((t) => t.tool_calls).toFixed(1).padStart(6)} ${mean((t) => t.steps.length).toFixed(1).padStart(6)}  ${JSON.stringify(term)}  (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
  );
}
