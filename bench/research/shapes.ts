// Model shape against held-out pass@1 per minute of training (issue #32): for each shape, `sailor pretrain` a
// base model with one recipe (the quick preset's graph held out), then the same `sailor train` SFT run from it
// (SAILOR_BASE_MODEL) on the same data, evaluated greedy on the same held-out questions. Each stage is a child
// process; its CPU time (user + system of all its threads, /proc/PID/stat) is read as its progress lines pass,
// so the training loops are timed apart from the data making and the evaluation. On a shared machine "minutes"
// are CPU-minutes / the threads the loop used (what an idle machine with that many cores would take); wall
// minutes are printed beside them. One shape at a time; prints a table and writes OUT/shapes.json.
// Run: npx tsx bench/research/shapes.ts --data DIR --out DIR [--shapes tiny,4x64,2x128,tiny-512]
//      [--pretrain-steps 2000] [--sft-steps 1000] [--episodes 5000] [--eval-questions 300]
// Size a plan first with bench/speed/shape-steps.ts (one step's CPU time per shape).
// DIR holds the quick preset's data (docs/experiments.md, "quick"): graph.json, train.jsonl, held.jsonl.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { wilsonInterval } from '../../main/lab/contract/stats';
import { SHAPES } from '../lib/shapes-list';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    out: { type: 'string' },
    shapes: { type: 'string', default: 'tiny,4x64,2x128,tiny-512' },
    'pretrain-steps': { type: 'string', default: '2000' },
    'sft-steps': { type: 'string', default: '1000' },
    episodes: { type: 'string', default: '5000' },
    'eval-questions': { type: 'string', default: '300' },
  },
});
if (!values.data || !values.out) throw new Error('usage: bench/research/shapes.ts --data DIR --out DIR [--shapes a,b] [--pretrain-steps N] [--sft-steps N] [--episodes N] [--eval-questions N]');
const data = resolve(values.data);
const out = resolve(values.out);
const pretrainSteps = Number(values['pretrain-steps']);
const sftSteps = Number(values['sft-steps']);
const evalQuestions = Number(values['eval-questions']);
if (!(sftSteps >= 3)) throw new Error('--sft-steps must be at least 3 (the loop is timed between steps 1 and N-1)');
for (const f of ['graph.json', 'train.jsonl', 'held.jsonl']) if (!existsSync(join(data, f))) throw new Error(`${join(data, f)}: missing; make the quick data first (docs/experiments.md)`);
const CLK_TCK = 100; // Linux's USER_HZ, the unit of /proc/PID/stat's utime and stime

/** CPU seconds (user + system, every thread) of a live process. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}

interface Mark {
  cpu: number;
  wall: number;
}

/** Runs `sailor ARGS`, calling `onLine` with each stderr line and a CPU/wall mark taken as it arrives. */
function sailor(args: string[], env: Record<string, string>, onLine: (line: string, mark: Mark) => void): Promise<{ stdout: string; total: Mark }> {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['bin/sailor.mjs', ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let partial = '';
    let last: Mark = { cpu: 0, wall: 0 };
    const mark = (): Mark => {
      try {
        last = { cpu: cpuSeconds(child.pid!), wall: (performance.now() - t0) / 1000 };
      } catch {
        // the process has just exited: keep its last reading
      }
      return last;
    };
    const tail: string[] = [];
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => {
      const lines = (partial + b.toString()).split('\n');
      partial = lines.pop()!;
      const m = mark();
      for (const line of lines) {
        tail.push(line);
        if (tail.length > 20) tail.shift();
        onLine(line, m);
      }
    });
    const poll = setInterval(mark, 1000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearInterval(poll);
      if (code !== 0) fail(new Error(`sailor ${args[0]} exited ${code}:\n${tail.join('\n')}`));
      else done({ stdout, total: { cpu: last.cpu, wall: (performance.now() - t0) / 1000 } });
    });
  });
}

interface Loop {
  steps: number;
  cpuS: number;
  wallS: number;
  threads: number;
}

/** A training loop's CPU and wall seconds for all its steps, from marks at two of its progress lines. */
const loop = (from: Mark, to: Mark, stepsBetween: number, steps: number, threads: number): Loop => ({
  steps,
  cpuS: ((to.cpu - from.cpu) / stepsBetween) * steps,
  wallS: ((to.wall - from.wall) / stepsBetween) * steps,
  threads,
});

async function pretrainShape(name: string, dir: string): Promise<{ loop: Loop; loss: number; params: number; bytes: number }> {
  const s = SHAPES[name]!;
  let from: Mark | undefined;
  let to: Mark | undefined;
  let threads = 1;
  const args = ['pretrain', '--out', dir, '--hold-out', join(data, 'graph.json'), '--steps', String(pretrainSteps), '--episodes', values.episodes!];
  args.push('--n-layer', String(s.nLayer), '--n-embd', String(s.nEmbd), '--n-head', String(s.nHead), '--block-size', String(s.blockSize), '--json');
  const r = await sailor(args, {}, (line, m) => {
    threads = Number(/pretraining on (\d+) thread/.exec(line)?.[1] ?? threads);
    if (/episode rows, \d+ web rows/.test(line)) from = m; // logged just before the loop
    if (line.includes(`pretrain step ${pretrainSteps} of ${pretrainSteps}`)) to = m;
  });
  if (!from || !to) throw new Error(`${name}: pretrain printed no loop start or end`);
  const manifest = JSON.parse(r.stdout) as { metrics: Record<string, number>; weights: { tensors: { shape: number[] }[] } };
  const params = manifest.weights.tensors.reduce((a, t) => a + t.shape.reduce((x, y) => x * y, 1), 0);
  return { loop: loop(from, to, pretrainSteps, pretrainSteps, threads), loss: manifest.metrics['pretrain/loss'] ?? NaN, params, bytes: statSync(join(dir, 'weights.bin')).size };
}

async function sftShape(name: string, baseDir: string): Promise<{ loop: Loop; evalS: Mark; passAt1: number; n: number; runId: string }> {
  const config = {
    name: `shape ${name}: SFT ${sftSteps} from its base model`,
    data: { graphFile: join(data, 'graph.json'), datasetFile: join(data, 'train.jsonl'), heldOutFile: join(data, 'held.jsonl') },
    sft: { steps: sftSteps },
    eval: { every: sftSteps, questions: evalQuestions },
    checkpoint: { every: sftSteps },
  };
  const file = join(out, `sft-${name}.json`);
  writeFileSync(file, JSON.stringify(config, null, 2));
  let threads = 1;
  let first: Mark | undefined;
  let beforeLast: Mark | undefined;
  let evalFrom: Mark | undefined;
  const r = await sailor(['train', '--config', file, '--json'], { SAILOR_HOME: join(out, 'home'), SAILOR_BASE_MODEL: baseDir }, (line, m) => {
    threads = Number(/SFT on (\d+) threads/.exec(line)?.[1] ?? threads);
    if (line.includes(`SFT step 1 of ${sftSteps}:`)) first = m;
    if (line.includes(`SFT step ${sftSteps - 1} of ${sftSteps}:`)) beforeLast = m;
    if (!evalFrom && line.includes(`step ${sftSteps}: evaluating`)) evalFrom = m;
  });
  if (!first || !beforeLast) throw new Error(`${name}: sailor train printed no SFT steps`);
  const summary = JSON.parse(r.stdout) as { artefact: { id: string }; status: string; metrics: Record<string, { last: number }> };
  if (summary.status !== 'finished') throw new Error(`${name}: run ${summary.artefact.id} ${summary.status}`);
  const heldOut = readFileSync(join(data, 'held.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).length;
  // From the last SFT step to the process's end: step N, the validation loss, the evaluation, the checkpoint.
  const evalS = { cpu: r.total.cpu - beforeLast.cpu, wall: r.total.wall - beforeLast.wall };
  return { loop: loop(first, beforeLast, sftSteps - 2, sftSteps, threads), evalS, passAt1: summary.metrics['eval/pass@1']?.last ?? NaN, n: Math.min(heldOut, evalQuestions), runId: summary.artefact.id };
}

mkdirSync(out, { recursive: true });
const minutes = (l: Loop): number => l.cpuS / 60 / l.threads;
/** One shape: its base model, its SFT run, and the figures of both. */
async function measureShape(name: string) {
  const baseDir = join(out, `base-${name}`);
  console.error(`${name}: pretraining ${pretrainSteps} steps into ${baseDir}`);
  const pre = await pretrainShape(name, baseDir);
  console.error(`${name}: pretrain loop ${(pre.loop.cpuS / 60).toFixed(1)} CPU-min, ${(pre.loop.wallS / 60).toFixed(1)} wall min, loss ${pre.loss.toFixed(3)}`);
  console.error(`${name}: SFT ${sftSteps} steps`);
  const sft = await sftShape(name, baseDir);
  const successes = Math.round(sft.passAt1 * sft.n);
  const [lo, hi] = wilsonInterval(successes, sft.n);
  const trainMin = minutes(pre.loop) + minutes(sft.loop);
  const row = {
    shape: name,
    ...SHAPES[name],
    params: pre.params,
    weightsBytes: pre.bytes,
    pretrainLoss: pre.loss,
    pretrain: pre.loop,
    sft: sft.loop,
    evalCpuS: sft.evalS.cpu,
    evalWallS: sft.evalS.wall,
    runId: sft.runId,
    passAt1: sft.passAt1,
    heldOut: sft.n,
    wilson: [lo, hi] as const,
    trainMinutes: trainMin,
    passAt1PerMinute: sft.passAt1 / trainMin,
    wallMinutes: (pre.loop.wallS + sft.loop.wallS) / 60,
  };
  console.error(`${name}: pass@1 ${sft.passAt1.toFixed(3)} (${lo.toFixed(2)}-${hi.toFixed(2)}), ${trainMin.toFixed(1)} min of training`);
  return row;
}

const results: Awaited<ReturnType<typeof measureShape>>[] = [];
for (const name of values.shapes!.split(',')) {
  if (!SHAPES[name]) throw new Error(`unknown shape ${name} (expected ${Object.keys(SHAPES).join(', ')})`);
  results.push(await measureShape(name));
  writeFileSync(join(out, 'shapes.json'), JSON.stringify({ pretrainSteps, sftSteps, episodes: Number(values.episodes), results }, null, 2));
}

const f = (x: number, d = 1): string => x.toFixed(d);
console.log(`pretrain ${pretrainSteps} steps, SFT ${sftSteps} steps; minutes = CPU-minutes / threads of each loop`);
console.log('| shape | params | weights | pretrain min (CPU-min / threads; wall) | SFT min (CPU-min / threads; wall) | held-out pass@1 (Wilson 95%) | pass@1 per min | eval min (CPU-min / threads; wall) |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of results) {
  console.log(
    `| ${r.shape} | ${f(r.params / 1e6, 2)}M | ${f(r.weightsBytes / 1e6, 2)} MB | ${f(minutes(r.pretrain))}; ${f(r.pretrain.wallS / 60)} | ${f(minutes(r.sft))}; ${f(r.sft.wallS / 60)} | ${f(r.passAt1, 3)} (${f(r.wilson[0], 2)}-${f(r.wilson[1], 2)}, n ${r.heldOut}) | ${f(r.passAt1PerMinute, 3)} | ${f(r.evalCpuS / 60 / r.sft.threads)}; ${f(r.evalWallS / 60)} |`,
  );
}
