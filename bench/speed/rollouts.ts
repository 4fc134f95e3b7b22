// Acting speed: a policy's episodes one at a time (each turn decoded alone, as before continuous batching)
// against every episode in flight decoding its turns in one batch (model/batch-decoder.ts) on one thread, and
// on every core (model/acting-threads.ts: `batched`, what evaluation and rollouts use), on the same held-out
// questions, seeds and simulated web, greedy. Reports episodes/s of each, whether the outcomes are identical
// question by question, and the decoder's tokens/s on a fixed batch (one thread) beside the PyTorch peer's
// (bench/speed/sample_torch.py: the same shape decoding the same batch with a KV cache; null without PyTorch).
// The modes alternate `--repeat` times, so a shared machine's load falls on all alike.
// Run: npx tsx bench/speed/rollouts.ts --graph G.json --held HELD.jsonl [--checkpoint DIR] [--tokenizer FILE]
//        [--questions 300] [--in-flight 64] [--threads N] [--threads-in-flight N] [--repeat 1] [--json]
// --in-flight is per decoding thread (the threads play --in-flight x threads, as evaluation and the rollout jobs
// do) unless --threads-in-flight says otherwise; the threads' start is timed apart (threadsStartS) and
// threadsOverOneThreadAfterStart leaves it out (a process keeps its threads: ActingThreads.kept).
// Without --checkpoint the bundled base model plays; docs/performance.md says which policy the figures used.
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Trajectory } from '../../main/lab/formats';
import { readJsonFile } from '../../main/lab/store/files';
import { selectBackend } from '../../main/lab/model/backend';
import { readGraphFile } from '../../main/lab/kg/io';
import { readDataset } from '../../main/lab/synth/dataset';
import { SimWeb } from '../../main/lab/agent/web';
import { simToolset } from '../../main/lab/agent/env';
import type { PolicyFactory } from '../../main/lab/agent/policies';
import { rolloutDataset } from '../../main/lab/agent/rollout';
import { Tokenizer } from '../../main/lab/model/tokenizer';
import { loadCheckpoint } from '../../main/lab/model/checkpoint';
import { BatchDecoder } from '../../main/lab/model/batch-decoder';
import { ActingThreads, defaultActingThreads, type TurnSampler } from '../../main/lab/model/acting-threads';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import { checkpointPolicy, EPISODES_IN_FLIGHT, TURN_TOKENS } from '../../main/lab/train/policy/policy';
import { runEnvironment } from '../../main/lab/train/policy/checkpoints';
import { createRng } from '../../main/lab/util/rng';
import { isCorrect } from '../../main/lab/contract/correct';

const { values } = parseArgs({
  options: {
    graph: { type: 'string' },
    held: { type: 'string' },
    checkpoint: { type: 'string', default: 'resources/base-model' },
    tokenizer: { type: 'string' },
    questions: { type: 'string', default: '300' },
    'in-flight': { type: 'string', default: String(EPISODES_IN_FLIGHT) },
    repeat: { type: 'string', default: '1' },
    threads: { type: 'string' },
    'decode-batch': { type: 'string', default: '64' },
    /** Episodes in flight on the threads in all (default: --in-flight for each thread). */
    'threads-in-flight': { type: 'string' },
    json: { type: 'boolean', default: false },
    /** Leave out one episode at a time (its ratio needs it; the threads' figures do not). */
    'skip-one': { type: 'boolean', default: false },
    /** Also the threads with --in-flight in all (split between them), alternated with the default. */
    'split-too': { type: 'boolean', default: false },
  },
});
if (!values.graph || !values.held) throw new Error('usage: bench/speed/rollouts.ts --graph G.json --held HELD.jsonl [--checkpoint DIR] [--tokenizer FILE] [--questions N] [--in-flight N] [--repeat N] [--json]');
const log = (...xs: unknown[]): void => console.error(...xs);
const { report: backend } = await selectBackend({ only: ['wasm'] });
const env = runEnvironment(parseRunConfig({ name: 'bench', data: { graphId: 'g', datasetId: 'd', heldOutDatasetId: 'h' } }));
const tools = simToolset(new SimWeb(readGraphFile(values.graph), env.web));
const limits = { maxToolCalls: env.maxToolCalls, maxNewTokens: env.maxNewTokens };
const qas = readDataset(values.held).qas.slice(0, Number(values.questions));
const tokFile = values.tokenizer ?? [join(values.checkpoint!, 'tokenizer.json'), 'resources/base-model/tokenizer.json'].find(existsSync)!;
const tok = Tokenizer.fromJSON(readJsonFile(tokFile));
const { model } = await loadCheckpoint(values.checkpoint!);
const inFlight = Number(values['in-flight']);
const threads = Number(values.threads ?? defaultActingThreads(backend.chosen));
const threadsInFlight = Number(values['threads-in-flight'] ?? inFlight * threads);

type Mode = 'one' | 'oneThread' | 'threads' | 'threadsSplit';
/**
 * The policy's episodes over the questions: one at a time, or `inFlight` at once through one BatchDecoder
 * (`oneThread`) or through ActingThreads on `threads` threads (its start counted: evaluation pays it too).
 */
async function play(mode: Mode): Promise<{ seconds: number; cpuSeconds: number; startS: number; trajs: Trajectory[]; tokens: number; maxRows: number; stats?: BatchDecoder['stats'] }> {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage(); // every thread of the process: how many cores the run really got
  const acting = mode === 'threads' || mode === 'threadsSplit' ? await ActingThreads.start(model, threads) : undefined;
  const startS = (performance.now() - t0) / 1000;
  const decoder: (TurnSampler & { stats: BatchDecoder['stats'] }) | undefined = mode === 'oneThread' ? new BatchDecoder(model) : acting;
  const batched = mode !== 'one';
  let tokens = 0;
  const factory: PolicyFactory = {
    spec: 'bench',
    kind: 'ckpt',
    forQA: () => checkpointPolicy(model, tok, { name: 'bench', temperature: 0, maxTurnTokens: TURN_TOKENS, decoder, onTurn: (t) => (tokens += t.tokens.length) }),
  };
  // `inFlight` episodes for each decoding thread, as evaluation and the rollout jobs play them (a full batch each).
  const trajs = await rolloutDataset(qas, factory, tools, { n: 1, seed: 7, limits, concurrency: !batched ? 1 : mode === 'threads' ? threadsInFlight : inFlight });
  await acting?.close();
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, startS, trajs, tokens, maxRows: decoder?.stats.maxRows ?? 1, stats: decoder?.stats };
}

// batchedAfterStart: the threads' episodes/s once they run (their start left out: the process keeps them, ActingThreads.kept).
// batchedSplit (--split-too): the threads with --in-flight in all, split between them (the previous revision's way).
const runs: { one: number[]; batched: number[]; batchedOneThread: number[]; batchedAfterStart: number[]; batchedSplit: number[] } = {
  one: [], batched: [], batchedOneThread: [], batchedAfterStart: [], batchedSplit: [],
};
const startTimes: number[] = [];
/** CPU seconds per wall second of the batched modes: the cores each really had. */
const cores: { oneThread: number; threads: number }[] = [];
/** CPU seconds of each batched mode (every thread of the process). */
const cpuSeconds: { oneThread: number; threads: number; split: number | null }[] = [];
let mismatches: string[] = [];
let turnsTokens = 0;
let passAt1 = 0;
let maxRows = 0;
for (let r = 0; r < Number(values.repeat); r++) {
  const one = values['skip-one'] ? null : await play('one');
  if (one) log(`one at a time: ${qas.length} episodes in ${one.seconds.toFixed(1)} s, ${one.cpuSeconds.toFixed(1)} s of CPU (load ${loadavg()[0]!.toFixed(1)})`);
  const single = await play('oneThread');
  // The two ways of the threads alternate round by round, so the load falls on both alike.
  const order: Mode[] = values['split-too'] ? (r % 2 === 0 ? ['threads', 'threadsSplit'] : ['threadsSplit', 'threads']) : ['threads'];
  const played = new Map<Mode, Awaited<ReturnType<typeof play>>>();
  for (const m of order) played.set(m, await play(m));
  const many = played.get('threads')!;
  const split = played.get('threadsSplit') ?? null;
  for (const [name, x, n] of [['batched, one thread', single, inFlight], [`batched, ${threads} threads`, many, threadsInFlight], ...(split ? [[`batched, ${threads} threads, split`, split, inFlight] as const] : [])] as const) {
    const st = x.stats!;
    log(`${name} (${n} in flight, at most ${x.maxRows} rows a step): ${qas.length} episodes in ${x.seconds.toFixed(1)} s (threads started in ${x.startS.toFixed(1)} s), ${x.cpuSeconds.toFixed(1)} s of CPU; prefill ${st.prefillS.toFixed(1)} s (${st.prefills}), decode ${st.decodeS.toFixed(1)} s (${st.steps} steps, ${st.tokens} tokens) (load ${loadavg()[0]!.toFixed(1)})`);
  }
  if (one) runs.one.push(qas.length / one.seconds);
  runs.batchedOneThread.push(qas.length / single.seconds);
  runs.batched.push(qas.length / many.seconds);
  runs.batchedAfterStart.push(qas.length / (many.seconds - many.startS));
  if (split) runs.batchedSplit.push(qas.length / (split.seconds - split.startS));
  startTimes.push(many.startS);
  cores.push({ oneThread: single.cpuSeconds / single.seconds, threads: many.cpuSeconds / many.seconds });
  cpuSeconds.push({ oneThread: single.cpuSeconds, threads: many.cpuSeconds, split: split?.cpuSeconds ?? null });
  // Identical outcomes question by question: the same answer, termination, turns and reward.
  const key = (t: Trajectory): string => JSON.stringify([t.prediction, t.termination, t.steps.length, t.reward.answer, t.tokens.generated]);
  const others = [many, ...(one ? [one] : []), ...(split ? [split] : [])];
  mismatches = single.trajs.flatMap((t, i) => (others.every((o) => key(o.trajs[i]!) === key(t)) ? [] : [t.qa_id]));
  turnsTokens = many.tokens;
  passAt1 = single.trajs.filter((t) => isCorrect(t.reward)).length / qas.length;
  maxRows = many.maxRows;
}

// Decoding alone: B prompts of 128 tokens, 64 new tokens each, greedy, no stop; the peer decodes the same.
const B = Number(values['decode-batch']);
const P = 128;
const N = 64;
async function decodeTokensPerS(): Promise<number> {
  const rng = createRng(5);
  const prompts = Array.from({ length: B }, () => Array.from({ length: P }, () => rng.int(model.config.vocabSize)));
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const dec = new BatchDecoder(model);
    const t0 = performance.now();
    await Promise.all(prompts.map((p) => dec.sample(p, { maxNewTokens: N, temperature: 0 })));
    best = Math.min(best, (performance.now() - t0) / 1000);
  }
  return (B * N) / best;
}
const batchedTokensPerS = await decodeTokensPerS();
function torchTokensPerS(): number | null {
  const c = model.config;
  const args = ['bench/speed/sample_torch.py', '--batch', String(B), '--prompt', String(P), '--new', String(N), '--vocab', String(c.vocabSize), '--block', String(c.blockSize),
    '--layers', String(c.nLayer), '--heads', String(c.nHead), '--width', String(c.nEmbd), ...(c.distanceBias ? ['--distance-bias'] : [])];
  try {
    return (JSON.parse(execFileSync(process.env.PYTHON ?? 'python3', args, { encoding: 'utf8' })) as { tokensPerS: number }).tokensPerS;
  } catch (err) {
    log(`PyTorch peer not run: ${(err as Error).message.split('\n')[0]}`);
    return null;
  }
}
const torch = torchTokensPerS();

/** The median, or null with no figure (a mode left out). */
const median = (xs: number[]): number | null => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : null);
const result = {
  backend: backend.chosen,
  policy: values.checkpoint,
  questions: qas.length,
  inFlight,
  maxRows,
  threads,
  episodesPerS: { oneAtATime: median(runs.one), batched: median(runs.batched), batchedOneThread: median(runs.batchedOneThread) },
  batchedOverOne: median(runs.one.map((o, i) => runs.batched[i]! / o)),
  batchedOneThreadOverOne: median(runs.one.map((o, i) => runs.batchedOneThread[i]! / o)),
  threadsOverOneThread: median(runs.batched.map((b, i) => b / runs.batchedOneThread[i]!)),
  threadsOverOneThreadAfterStart: median(runs.batchedAfterStart.map((b, i) => b / runs.batchedOneThread[i]!)),
  threadsSplitOverOneThreadAfterStart: median(runs.batchedSplit.map((b, i) => b / runs.batchedOneThread[i]!)),
  threadsOverSplitAfterStart: median(runs.batchedSplit.map((b, i) => runs.batchedAfterStart[i]! / b)),
  cpuSeconds,
  threadsStartS: startTimes,
  coresUsed: cores,
  runs,
  identicalOutcomes: mismatches.length === 0,
  mismatches,
  passAt1,
  turnTokens: turnsTokens,
  tokensPerS: { batched: batchedTokensPerS, torch, shape: { batch: B, prompt: P, new: N } },
  batchedOverTorch: torch ? batchedTokensPerS / torch : null,
};
if (values.json) console.log(JSON.stringify(result));
else console.log(JSON.stringify(result, null, 2));
