// Every speed ratio of issue #46 from one command, as one table: the trainer against PyTorch on one and two
// threads (bench/speed/train.ts, by wall time and by CPU time), the RL update on every core against one
// (bench/speed/rl-update.ts), DUPO against DAPO per effective batch and async against sync RL (bench/speed/rl.ts),
// rollouts batched against one at a time and two acting threads against one (bench/speed/rollouts.ts on the quick
// preset's data: its graph and held-out lookups, made here with the CLI unless --graph and --held are given).
// Each bench runs as its own process, one after the other, with the load average before and after; each ratio
// is within its bench's own run (the benches that compare two ways alternate them). `--skip rl,rollouts` leaves
// benches out (bench/speed/rl.ts trains two starting policies and takes the longest).
// PyTorch: $PYTHON when it imports torch; else .venv-torch/ beside package.json, made on first use with pip
// from the machine's own package index or wheel store (as tests/setup-python.sh does); `--skip torch` goes without.
// `--quick`: fewer steps, repeats and questions in every bench (about 10 minutes on an idle 2-core machine);
// the full run takes several times that.
// Run: npx tsx bench/speed/speed-table.ts [--quick] [--graph G.json --held HELD.jsonl --checkpoint DIR] [--skip NAMES] [--json]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    graph: { type: 'string' },
    held: { type: 'string' },
    checkpoint: { type: 'string' },
    skip: { type: 'string', default: '' },
    quick: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const skip = new Set(values.skip.split(',').filter(Boolean));
const quick = values.quick;
const log = (...xs: unknown[]): void => console.error(...xs);
const load = (): string => loadavg().map((x) => x.toFixed(1)).join(' ');
const root = new URL('../..', import.meta.url).pathname;
const started = performance.now();
const minutes = (t0: number): string => `${((performance.now() - t0) / 60_000).toFixed(1)} min`;
/** CPU seconds of this process's ended children (Linux: /proc/self/stat cutime + cstime); null elsewhere. */
function childCpuSeconds(): number | null {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100; // cutime and cstime, fields 16 and 17, in clock ticks
  } catch {
    return null;
  }
}

/** A Python that imports torch: $PYTHON, else .venv-torch (made and filled by pip on first use); null without. */
function torchPython(): string | null {
  const imports = (python: string): boolean => spawnSync(python, ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;
  if (process.env.PYTHON && imports(process.env.PYTHON)) return process.env.PYTHON;
  const venv = join(root, '.venv-torch');
  const python = join(venv, 'bin', 'python');
  if (existsSync(python) && imports(python)) return python;
  log(`torch: installing it into ${venv} with pip (one time, a few minutes)...`);
  const steps: [string, string[]][] = [
    ['python3', ['-m', 'venv', venv]],
    [python, ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '--retries', '0', 'torch', 'numpy']],
  ];
  for (const [cmd, args] of existsSync(python) ? steps.slice(1) : steps) {
    const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) {
      log(`torch: ${cmd} ${args.join(' ')} failed (exit ${r.status}); the PyTorch rows stay empty`);
      return null;
    }
  }
  return imports(python) ? python : null;
}

/** The quick preset's graph and `count` of its held-out lookups, made with the CLI in `dir`. */
function quickPresetData(dir: string, count: number): { graph: string; held: string } | null {
  const graph = join(dir, 'g.json');
  const held = join(dir, 'held.jsonl');
  const lookups = ['--min-edges', '1', '--max-edges', '1', '--kinds', 'none', '--anchor-prob', '1', '--max-constraints', '0', '--per-shape', '100000'];
  for (const args of [
    ['kg', 'build', '--rng', '7', '--max-edges', '12000', '--out', graph],
    ['synth', '--graph', graph, '--count', String(count), '--rng', '2', ...lookups, '--out', held],
  ]) {
    const r = spawnSync(process.execPath, [join(root, 'bin', 'sailor.mjs'), ...args], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) {
      log(`rollouts: sailor ${args.slice(0, 2).join(' ')} failed (exit ${r.status})`);
      return null;
    }
  }
  return { graph, held };
}

interface Row {
  ratio: string;
  value: number | null;
  target: string;
  bench: string;
  load: string;
  note?: string;
}
const rows: Row[] = [];

/** Runs `npx tsx bench/<name>.ts ...args --json` and parses its last stdout line as JSON (null on failure). */
function bench<T>(name: string, args: string[], env: NodeJS.ProcessEnv = process.env): { out: T | null; load: string } {
  const before = load();
  const t0 = performance.now();
  const cpu0 = childCpuSeconds();
  log(`${name}: running ${args.join(' ')} (load ${before}; ${minutes(started)} so far)...`);
  const r = spawnSync('npx', ['tsx', new URL(`./${name}.ts`, import.meta.url).pathname, ...args, '--json'], { cwd: root, env, encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'inherit'] });
  const span = `${before} -> ${load()}`;
  const cpu1 = childCpuSeconds();
  // CPU time: about what the bench takes alone on an idle machine (less where it keeps both cores busy).
  log(`${name}: ${minutes(t0)}${cpu0 !== null && cpu1 !== null ? `, ${((cpu1 - cpu0) / 60).toFixed(1)} CPU min` : ''}`);
  if (r.status !== 0) {
    log(`${name}: failed (exit ${r.status})`);
    return { out: null, load: span };
  }
  const text = r.stdout.trim();
  try {
    return { out: JSON.parse(text.slice(text.indexOf('{'))) as T, load: span };
  } catch {
    log(`${name}: no JSON in its output`);
    return { out: null, load: span };
  }
}

const python = skip.has('torch') ? null : torchPython();
const torchEnv = { ...process.env, PYTHON: python ?? 'no-python-with-torch' };
if (!skip.has('train')) {
  type Train = {
    backends: { backend: string; trainTokensPerS: number; trainTokensPerSAllCores: number; trainStepCpuMs: number }[];
    torch: { tokensPerS1: number; tokensPerS2: number; cpuStepMs1: number } | null;
  };
  const { out, load: l } = bench<Train>('train', ['--backends', 'wasm', '--steps', quick ? '5' : '10'], torchEnv);
  const w = out?.backends.find((b) => b.backend === 'wasm');
  const t = out?.torch;
  const note = t ? undefined : 'PyTorch not measured (see above)';
  rows.push({ ratio: 'trainer / PyTorch, one thread (tokens/s)', value: w && t ? w.trainTokensPerS / t.tokensPerS1 : null, target: '>= 0.5', bench: 'train', load: l, note });
  rows.push({ ratio: 'trainer / PyTorch, two threads (tokens/s)', value: w && t ? w.trainTokensPerSAllCores / t.tokensPerS2 : null, target: '>= 0.5', bench: 'train', load: l, note });
  rows.push({ ratio: 'trainer / PyTorch, one thread (CPU ms a step)', value: w && t ? t.cpuStepMs1 / w.trainStepCpuMs : null, target: '(shared machine)', bench: 'train', load: l, note });
}
if (!skip.has('rl-update')) {
  const { out, load: l } = bench<{ speedup: { median: number; min: number; max: number } }>('rl-update', quick ? ['--reps', '3', '--windows', '100'] : []);
  rows.push({ ratio: 'RL update, every core / one thread', value: out?.speedup.median ?? null, target: '(2 cores)', bench: 'rl-update', load: l, note: out ? `pairs ${out.speedup.min.toFixed(2)}-${out.speedup.max.toFixed(2)}` : undefined });
}
if (!skip.has('rl')) {
  const { out, load: l } = bench<{ dapoOverDupo: number; asyncOverSync: number | null }>('rl', ['--turn-ms', '0', ...(quick ? ['--steps', '3', '--sft-steps', '150'] : [])]);
  rows.push({ ratio: 'DUPO / DAPO, effective batches per second', value: out?.dapoOverDupo ?? null, target: '>= 2', bench: 'rl', load: l });
  rows.push({ ratio: 'async / sync RL, trajectories per second', value: out?.asyncOverSync ?? null, target: '>= 1.5', bench: 'rl', load: l });
}
if (!skip.has('rollouts')) {
  const questions = quick ? 40 : 300;
  const dataDir = values.graph && values.held ? null : mkdtempSync(join(tmpdir(), 'speed-table-'));
  const data = dataDir ? quickPresetData(dataDir, questions) : { graph: values.graph!, held: values.held! };
  if (data) {
    const args = ['--graph', data.graph, '--held', data.held, ...(values.checkpoint ? ['--checkpoint', values.checkpoint] : []), '--questions', String(questions), '--repeat', quick ? '1' : '3'];
    const { out, load: l } = bench<{ batchedOneThreadOverOne: number; threadsOverOneThread: number }>('rollouts', args, torchEnv);
    rows.push({ ratio: 'rollouts batched (one thread) / one at a time', value: out?.batchedOneThreadOverOne ?? null, target: '>= 4', bench: 'rollouts', load: l });
    rows.push({ ratio: 'acting on two threads / one', value: out?.threadsOverOneThread ?? null, target: '>= 1.6', bench: 'rollouts', load: l });
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}

const cpuAll = childCpuSeconds();
log(`speed table: ${minutes(started)} in all${cpuAll === null ? '' : `, ${(cpuAll / 60).toFixed(1)} CPU min`}${quick ? ' (--quick)' : ''}`);
if (values.json) console.log(JSON.stringify({ quick, minutes: (performance.now() - started) / 60_000, rows }, null, 2));
else {
  const w = Math.max(...rows.map((r) => r.ratio.length));
  console.log(`${'ratio'.padEnd(w)}  value   target            bench       load (1-min 5-min 15-min, before -> after)`);
  for (const r of rows) {
    console.log(`${r.ratio.padEnd(w)}  ${(r.value === null ? '-' : `${r.value.toFixed(2)}x`).padEnd(6)}  ${r.target.padEnd(16)}  ${r.bench.padEnd(10)}  ${r.load}${r.note ? `  (${r.note})` : ''}`);
  }
}
