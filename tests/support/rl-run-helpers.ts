// Helpers for the RL run tests: a data directory with a small invented world (graph, training and held-out
// QAs), a run directory with a config, an in-process job context, and a scripted policy for rollouts.
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QA } from '../../main/lab/formats';
import { fixtureGraph } from './fixture-graph';
import { synthesize } from '../../main/lab/synth/build';
import { writeDataset } from '../../main/lab/synth/dataset';
import { writeGraphFile } from '../../main/lab/kg/io';
import { writeJsonAtomic } from '../../main/lab/store/files';
import { RUN_FORMAT, runFile } from '../../main/lab/runs/layout';
import type { JobContext } from '../../main/lab/jobs/context';
import type { Policy } from '../../main/lab/agent/runtime';

export const DATA = { graphId: 'g', datasetId: 'train', heldOutDatasetId: 'held' };

/** A temporary SAILOR_HOME with graphs/g.json, datasets/train.jsonl (24 QAs unless told) and datasets/held.jsonl (4 QAs). */
export function labHome(trainQuestions = 24): string {
  const home = mkdtempSync(join(tmpdir(), 'sailor-rl-'));
  const graph = fixtureGraph({ seed: 11 });
  writeGraphFile(join(home, 'graphs', 'g.json'), graph);
  const train = synthesize(graph, { count: trainQuestions, rng: 1, graphName: 'g' }).qas;
  const held = synthesize(graph, { count: 4, rng: 2, graphName: 'g' }).qas;
  writeDataset(join(home, 'datasets', 'train.jsonl'), { graph: 'g' }, train);
  writeDataset(join(home, 'datasets', 'held.jsonl'), { graph: 'g' }, held);
  return home;
}

/** labHome's graph and datasets copied into dir as g.json, train.jsonl and held.jsonl: the files a config names. */
export function copyLabFiles(home: string, dir: string): void {
  for (const [from, to] of [['graphs/g.json', 'g.json'], ['datasets/train.jsonl', 'train.jsonl'], ['datasets/held.jsonl', 'held.jsonl']] as const) cpSync(join(home, from), join(dir, to));
}

/** runs/<id>/run.json as the runs service writes it. */
export function writeRun(home: string, runId: string, config: Record<string, unknown>): void {
  writeJsonAtomic(runFile(home, runId), { format: RUN_FORMAT, id: runId, name: runId, config: { data: DATA, ...config }, createdAt: new Date().toISOString() }, true);
}

/** A job context for running a job in-process; `onMetrics` sees every published metrics record. */
export function testContext(home: string, onMetrics?: (step: number) => void, logs: string[] = []): JobContext {
  return {
    jobId: 'test',
    home,
    dir: join(home, 'jobs', 'test'),
    stream: null,
    signal: new AbortController().signal,
    progress: () => {},
    log: (m) => logs.push(m),
    publish: (name, payload) => {
      if (name !== 'run.metrics') return;
      for (const r of (payload as { records: Array<{ step: number }> }).records) onMetrics?.(r.step);
    },
  };
}

/** The settings every RL test shares: a tiny model, a tiny SFT, a compact environment, the wasm backend. */
export const SMALL = {
  backend: 'wasm',
  tokenizer: { vocabSize: 400 },
  model: { base: 'none', preset: 'tiny', blockSize: 128 },
  rft: { attempts: 1 },
  env: { maxToolCalls: 4 },
  eval: { questions: 2, every: 100 },
};

const turn = (think: string, action: string): string => `<think>\n${think}\n</think>\n${action}`;
const search = (q: string): string => turn(`Search for ${q}.`, `<tool_call>\n${JSON.stringify({ name: 'search', arguments: { query: [q] } })}\n</tool_call>`);

/**
 * A scripted ReAct policy: `searches` search turns, then an answer (the gold one when `correct`). `delayMs`
 * per turn stands for a remote model or web: while it waits, other rollouts (and the trainer) run.
 */
export function scriptedPolicy(qa: QA, opts: { searches: number; correct: boolean; delayMs?: number }): Policy {
  let turns = 0;
  return {
    name: 'scripted',
    async generate() {
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      turns++;
      if (turns <= opts.searches) return search(qa.question.split(' ').slice(0, 4).join(' '));
      return turn('I have it.', `<answer>${opts.correct ? qa.answer : 'nobody'}</answer>`);
    },
  };
}
