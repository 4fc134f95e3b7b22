// DUPO, DAPO and GRPO from the same SFT checkpoint, same questions and seed: training reward and held-out
// pass@1 against wall-clock time, each algorithm a real `sailor train` run (the run config's `init` and
// `rl` sections) in the checkpoint's data directory, one after the other on an otherwise idle machine.
// Prints a table (final reward, pass@1, seconds; the time each reached DAPO's final training reward) and
// writes the series to bench/results/rl-algorithms.json and a two-panel chart to bench/results/rl-algorithms.svg.
// Run: npx tsx bench/research/rl-algorithms.ts --home DIR --checkpoint RUN/STEP [--steps 40] [--algorithms dupo,dapo,grpo]
//      [--rl '{"batchQuestions":8}'] [--rng 1]
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readJsonFile } from '../../main/lab/store/files';
import { readMetrics } from '../../main/lab/runs/metrics';
import { metricsFile, parseCheckpointRef, runFile } from '../../main/lab/runs/layout';

const { values } = parseArgs({
  options: {
    home: { type: 'string' },
    checkpoint: { type: 'string' },
    steps: { type: 'string', default: '40' },
    algorithms: { type: 'string', default: 'dupo,dapo,grpo' },
    rl: { type: 'string', default: '{}' },
    rng: { type: 'string', default: '1' },
  },
});
const ref = values.checkpoint && parseCheckpointRef(values.checkpoint);
if (!values.home || !ref) throw new Error('usage: bench/research/rl-algorithms.ts --home DIR --checkpoint RUN/STEP [--steps N] [--algorithms dupo,dapo,grpo] [--rl JSON] [--rng S]');
const home = values.home;
const source = readJsonFile(runFile(home, ref.runId)) as { config: { data: Record<string, string> } };
const extra = JSON.parse(values.rl!) as Record<string, unknown>;
// Every line starts from the checkpoint's own held-out pass@1, at 0 s.
const startStep = ref.step === 'last' ? undefined : ref.step;
const startPass = readMetrics(metricsFile(home, ref.runId)).findLast((m) => m.metrics['eval/pass@1'] !== undefined && (startStep === undefined || m.step === startStep))?.metrics['eval/pass@1'];

interface Point {
  seconds: number;
  step: number;
  reward?: number;
  passAt1?: number;
}
const series: Record<string, Point[]> = {};
mkdirSync('bench/results', { recursive: true });
for (const algorithm of values.algorithms!.split(',')) {
  const config = {
    name: `${algorithm} from ${values.checkpoint}`,
    rng: Number(values.rng),
    data: source.config.data,
    init: { checkpoint: values.checkpoint },
    rl: { evalEvery: 10, ...extra, algorithm, steps: Number(values.steps) },
  };
  const file = join('bench/results', `rl-${algorithm}.json`);
  writeFileSync(file, JSON.stringify(config));
  console.error(`${algorithm}: training ${values.steps} RL steps from ${values.checkpoint}`);
  const r = spawnSync(process.execPath, ['bin/sailor.mjs', 'train', '--config', file, '--json'], { encoding: 'utf8', env: { ...process.env, SAILOR_HOME: home }, maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${algorithm}: sailor train failed:\n${r.stderr.slice(-2000)}`);
  const runId = (JSON.parse(r.stdout) as { artefact: { id: string } }).artefact.id;
  const records = readMetrics(metricsFile(home, runId));
  // From the run's creation: DUPO's one-off too-easy filter counts against it.
  const t0 = Date.parse((readJsonFile(runFile(home, runId)) as { createdAt: string }).createdAt);
  series[algorithm] = [
    ...(startPass === undefined ? [] : [{ seconds: 0, step: 0, passAt1: startPass }]),
    ...records.map((m) => ({ seconds: (Date.parse(m.time) - t0) / 1000, step: m.step, reward: m.metrics['reward/mean'], passAt1: m.metrics['eval/pass@1'] })),
  ];
}

// ---- the table
const last = (pts: Point[], k: 'reward' | 'passAt1'): Point | undefined => [...pts].reverse().find((p) => p[k] !== undefined);
/** The training reward, smoothed over 5 steps, so one lucky batch does not count as reaching a level. */
const smoothReward = (pts: Point[]): Point[] => {
  const r = pts.filter((p) => p.reward !== undefined);
  return r.map((p, i) => ({ ...p, reward: r.slice(Math.max(0, i - 4), i + 1).reduce((a, q) => a + q.reward!, 0) / Math.min(5, i + 1) }));
};
const dapoTarget = series.dapo ? last(smoothReward(series.dapo), 'reward')?.reward : undefined;
console.log(`RL from ${values.checkpoint}, ${values.steps} steps each, rng ${values.rng}${dapoTarget !== undefined ? `; DAPO's final training reward (5-step mean) ${dapoTarget.toFixed(3)}` : ''}`);
console.log(`${'algorithm'.padEnd(10)} ${'seconds'.padStart(8)} ${'reward'.padStart(7)} ${'pass@1'.padStart(7)} ${'SFT pass@1'.padStart(11)} ${"reaches DAPO's reward at".padStart(25)}`);
for (const [algorithm, pts] of Object.entries(series)) {
  const reach = dapoTarget === undefined ? undefined : smoothReward(pts).find((p) => p.reward! >= dapoTarget);
  const evals = pts.filter((p) => p.passAt1 !== undefined);
  console.log(
    `${algorithm.padEnd(10)} ${pts.at(-1)!.seconds.toFixed(0).padStart(8)} ${(last(smoothReward(pts), 'reward')?.reward ?? NaN).toFixed(3).padStart(7)} ${(evals.at(-1)?.passAt1 ?? NaN).toFixed(3).padStart(7)} ${(evals[0]?.passAt1 ?? NaN).toFixed(3).padStart(11)} ${(reach ? `${reach.seconds.toFixed(0)} s (step ${reach.step})` : 'never').padStart(25)}`,
  );
}
writeFileSync('bench/results/rl-algorithms.json', JSON.stringify({ checkpoint: values.checkpoint, steps: Number(values.steps), rng: Number(values.rng), series }, null, 1));
writeFileSync('bench/results/rl-algorithms.svg', chart(series));
console.log('series: bench/results/rl-algorithms.json, chart: bench/results/rl-algorithms.svg');

/** Two panels, training reward (5-step mean) and held-out pass@1, each against seconds since the RL stage began. */
function chart(all: Record<string, Point[]>): string {
  const W = 420;
  const H = 260;
  const colours = ['#2b6cb0', '#c05621', '#2f855a', '#6b46c1'];
  const tMax = Math.max(...Object.values(all).flatMap((p) => p.map((q) => q.seconds)), 1);
  const panel = (x0: number, title: string, pick: (pts: Point[]) => Array<[number, number]>): string => {
    const px = (t: number): number => x0 + 40 + ((W - 60) * t) / tMax;
    const py = (v: number): number => 30 + (H - 70) * (1 - v);
    const lines = Object.entries(all).map(([name, pts], i) => {
      const xy = pick(pts);
      const d = xy.map(([t, v], j) => `${j ? 'L' : 'M'}${px(t).toFixed(1)},${py(v).toFixed(1)}`).join(' ');
      return `<path d="${d}" fill="none" stroke="${colours[i % colours.length]}" stroke-width="2"/>` +
        `<text x="${x0 + W - 80}" y="${40 + 16 * i}" fill="${colours[i % colours.length]}" font-size="12">${name}</text>`;
    });
    const ticks = [0, 0.5, 1].map((v) => `<text x="${x0 + 8}" y="${py(v) + 4}" font-size="10">${v}</text>`).join('');
    return `<text x="${x0 + 40}" y="18" font-size="13">${title}</text><rect x="${x0 + 40}" y="30" width="${W - 60}" height="${H - 70}" fill="none" stroke="#ccc"/>${ticks}` +
      `<text x="${x0 + 40}" y="${H - 22}" font-size="10">0 s</text><text x="${x0 + W - 50}" y="${H - 22}" font-size="10">${tMax.toFixed(0)} s</text>${lines.join('')}`;
  };
  const reward = panel(0, 'training reward (5-step mean) vs wall clock', (pts) => smoothReward(pts).map((p) => [p.seconds, p.reward!]));
  const pass = panel(W, 'held-out pass@1 (greedy) vs wall clock', (pts) => pts.filter((p) => p.passAt1 !== undefined).map((p) => [p.seconds, p.passAt1!]));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * W}" height="${H}" font-family="sans-serif">${reward}${pass}</svg>\n`;
}
