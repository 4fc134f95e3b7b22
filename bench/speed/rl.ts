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
// On a shared machine: `--rounds N` runs part 1 N times, DUPO and DAPO alternated (ABBA), each ratio within
// its round; `--parts methods` leaves part 2 out (and its 400-step starting policy). Each run's process CPU
// time (every thread) is reported beside its wall time.
// Run: npx tsx bench/speed/rl.ts [--steps 6] [--turn-ms 25] [--rounds 1] [--parts methods,modes] [--sft-steps 400] [--in-flight 8] [--json]
import { parseArgs } from 'node:util';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { QA } from '../../main/lab/formats';
import type { Policy } from '../../main/lab/agent/runtime';
import { readJsonl } from '../../main/lab/store/files';
import { seedFrom } from '../../main/lab/util/rng';
import { readMetrics } from '../../main/lab/runs/metrics';
import { metricsFile, rolloutSteps, rolloutsFile } from '../../main/lab/runs/layout';
import { runTrain, type TrainHooks } from '../../main/lab/train/job/train-job';
import { labHome, testContext, writeRun } from '../../tests/support/rl-run-helpers';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '6' },
    'turn-ms': { type: 'string', default: '25' },
    rounds: { type: 'string', default: '1' },
    parts: { type: 'string', default: 'methods,modes' },
    'sft-steps': { type: 'string', default: '400' },
    /** Rollouts in flight (rl.workers) in part 2. */
    'in-flight': { type: 'string', default: '8' },
    json: { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const parts = new Set(values.parts.split(','));
const steps = Number(values.steps);
const turnMs = Number(values['turn-ms']);
const sftSteps = Number(values['sft-steps']); // part 2's starting policy (fewer: sooner, with fewer well-formed turns)
const inFlight = Number(values['in-flight']); // part 2's rollouts in flight (rl.workers)
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
type RunFigures = { seconds: number; cpuSeconds: number; records: ReturnType<typeof readMetrics> };
async function run(runId: string, config: Record<string, unknown>, hooks: TrainHooks = {}): Promise<RunFigures> {
  writeRun(home, runId, { ...base, ...config });
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await runTrain({ runId }, ctx, hooks);
  const c = process.cpuUsage(c0);
  return { seconds: (performance.now() - t0) / 1000, cpuSeconds: (c.user + c.system) / 1e6, records: readMetrics(metricsFile(home, runId)) };
}

log(`host: load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
log('starting policy: 40 SFT steps of the tiny model...');
await run('sft', { sft: { steps: 40, batchSize: 8, warmupSteps: 5 } });
// Part 2 (a) needs a policy whose own rollouts differ in reward (else every group has zero std and nothing
// updates): after 400 steps it writes well-formed turns some of the time.
if (parts.has('modes')) {
  log(`a second starting policy: ${sftSteps} SFT steps...`);
  await run('sft400', { sft: { steps: sftSteps, batchSize: 8, warmupSteps: 20 }, checkpoint: { every: sftSteps } });
}

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
interface MethodFigures {
  perBatch: number; full: number; steps: number; seconds: number; rolloutSeconds: number; rollouts: number; filterSeconds: number;
  runCpuSeconds: number; runSeconds: number;
}
const methodRounds: Record<string, MethodFigures>[] = [];
for (let round = 0; round < rounds; round++) {
  const perRound: Record<string, MethodFigures> = {};
  for (const algorithm of round % 2 === 0 ? (['dupo', 'dapo'] as const) : (['dapo', 'dupo'] as const)) {
    log(`round ${round + 1}, ${algorithm}: ${steps} steps of 4 questions x 8 rollouts... (load ${loadavg()[0]!.toFixed(1)})`);
    const id = `${algorithm}-${round}`;
    const r = await run(id, { sft: { steps: 0 }, init: { checkpoint: 'sft/40' }, rl: { ...rlBase, algorithm } }, modelCost);
    const rl = r.records.filter((x) => x.step > 0);
    const stepSeconds = rl.reduce((a, x) => a + x.metrics['timing/rollout_s']! + x.metrics['timing/update_s']!, 0);
    // An effective batch: the update had batchQuestions slots of groups with signal (DUPO's copies count).
    const files = rolloutSteps(home, id).map((s) => readJsonl(rolloutsFile(home, id, s)).records);
    const full = files.filter((lines) => {
      const plan = (lines[0]!.value as { plan: { skip: boolean; groups: Array<{ copies: number }> } }).plan;
      return !plan.skip && plan.groups.reduce((a, g) => a + g.copies, 0) === rlBase.batchQuestions;
    }).length;
    const rollouts = files.reduce((a, lines) => a + lines.length - 1, 0);
    const rolloutSeconds = rl.reduce((a, x) => a + x.metrics['timing/rollout_s']!, 0);
    perRound[algorithm] = {
      perBatch: stepSeconds / Math.max(1, full), full, steps: rl.length, seconds: stepSeconds, rolloutSeconds, rollouts,
      filterSeconds: r.seconds - stepSeconds, runCpuSeconds: r.cpuSeconds, runSeconds: r.seconds,
    }; // overhead for now
  }
  // Outside the steps both runs load the checkpoint and evaluate and save at the end; DUPO also filters.
  perRound.dupo!.filterSeconds = Math.max(0, perRound.dupo!.filterSeconds - perRound.dapo!.filterSeconds);
  methodRounds.push(perRound);
}
const perMethod = methodRounds[0]!;
const roundRatios = methodRounds.map((m) => m.dapo!.perBatch / m.dupo!.perBatch);

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
  /** The whole run (checkpoint load, threads' start and the end's evaluation included): wall and CPU seconds. */
  runSeconds: number;
  runCpuSeconds: number;
}
async function modes(label: string, start: string, hooks: TrainHooks): Promise<Record<'sync' | 'async', ModeFigures>> {
  const out: Partial<Record<'sync' | 'async', ModeFigures>> = {};
  for (const mode of ['sync', 'async'] as const) {
    log(`${label}, ${mode}: ${steps * 2} GRPO steps of 4 questions x 4 rollouts...`);
    const r = await run(`${label}-${mode}`, { sft: { steps: 0 }, init: { checkpoint: start }, rl: { ...rlBase, steps: steps * 2, groupSize: 4, algorithm: 'grpo', mode, workers: inFlight, maxStaleness: 1 } }, hooks);
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
      runSeconds: r.seconds,
      runCpuSeconds: r.cpuSeconds,
    };
    out[mode]!.perSecond = trajectories / out[mode]!.seconds;
  }
  return out as Record<'sync' | 'async', ModeFigures>;
}
const perMode = parts.has('modes') ? await modes('model', `sft400/${sftSteps}`, {}) : null;
const perModeLatency = parts.has('modes') && turnMs > 0 ? await modes('latency', 'sft/40', latency) : null;
rmSync(home, { recursive: true, force: true });
const ratioMethods = [...roundRatios].sort((a, b) => a - b)[Math.floor(roundRatios.length / 2)]!; // the median round
const ratioModes = perMode ? perMode.async.perSecond / perMode.sync.perSecond : null;
const ratioLatency = perModeLatency ? perModeLatency.async.perSecond / perModeLatency.sync.perSecond : null;
if (values.json) {
  console.log(
    JSON.stringify({
      steps, turnMs, methods: perMethod, methodRounds, roundRatios, dapoOverDupo: ratioMethods, modes: perMode, asyncOverSync: ratioModes, loadAfter: loadavg(),
      latencyModes: perModeLatency, latencyAsyncOverSync: ratioLatency,
    }, null, 2),
  );
} else {
  console.log('DUPO vs DAPO (same policy, questions, seeds; 4 questions x 8 rollouts per batch):');
  methodRounds.forEach((round, i) => {
    for (const [m, x] of Object.entries(round)) {
      console.log(`  round ${i + 1} ${m.padEnd(5)} ${x.perBatch.toFixed(2)} s per effective batch  (${x.full} full of ${x.steps} steps; ${x.rollouts} rollouts; ${x.rolloutSeconds.toFixed(1)} s rolling out + ${(x.seconds - x.rolloutSeconds).toFixed(1)} s updating; the run ${x.runSeconds.toFixed(0)} s, ${x.runCpuSeconds.toFixed(0)} s CPU)`);
    }
    console.log(`  round ${i + 1} DUPO's too-easy filter (once): ${round.dupo!.filterSeconds.toFixed(1)} s; DAPO / DUPO per effective batch ${roundRatios[i]!.toFixed(2)}x`);
  });
  console.log(`  DAPO / DUPO time per effective batch (median round): ${ratioMethods.toFixed(2)}x`);
  const show = (title: string, rows: Record<string, ModeFigures>, ratio: number): void => {
    console.log(title);
    for (const [m, x] of Object.entries(rows)) {
      console.log(`  ${m.padEnd(5)} ${x.perSecond.toFixed(1)} trajectories/s  (${x.trajectories} in ${x.seconds.toFixed(1)} s, ${x.updates} updates; stale dropped ${x.staleDropped}, staleness max ${x.stalenessMax})`);
    }
    console.log(`  async / sync: ${ratio.toFixed(2)}x`);
  };
  if (perMode) show(`sync vs async, the tiny model playing its own rollouts (GRPO, no added latency, ${inFlight} in flight):`, perMode, ratioModes!);
  if (perModeLatency) show(`sync vs async, scripted long-tailed turns of ${turnMs} ms (GRPO, ${inFlight} in flight):`, perModeLatency, ratioLatency!);
}
