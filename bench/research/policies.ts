// A run's policy against its baselines, on the same held-out questions, seeds and simulated web, in one
// table: an untrained model of the same size (the floor), the base model the run started from (when it
// did), the run's checkpoints (SFT, then SFT + RL where the run had an RL stage, or from a second run
// `--rl RUN` that continued it), and the expert (the ceiling its RFT data came from). Greedy by default,
// as pass@1 is reported. Prints pass@1 with its 95% interval, tool calls, turns and terminations.
// Run: npx tsx bench/research/policies.ts --home DIR --run RUN_ID [--steps 2000,last] [--rl RL_RUN_ID] [--questions 200] [--temperature 0]
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import type { Trajectory } from '../../main/lab/formats';
import { readJsonFile } from '../../main/lab/store/files';
import { selectBackend } from '../../main/lab/model/backend';
import { readGraphFile } from '../../main/lab/kg/io';
import { readDataset } from '../../main/lab/synth/dataset';
import { SimWeb } from '../../main/lab/agent/web';
import { simToolset } from '../../main/lab/agent/env';
import { resolvePolicy, type PolicyFactory } from '../../main/lab/agent/policies';
import { rolloutDataset } from '../../main/lab/agent/rollout';
import { evaluate, sampleFromTrajectory, wilsonInterval } from '../../main/lab/agent/eval';
import { Tokenizer } from '../../main/lab/model/tokenizer';
import { createModel, resolveGPTConfig } from '../../main/lab/model/gpt';
import { loadCheckpoint } from '../../main/lab/model/checkpoint';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import { checkpointDir, checkpointSteps, dataDir, runFile } from '../../main/lab/runs/layout';
import { checkpointPolicy } from '../../main/lab/train/policy/policy';
import { runEnvironment } from '../../main/lab/train/policy/checkpoints';
import { modelStart } from '../../main/lab/train/policy/base-model';

const { values } = parseArgs({
  options: {
    home: { type: 'string' },
    run: { type: 'string' },
    steps: { type: 'string', default: 'last' },
    rl: { type: 'string' },
    questions: { type: 'string', default: '200' },
    temperature: { type: 'string', default: '0' },
  },
});
if (!values.home || !values.run) throw new Error('usage: bench/research/policies.ts --home DIR --run RUN_ID [--steps 2000,last] [--rl RL_RUN_ID] [--questions N] [--temperature T]');
const home = values.home;
const runId = values.run;
const config = parseRunConfig((readJsonFile(runFile(home, runId)) as { config: unknown }).config);
const { report: backend } = await selectBackend(config.backend === 'auto' ? {} : { only: [config.backend] });
const temperature = Number(values.temperature);
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
/** What a checkpoint of the run was trained by: `SFT`, or `SFT + RL` for steps after the SFT stage. */
const stageOf = (run: string, step: number): string => {
  const c = run === runId ? config : parseRunConfig((readJsonFile(runFile(home, run)) as { config: unknown }).config);
  return run !== runId || step > c.sft.steps ? `SFT + ${c.rl?.algorithm.toUpperCase() ?? 'RL'}` : 'SFT';
};
const checkpoints = async (run: string, which: number[]): Promise<Array<[string, PolicyFactory]>> =>
  Promise.all(which.map(async (s): Promise<[string, PolicyFactory]> => [`${stageOf(run, s)} step ${s}`, model(`ckpt:${run}/${s}`, (await loadCheckpoint(checkpointDir(home, run, s))).model)]));
const origin = modelStart(config, home);
const base = origin.kind === 'base' ? origin : null;
const contenders: Array<[string, PolicyFactory]> = [
  ['untrained (same size)', model('untrained', createModel(resolveGPTConfig({ ...gptConfig }), { seed: 12345 }))],
  ...(base ? [['base model', model('base', (await loadCheckpoint(base.dir)).model)] as [string, PolicyFactory]] : []),
  ...(await checkpoints(runId, steps)),
  ...(values.rl ? await checkpoints(values.rl, [checkpointSteps(home, values.rl).at(-1)!]) : []),
  ['expert (oracle)', resolvePolicy('oracle', { anchorName: (id) => web.page(`sim://${id}`)?.title, expert: { maxCalls: env.maxToolCalls - 1 } })],
];

console.log(`run ${runId}: ${qas.length} held-out questions, env topK ${config.env.topK} / evidence ${config.env.maxEvidence} / ${env.maxToolCalls} calls, temperature ${temperature}, backend ${backend.chosen}`);
console.log(`${'policy'.padEnd(24)} ${'pass@1'.padStart(7)} ${'95% CI'.padStart(13)} ${'calls'.padStart(6)} ${'turns'.padStart(6)}  terminations`);
for (const [name, factory] of contenders) {
  const t0 = performance.now();
  const trajs: Trajectory[] = await rolloutDataset(qas, factory, tools, { n: 1, seed: 7, limits });
  const r = evaluate(trajs.map((t) => sampleFromTrajectory(t)), 1);
  const term: Record<string, number> = {};
  for (const t of trajs) term[t.termination] = (term[t.termination] ?? 0) + 1;
  const mean = (f: (t: Trajectory) => number) => trajs.reduce((a, t) => a + f(t), 0) / trajs.length;
  console.log(
    `${name.padEnd(24)} ${r['pass@1'].toFixed(3).padStart(7)} ${interval(r['pass@1'], trajs.length).padStart(13)} ${mean((t) => t.tool_calls).toFixed(1).padStart(6)} ${mean((t) => t.steps.length).toFixed(1).padStart(6)}  ${JSON.stringify(term)}  (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
  );
}

function interval(p: number, n: number): string {
  const [lo, hi] = wilsonInterval(Math.round(p * n), n);
  return `${lo.toFixed(2)}–${hi.toFixed(2)}`;
}
