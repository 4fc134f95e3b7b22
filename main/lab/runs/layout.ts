// Where a run keeps its files, relative to the data directory. The trainer (worker) and the runs
// service (main thread) both go through these helpers, so the layout is written down once.
//
//   runs/<id>/run.json                      {format: 'sailor.run/1', id, name, config, createdAt}
//   runs/<id>/metrics.jsonl                 one MetricRecord per step (docs/formats.md, 'Runs and the data directory')
//   runs/<id>/checkpoints/step-000200/      a checkpoint (model/checkpoint.ts), written atomically
//   runs/<id>/evals/step-000200.jsonl       the evaluation's trajectories (sailor.traj/1), header has the summary
//   runs/<id>/rollouts/step-000201.jsonl    an RL step's rollouts (sailor.traj/1): header with the batch plan
//                                           and the step's metrics, then every trajectory (runs/rollouts.ts reads it)
//   runs/<id>/data/rft.jsonl                the RFT trajectories SFT trains on (sailor.traj/1)
//   runs/<id>/data/                         tokenizer and other derived inputs
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LabError } from '../base/errors';
import { defaultHome } from '../base/home';
import { parseRunConfig, type RunConfig } from '../contract/run-config';
import { readJsonFile } from '../store/files';
import { graphFile, runRel } from '../store/layout';

export const RUN_FORMAT = 'sailor.run/1';

export const runDir = (home: string, runId: string): string => join(home, runRel(runId));
export const runFile = (home: string, runId: string): string => join(runDir(home, runId), 'run.json');
/** The wizard's warm-up measurements a run was launched with (runs.start): its time left starts from them (train/policy/run-clock.ts). */
export const estimateFile = (home: string, runId: string): string => join(runDir(home, runId), 'estimate.json');
/** Held by the one trainer of a run while it runs (store/lockfile.ts). */
export const trainerLockFile = (home: string, runId: string): string => join(runDir(home, runId), 'trainer.lock');
export const metricsFile = (home: string, runId: string): string => join(runDir(home, runId), 'metrics.jsonl');
export const dataDir = (home: string, runId: string): string => join(runDir(home, runId), 'data');
/** The expert's demonstrations SFT trains on (sailor.traj/1, made once per run). */
export const rftFile = (home: string, runId: string): string => join(dataDir(home, runId), 'rft.jsonl');

/** Relabeling round `round`'s labelled episodes (rounds from 1; train/sft/relabel-stage.ts writes them). */
export const relabelFile = (home: string, runId: string, round: number): string => join(dataDir(home, runId), `relabel-round-${round - 1}.jsonl`);

const pad = (step: number): string => String(step).padStart(6, '0');
export const checkpointDir = (home: string, runId: string, step: number): string => join(runDir(home, runId), 'checkpoints', `step-${pad(step)}`);
export const evalFile = (home: string, runId: string, step: number): string => join(runDir(home, runId), 'evals', `step-${pad(step)}.jsonl`);
export const rolloutsDir = (home: string, runId: string): string => join(runDir(home, runId), 'rollouts');
export const rolloutsFile = (home: string, runId: string, step: number): string => join(rolloutsDir(home, runId), `step-${pad(step)}.jsonl`);

/** Steps of the checkpoints a run has, ascending. A checkpoint counts once its manifest exists. */
export function checkpointSteps(home: string, runId: string): number[] {
  const dir = join(runDir(home, runId), 'checkpoints');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => /^step-(\d+)$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null && existsSync(join(dir, m[0], 'manifest.json')))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

function jsonlSteps(dir: string): number[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => /^step-(\d+)\.jsonl$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

/** Steps at which the run was evaluated, ascending. */
export function evalSteps(home: string, runId: string): number[] {
  return jsonlSteps(join(runDir(home, runId), 'evals'));
}

/** RL steps whose rollouts the run stored, ascending. */
export function rolloutSteps(home: string, runId: string): number[] {
  return jsonlSteps(rolloutsDir(home, runId));
}

/** Relabeling rounds (from 1) whose labelled episodes the run stored, ascending. */
export function relabelRounds(home: string, runId: string): number[] {
  const dir = dataDir(home, runId);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => /^relabel-round-(\d+)\.jsonl$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]) + 1)
    .sort((a, b) => a - b);
}

/** `ckpt:<run>/<step>` as the policy registry and the CLI spell a checkpoint. */
export function checkpointRef(runId: string, step: number): string {
  return `${runId}/${step}`;
}

export function parseCheckpointRef(ref: string): { runId: string; step: number | 'last' } | null {
  const m = /^(?:ckpt:)?([A-Za-z0-9._:-]+)\/(\d+|last)$/.exec(ref);
  if (!m) return null;
  return { runId: m[1]!, step: m[2] === 'last' ? 'last' : Number(m[2]) };
}

export interface ResolvedCheckpoint {
  runId: string;
  step: number;
  dir: string;
  config: RunConfig;
  graphFile: string;
}

/** A checkpoint reference (`<run>/<step>`, `<run>/last`) as its directory, its run's config and graph file. */
export function resolveCheckpoint(ref: string, home: string = defaultHome()): ResolvedCheckpoint {
  const parsed = parseCheckpointRef(ref);
  if (!parsed) throw new LabError('bad_request', `checkpoint '${ref}' is not of the form <run>/<step> or <run>/last`);
  const file = runFile(home, parsed.runId);
  if (!existsSync(file)) throw new LabError('not_found', `no run '${parsed.runId}' in ${home}`);
  const config = parseRunConfig((readJsonFile(file) as { config: unknown }).config, file);
  const steps = checkpointSteps(home, parsed.runId);
  const step = parsed.step === 'last' ? steps.at(-1) : parsed.step;
  if (step === undefined || !steps.includes(step)) {
    throw new LabError('not_found', `run ${parsed.runId} has no checkpoint at step ${String(parsed.step)}; it has: ${steps.join(', ') || 'none yet'}`);
  }
  return { runId: parsed.runId, step, dir: checkpointDir(home, parsed.runId, step), config, graphFile: graphFile(home, config.data.graphId) };
}
