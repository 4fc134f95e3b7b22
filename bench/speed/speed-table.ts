// Every speed ratio of issue #46 from one command, as one table: the trainer against PyTorch on one and two
// threads (bench/speed/train.ts, by wall time and by CPU time), the RL update on every core against one
// (bench/speed/rl-update.ts), DUPO against DAPO per effective batch and async against sync RL (bench/speed/rl.ts),
// rollouts batched against one at a time and two acting threads against one (bench/speed/rollouts.ts, when
// --graph and --held are given: the quick preset's data). Each bench runs as its own process, one after the
// other, with the load average before and after; each ratio is within its bench's own run (the benches that
// compare two ways alternate them). `--skip rl,rollouts` leaves benches out (bench/speed/rl.ts trains two starting
// policies and takes the longest).
// Run: npx tsx bench/speed/speed-table.ts [--graph G.json --held HELD.jsonl --checkpoint DIR] [--skip NAMES] [--json]
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    graph: { type: 'string' },
    held: { type: 'string' },
    checkpoint: { type: 'string' },
    skip: { type: 'string', default: '' },
    json: { type: 'boolean', default: false },
  },
});
const skip = new Set(values.skip.split(',').filter(Boolean));
const log = (...xs: unknown[]): void => console.error(...xs);
const load = (): string => loadavg().map((x) => x.toFixed(1)).join(' ');

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
function bench<T>(name: string, args: string[]): { out: T | null; load: string } {
  const before = load();
  log(`${name}: running (load ${before})...`);
  const r = spawnSync('npx', ['tsx', new URL(`./${name}.ts`, import.meta.url).pathname, ...args, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'inherit'] });
  const span = `${before} -> ${load()}`;
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

if (!skip.has('train')) {
  type Train = {
    backends: { backend: string; trainTokensPerS: number; trainTokensPerSAllCores: number; trainStepCpuMs: number }[];
    torch: { tokensPerS1: number; tokensPerS2: number; cpuStepMs1: number } | null;
  };
  const { out, load: l } = bench<Train>('train', ['--backends', 'wasm']);
  const w = out?.backends.find((b) => b.backend === 'wasm');
  const t = out?.torch;
  const note = t ? undefined : 'PyTorch not importable ($PYTHON)';
  rows.push({ ratio: 'trainer / PyTorch, one thread (tokens/s)', value: w && t ? w.trainTokensPerS / t.tokensPerS1 : null, target: '>= 0.5', bench: 'train', load: l, note });
  rows.push({ ratio: 'trainer / PyTorch, two threads (tokens/s)', value: w && t ? w.trainTokensPerSAllCores / t.tokensPerS2 : null, target: '>= 0.5', bench: 'train', load: l, note });
  rows.push({ ratio: 'trainer / PyTorch, one thread (CPU ms a step)', value: w && t ? t.cpuStepMs1 / w.trainStepCpuMs : null, target: '(shared machine)', bench: 'train', load: l, note });
}
if (!skip.has('rl-update')) {
  const { out, load: l } = bench<{ speedup: { median: number; min: number; max: number } }>('rl-update', []);
  rows.push({ ratio: 'RL update, every core / one thread', value: out?.speedup.median ?? null, target: '(2 cores)', bench: 'rl-update', load: l, note: out ? `pairs ${out.speedup.min.toFixed(2)}-${out.speedup.max.toFixed(2)}` : undefined });
}
if (!skip.has('rl')) {
  const { out, load: l } = bench<{ dapoOverDupo: number; asyncOverSync: number | null }>('rl', ['--turn-ms', '0']);
  rows.push({ ratio: 'DUPO / DAPO, effective batches per second', value: out?.dapoOverDupo ?? null, target: '>= 2', bench: 'rl', load: l });
  rows.push({ ratio: 'async / sync RL, trajectories per second', value: out?.asyncOverSync ?? null, target: '>= 1.5', bench: 'rl', load: l });
}
if (!skip.has('rollouts')) {
  if (!values.graph || !values.held) log('rollouts: skipped (give --graph and --held: the quick preset\'s data)');
  else {
    const args = ['--graph', values.graph, '--held', values.held, ...(values.checkpoint ? ['--checkpoint', values.checkpoint] : []), '--repeat', '3'];
    const { out, load: l } = bench<{ batchedOneThreadOverOne: number; threadsOverOneThread: number }>('rollouts', args);
    rows.push({ ratio: 'rollouts batched (one thread) / one at a time', value: out?.batchedOneThreadOverOne ?? null, target: '>= 4', bench: 'rollouts', load: l });
    rows.push({ ratio: 'acting on two threads / one', value: out?.threadsOverOneThread ?? null, target: '>= 1.6', bench: 'rollouts', load: l });
  }
}

if (values.json) console.log(JSON.stringify({ rows }, null, 2));
else {
  const w = Math.max(...rows.map((r) => r.ratio.length));
  console.log(`${'ratio'.padEnd(w)}  value   target            bench       load (1-min 5-min 15-min, before -> after)`);
  for (const r of rows) {
    console.log(`${r.ratio.padEnd(w)}  ${(r.value === null ? '-' : `${r.value.toFixed(2)}x`).padEnd(6)}  ${r.target.padEnd(16)}  ${r.bench.padEnd(10)}  ${r.load}${r.note ? `  (${r.note})` : ''}`);
  }
}
