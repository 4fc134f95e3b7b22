// The RL stage's two speed claims, measured on this machine with the real trainer (rl-job) and real updates:
//
//   1. DUPO vs DAPO dynamic sampling (WebSailor 4.2: DUPO "about 2-3x faster"): the same starting policy,
//      questions and seeds; wall time (rollouts + update) per effective batch, i.e. per step whose batch had
//      batchQuestions groups with signal. DUPO's one-off too-easy filter is reported apart and amortised.
//   2. sync vs async rollouts (ASearcher): trajectories trained per second of the RL stage, same policy,
//      questions and update. (a) The tiny model plays its own rollouts, no latency added: sync rolls out and
//      then updates on one thread; async plays on a rollout thread while the learner updates (two cores).
//      (b) with `--turn-ms` above 0, also a long-tailed mix of scripted turns that each wait that long (a
//      remote model or a real web search), where async gains by not waiting for the slowest rollout.
//
// The policy: the tiny model after a short SFT cannot answer yet (every reward 0, so every group would be
// zero-std and both methods would only skip), so the answers are scripted to give a controlled mix:
// a third of the questions always right, a third always wrong, a third right on even samples.
//   part 1: each turn is sampled by the model (its real cost, tokens and log-probs go to the update);
//           only the text the environment sees is scripted;
//   part 2: (a) the model's own rollouts, rewarded as they come (format and answer); (b) scripted turns that
//           wait `--turn-ms` each.
// Run: npx tsx bench/rl.ts [--steps 6] [--turn-ms 25] [--json]
import { parseArgs } from 'node:util';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { QA } from '../main/lab/formats';
import type { Policy } from '../main/lab/agent/runtime';
import { readJsonl } from '../main/lab/store/files';
import { seedFrom } from '../main/lab/util/rng';
import { readMetrics } from '../main/lab/runs/metrics';
import { metricsFile, rolloutSteps, rolloutsFile } from '../main/lab/runs/layout';
import { runTrain, type TrainHooks } from '../main/lab/train/sft/sft-job';
import { labHome, testContext, writeRun } from '../tests/support/rl-run-helpers';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '6' },
    'turn-ms': { type: 'string', default: '25' },
    json: { type: 'boolean', default: false },
  },
});
const steps = Number(values.steps);
const turnMs = Number(values['turn-ms']);
const log = (...xs: unknown[]): void => console.error(...xs);

// ---- a data directory with a small invented world (the RL tests', with 60 training questions) and a starting checkpoint
const home = labHome(60);
const base = {
  data: { graphId: 'g', datasetId: 'train', heldOutDatasetId: 'held' },
  backend: 'wasm',
  tokenizer: { vocabSize: 512 },
  model: { base: 'none', preset: 'tiny' },
  rft: { attempts: 1 },
  env: { maxToolCalls: 10 },
  eval: { questions: 2, every: 1000 },
};
const ctx = testContext(home);
async function run(runId: string, config: Record<string, unknown>, hooks: TrainHooks = {}): Promise<{ seconds: number; records: ReturnType<typeof readMetrics> }> {
  writeRun(home, runId, { ...base, ...config });
  const t0 = performance.now();
  await runTrain({ runId }, ctx, hooks);
  return { seconds: (performance.now() - t0) / 1000, records: readMetrics(metricsFile(home, runId)) };
}

log(`host: load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
log('starting policy: 40 SFT steps of the tiny model...');
await run('sft', { sft: { steps: 40, batchSize: 8, warmupSteps: 5 } });
// Part 2 (a) needs a policy whose own rollouts differ in reward (else every group has zero std and nothing
// updates): after 400 steps it writes well-formed turns some of the time.
log('a second starting policy: 400 SFT steps...');
await run('sft400', { sft: { steps: 400, batchSize: 8, warmupSteps: 20 } });

const kind = (qa: QA): 'right' | 'wrong' | 'mixed' => (['right', 'wrong', 'mixed'] as const)[seedFrom(qa.id) % 3]!;
const correct = (qa: QA, sample: number): boolean => kind(qa) === 'right' || (kind(qa) === 'mixed' && sample % 2 === 0);
const say = (qa: QA, sample: number, n: number, searches: number): string =>
  n <= searches
    ? `<think>\nSearch.\n</think>\n<tool_call>\n${JSON.stringify({ name: 'search', arguments: { query: [qa.question.split(' ').slice(0, 4).join(' ')] } })}\n</tool_call>`
    : `<think>\nDone.\n</think>\n<answer>${correct(qa, sample) ? qa.answer : 'nobody'}</answer>`;

// ---- 1. DUPO vs DAPO
const modelCost: TrainHooks = {
  rolloutPolicy: (qa, sample, model): Policy => {
    let n = 0;
    return {
      name: 'model-cost',
      async generate(context, g) {
        await model.generate(context, g); // the model samples the turn: its time, tokens and log-probs are real
        return say(qa, sample, ++n, 2);
      },
    };
  },
};
const rlBase = { steps, groupSize: 8, batchQuestions: 4, evalEvery: 1000, checkpointEvery: 1000, dapoMaxRounds: 4 };
const perMethod: Record<string, { perBatch: number; full: number; steps: number; seconds: number; rolloutSeconds: number; rollouts: number; filterSeconds: number }> = {};
for (const algorithm of ['dupo', 'dapo'] as const) {
  log(`${algorithm}: ${steps} steps of 4 questions x 8 rollouts...`);
  const r = await run(algorithm, { sft: { steps: 0 }, init: { checkpoint: 'sft/40' }, rl: { ...rlBase, algorithm } }, modelCost);
  const rl = r.records.filter((x) => x.step > 0);
  const stepSeconds = rl.reduce((a, x) => a + x.metrics['timing/rollout_s']! + x.metrics['timing/update_s']!, 0);
  // An effective batch: the update had batchQuestions slots of groups with signal (DUPO's copies count).
  const files = rolloutSteps(home, algorithm).map((s) => readJsonl(rolloutsFile(home, algorithm, s)).records);
  const full = files.filter((lines) => {
    const plan = (lines[0]!.value as { plan: { skip: boolean; groups: Array<{ copies: number }> } }).plan;
    return !plan.skip && plan.groups.reduce((a, g) => a + g.copies, 0) === rlBase.batchQuestions;
  }).length;
  const rollouts = files.reduce((a, lines) => a + lines.length - 1, 0);
  const rolloutSeconds = rl.reduce((a, x) => a + x.metrics['timing/rollout_s']!, 0);
  perMethod[algorithm] = {
    perBatch: stepSeconds / Math.max(1, full), full, steps: rl.length, seconds: stepSeconds, rolloutSeconds, rollouts,
    filterSeconds: r.seconds - stepSeconds,
  }; // overhead for now
}

// ---- 2. sync vs async
const latency: TrainHooks = {
  rolloutPolicy: (qa, sample): Policy => {
    // Long tail: one rollout in six searches 9 times, the others once.
    const searches = seedFrom(`${qa.id}/${sample}`) % 6 === 0 ? 9 : 1;
    let n = 0;
    return {
      name: 'latency',
      async generate() {
        await new Promise((resolve) => setTimeout(resolve, turnMs));
        return say(qa, sample, ++n, searches);
      },
    };
  },
};
interface ModeFigures {
  trajectories: number;
  seconds: number;
  perSecond: number;
  updates: number;
  staleDropped: number;
  stalenessMax: number;
}
async function modes(label: string, start: string, hooks: TrainHooks): Promise<Record<'sync' | 'async', ModeFigures>> {
  const out: Partial<Record<'sync' | 'async', ModeFigures>> = {};
  for (const mode of ['sync', 'async'] as const) {
    log(`${label}, ${mode}: ${steps * 2} GRPO steps of 4 questions x 4 rollouts...`);
    const r = await run(`${label}-${mode}`, { sft: { steps: 0 }, init: { checkpoint: start }, rl: { ...rlBase, steps: steps * 2, groupSize: 4, algorithm: 'grpo', mode, workers: 8, maxStaleness: 1 } }, hooks);
    const rl = r.records.filter((x) => x.step > 0);
    const trajectories = rl.length * 4 * 4;
    out[mode] = {
      trajectories,
      // The RL stage's steps (loading the checkpoint and starting threads are outside the comparison).
      seconds: rl.reduce((a, x) => a + x.metrics['timing/rollout_s']! + x.metrics['timing/update_s']!, 0),
      perSecond: 0,
      updates: rl.filter((x) => x.metrics['batch/skipped'] === 0).length,
      staleDropped: rl.reduce((a, x) => a + (x.metrics['rollout/stale_dropped'] ?? 0), 0),
      stalenessMax: Math.max(0, ...rl.map((x) => x.metrics['rollout/staleness_max'] ?? 0)),
    };
    out[mode]!.perSecond = trajectories / out[mode]!.seconds;
  }
  return out as Record<'sync' | 'async', ModeFigures>;
}
const perMode = await modes('model', 'sft400/400', {});
const perModeLatency = turnMs > 0 ? await modes('latency', 'sft/40', latency) : null;
rmSync(home, { recursive: true, force: true });
// Outside the steps both runs load the checkpoint and evaluate and save at the end; DUPO also filters.
perMethod.dupo!.filterSeconds = Math.max(0, perMethod.dupo!.filterSeconds - perMethod.dapo!.filterSeconds);

const ratioMethods = perMethod.dapo!.perBatch / perMethod.dupo!.perBatch;
const ratioModes = perMode.async.perSecond / perMode.sync.perSecond;
const ratioLatency = perModeLatency ? perModeLatency.async.perSecond / perModeLatency.sync.perSecond : null;
if (values.json) {
  console.log(
    JSON.stringify({
      steps, turnMs, methods: perMethod, dapoOverDupo: ratioMethods, modes: perMode, asyncOverSync: ratioModes,
      latencyModes: perModeLatency, latencyAsyncOverSync: ratioLatency,
    }, null, 2),
  );
} else {
  console.log('DUPO vs DAPO (same policy, questions, seeds; 4 questions x 8 rollouts per batch):');
  for (const [m, x] of Object.entries(perMethod)) {
    console.log(`  ${m.padEnd(5)} ${x.perBatch.toFixed(2)} s per effective batch  (${x.full} full of ${x.steps} steps; ${x.rollouts} rollouts; ${x.rolloutSeconds.toFixed(1)} s rolling out + ${(x.seconds - x.rolloutSeconds).toFixed(1)} s updating)`);
  }
  console.log(`  DUPO's too-easy filter (once): ${perMethod.dupo!.filterSeconds.toFixed(1)} s, i.e. ${(perMethod.dupo!.filterSeconds / steps).toFixed(2)} s per step over this run`);
  console.log(`  DAPO / DUPO time per effective batch: ${ratioMethods.toFixed(2)}x`);
  const show = (title: string, rows: Record<string, ModeFigures>, ratio: number): void => {
    console.log(title);
    for (const [m, x] of Object.entries(rows)) {
      console.log(`  ${m.padEnd(5)} ${x.perSecond.toFixed(1)} trajectories/s  (${x.trajectories} in ${x.seconds.toFixed(1)} s, ${x.updates} updates; stale dropped ${x.staleDropped}, staleness max ${x.stalenessMax})`);
    }
    console.log(`  async / sync: ${ratio.toFixed(2)}x`);
  };
  show('sync vs async, the tiny model playing its own rollouts (GRPO, no added latency, 8 in flight):', perMode, ratioModes);
  if (perModeLatency) show(`sync vs async, scripted long-tailed turns of ${turnMs} ms (GRPO, 8 in flight):`, perModeLatency, ratioLatency!);
}
