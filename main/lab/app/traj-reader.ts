// Reading the trajectory sets the store lists (`sailor.traj/1` JSON Lines) for the inspector. A parsed set
// is cached by path and modification time, like graphs and datasets in artefacts.ts; only a few sets are
// kept at once because a set holds every step of every trajectory.
import { statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseRunSetId, runSetId, trajSummary, type ArtefactRecord, type RlStepView, type RunSetKind, type TrajDetail, type TrajEval, type TrajQuestion, type TrajSetInfo, type TrajSetView, type TrajSummary } from '../contract';
import { TRAJ_FORMAT, type QA, type Trajectory } from '../formats';
import { LabError, inputError } from '../base/errors';
import type { StoreData } from '../store/db';
import { readJsonl } from '../store/files';
import type { ArtefactReader } from './artefacts';
import { renderTrajectory, systemPrompt, type AgentStep } from '../agent/react';
import { chatRequest, type ChatMessage } from '../agent/tools';
import { evaluate, sampleFromTrajectory } from '../agent/eval';
import { evalFile, evalSteps, relabelFile, relabelRounds, rftFile } from '../runs/layout';
import { checkRlHeader, rlStepView, rolloutsFile, rolloutSteps } from '../runs/rollouts';
import type { RunConfig } from '../contract/run-config';
import { recordOf } from '../util/own';

const CACHED_SETS = 4;

interface ParsedSet {
  header: Record<string, unknown>;
  trajectories: Trajectory[];
  summaries: TrajSummary[];
  byId: Map<string, number>;
}

const num = (v: unknown, fallback = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

/** Checks one line enough that the inspector can show it; the error names file, line and field. */
function checkTrajectory(value: unknown, file: string, line: number): Trajectory {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw inputError(file, 'expected a trajectory object', { line });
  const t = value as Record<string, unknown>;
  if (typeof t.qa_id !== 'string' || t.qa_id === '') throw inputError(file, 'missing qa_id', { line, field: 'qa_id' });
  if (!Array.isArray(t.steps)) throw inputError(file, 'steps must be an array', { line, field: 'steps' });
  t.steps.forEach((s: unknown, i) => {
    const step = s as Record<string, unknown> | null;
    if (!step || typeof step !== 'object' || typeof (step.action as { name?: unknown } | undefined)?.name !== 'string') {
      throw inputError(file, 'each step needs an action with a name', { line, field: `steps[${i}].action` });
    }
  });
  return value as Trajectory;
}

/** A trajectory set file read and checked: its header, its trajectories and their list rows (ids made unique). */
export function parseSet(path: string): ParsedSet {
  const { records } = readJsonl(path);
  let header: Record<string, unknown> = {};
  const trajectories: Trajectory[] = [];
  records.forEach((rec, i) => {
    const v = rec.value;
    if (i === 0 && v && typeof v === 'object' && 'format' in v) {
      const format = (v as { format: unknown }).format;
      if (format !== TRAJ_FORMAT) throw inputError(path, `expected format '${TRAJ_FORMAT}', got '${String(format)}'`, { line: rec.line, field: 'format' });
      header = v as Record<string, unknown>;
      return;
    }
    trajectories.push(checkTrajectory(v, path, rec.line));
  });
  const attempts = new Map<string, number>();
  const byId = new Map<string, number>();
  const summaries = trajectories.map((t, index): TrajSummary => {
    const seen = attempts.get(t.qa_id) ?? 0;
    attempts.set(t.qa_id, seen + 1);
    const row = trajSummary(t, index, { seen, policy: String(header.policy ?? '') });
    // Ids are unique within a set: a repeated (or missing) id gets the line position appended.
    let id = typeof t.id === 'string' && t.id !== '' ? t.id : `${t.qa_id}/${row.attempt}`;
    if (byId.has(id)) id = `${id}#${index}`;
    byId.set(id, index);
    return { ...row, id };
  });
  return { header, trajectories, summaries, byId };
}

/** A run record; a run imported from verl has no config (its sets' headers say what they are). */
type RunRecord = ArtefactRecord<{ config?: RunConfig }>;

/**
 * The questions a run's set asks, by where the trainer drew them: an evaluation asks the held-out set, an
 * RL step the RL set (the training set when the run names none), a relabeling round the set its `from` names,
 * the RFT data the training set. Pure.
 */
export function runSetDatasetId(kind: RunSetKind, config: Pick<RunConfig, 'data' | 'relabel'>): string {
  const { data } = config;
  if (kind === 'eval') return data.heldOutDatasetId;
  if (kind === 'rl' || (kind === 'relabel' && config.relabel?.from === 'rl')) return data.rlDatasetId ?? data.datasetId;
  return data.datasetId;
}

const RUN_SET_FILES: Record<RunSetKind, (home: string, runId: string, step: number) => string> = {
  eval: evalFile,
  rl: rolloutsFile,
  relabel: relabelFile,
  rft: (home, runId) => rftFile(home, runId),
};

export class TrajectoryReader {
  private readonly sets = new Map<string, { mtimeMs: number; value: ParsedSet }>();

  constructor(
    private readonly home: string,
    private readonly data: () => StoreData,
    private readonly artefacts: ArtefactReader,
  ) {}

  /**
   * Every trajectory set the lab has, newest first: the stored ones (rollout jobs, each comparison's sets,
   * marked with their comparison) and each run's own (its RFT data, evaluations and RL steps).
   */
  list(): ArtefactRecord<TrajSetInfo>[] {
    const data = this.data();
    const comparisonOf = new Map<string, string>();
    for (const c of data.comparisons) for (const setId of (c.info.sets as string[] | undefined) ?? []) comparisonOf.set(setId, c.id);
    const stored = [...data.trajectories].reverse().map((a) => {
      const comparisonId = comparisonOf.get(a.id);
      return comparisonId ? { ...a, info: { ...a.info, comparisonId } } : a;
    });
    const ofRuns = data.runs.flatMap((run) => this.runSets(run as RunRecord));
    // Newest first across both (a run's set is as new as its file): the inspector opens the first.
    return [...stored, ...ofRuns].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  /** A run's own sets that exist on disk: its RFT data, relabeling rounds, then evaluations and RL steps by step. */
  private runSets(run: RunRecord): ArtefactRecord<TrajSetInfo>[] {
    const out: ArtefactRecord<TrajSetInfo>[] = [];
    const add = (kind: RunSetKind, step: number): void => {
      try {
        out.push(this.runArtefact(run, kind, step));
      } catch (err) {
        if (!(err instanceof LabError && err.code === 'not_found')) throw err;
      }
    };
    add('rft', 0); // skipped when the run has no RFT data yet (add swallows not_found)
    for (const round of relabelRounds(this.home, run.id)) add('relabel', round);
    for (const step of evalSteps(this.home, run.id)) add('eval', step);
    for (const step of rolloutSteps(this.home, run.id)) add('rl', step);
    return out;
  }

  private find(id: string): ArtefactRecord {
    const ref = parseRunSetId(id);
    if (ref) {
      const run = this.data().runs.find((r) => r.id === ref.runId);
      if (!run) throw new LabError('not_found', `no run with id '${ref.runId}'`);
      return this.runArtefact(run as RunRecord, ref.kind, ref.step);
    }
    const a = this.data().trajectories.find((x) => x.id === id);
    if (!a) throw new LabError('not_found', `no trajectory set with id '${id}'`);
    return a;
  }

  /**
   * One of a run's own sets as a trajectory set: the file the trainer wrote, with the dataset its questions
   * came from (runSetDatasetId) and the run's graph, so the inspector opens it like any set.
   */
  private runArtefact(run: RunRecord, kind: RunSetKind, step: number): ArtefactRecord<TrajSetInfo> {
    const file = RUN_SET_FILES[kind](this.home, run.id, step);
    let createdAt = run.createdAt;
    try {
      createdAt = statSync(file).mtime.toISOString();
    } catch {
      const what = { eval: `an evaluation at step ${step}`, rl: `rollouts stored for step ${step}`, relabel: `relabeling round ${step}`, rft: 'RFT data' }[kind];
      throw new LabError('not_found', `run ${run.id} has no ${what}`);
    }
    const config = run.info.config;
    const g = (config as { rl?: { groupSize?: unknown } } | undefined)?.rl?.groupSize;
    const n = kind === 'eval' ? config?.eval.samples : kind === 'rl' && typeof g === 'number' ? g : undefined;
    const name = {
      eval: `evaluation at step ${step}`,
      rl: `RL rollouts at step ${step}`,
      relabel: `relabeling round ${step} (the expert's label beside each action)`,
      rft: 'RFT data (expert demonstrations)',
    }[kind];
    return {
      id: runSetId({ kind, runId: run.id, step }),
      name: `${run.name} · ${name}`,
      path: relative(this.home, file),
      createdAt,
      info: {
        ...(config ? { datasetId: runSetDatasetId(kind, config), graphId: config.data.graphId } : {}),
        ...(n !== undefined ? { n } : {}),
        runId: run.id,
        kind,
        ...(kind === 'rft' ? {} : { step }),
      },
    };
  }

  /** `runs.rlStep`: an RL step's plan and summary, each group with its rollouts matched to the set's trajectory ids. */
  rlStep(runId: string, step: number): RlStepView {
    const { artefact, set } = this.load(runSetId({ kind: 'rl', runId, step }));
    const header = checkRlHeader(set.header, join(this.home, artefact.path));
    const wanted = new Set(header.plan.groups.map((g) => g.qa_id));
    const questions = new Map(this.qas(this.datasetId(artefact, set.header)).filter((q) => wanted.has(q.id)).map((q) => [q.id, q.question]));
    return rlStepView(runId, header, set.summaries, questions);
  }

  private load(id: string): { artefact: ArtefactRecord; set: ParsedSet } {
    const artefact = this.find(id);
    let mtimeMs: number;
    try {
      mtimeMs = statSync(join(this.home, artefact.path)).mtimeMs;
    } catch {
      throw new LabError('not_found', `${artefact.path} is listed in the store but missing from the data directory`);
    }
    const hit = this.sets.get(id);
    if (hit && hit.mtimeMs === mtimeMs) {
      // Most recently used last, so the oldest is the one dropped.
      this.sets.delete(id);
      this.sets.set(id, hit);
      return { artefact, set: hit.value };
    }
    const set = parseSet(join(this.home, artefact.path));
    this.sets.delete(id);
    this.sets.set(id, { mtimeMs, value: set });
    while (this.sets.size > CACHED_SETS) this.sets.delete(this.sets.keys().next().value!);
    return { artefact, set };
  }

  private datasetId(artefact: ArtefactRecord, header: Record<string, unknown>): string | null {
    const v = artefact.info.datasetId ?? header.datasetId;
    return typeof v === 'string' ? v : null;
  }

  private graphId(artefact: ArtefactRecord, header: Record<string, unknown>): string | null {
    const v = artefact.info.graphId ?? header.graphId;
    return typeof v === 'string' ? v : null;
  }

  /** The set's QAs, or none when its dataset is no longer in the store (the trajectories still show). */
  private qas(datasetId: string | null): QA[] {
    if (!datasetId) return [];
    try {
      return this.artefacts.dataset(datasetId).qas;
    } catch (err) {
      if (err instanceof LabError && err.code === 'not_found') return [];
      throw err;
    }
  }

  get(id: string): TrajSetView {
    const { artefact, set } = this.load(id);
    const wanted = new Set(set.summaries.map((s) => s.qa_id));
    // Keyed by QA ids from a dataset file: recordOf keeps an id such as __proto__ an ordinary key.
    const questions = recordOf<TrajQuestion>(
      this.qas(this.datasetId(artefact, set.header))
        .filter((qa) => wanted.has(qa.id))
        .map((qa) => [qa.id, { question: qa.question, answer: qa.answer, answer_id: qa.answer_id }] as const),
    );
    const stored = artefact.info.eval as TrajEval | undefined;
    // An RL step's header has no `n`: its groups' size is the k of pass@k.
    const groups = (set.header.plan as { groups?: Array<{ rewards?: unknown[] }> } | undefined)?.groups;
    const groupSize = Array.isArray(groups) ? Math.max(1, ...groups.map((g) => (Array.isArray(g?.rewards) ? g.rewards.length : 1))) : 1;
    const k = num(set.header.n, num(artefact.info.n, groupSize));
    const evalReport: TrajEval | null =
      stored ?? (set.trajectories.length ? evaluate(set.trajectories.map((t) => sampleFromTrajectory(t)), Math.max(1, k)) : null);
    return { artefact, header: set.header, trajectories: set.summaries, eval: evalReport, questions };
  }

  one(id: string, trajId: string): TrajDetail {
    const { artefact, set } = this.load(id);
    const index = set.byId.get(trajId);
    if (index === undefined) throw new LabError('not_found', `trajectory set ${id} has no trajectory '${trajId}'`);
    const trajectory = set.trajectories[index]!;
    const datasetId = this.datasetId(artefact, set.header);
    const qa = this.qas(datasetId).find((q) => q.id === trajectory.qa_id) ?? null;
    const question = qa?.question ?? (typeof trajectory.question === 'string' ? trajectory.question : '');
    const rendered = renderTrajectory(question, trajectory.steps as AgentStep[]);
    // A served model's episode: the conversation exactly as its server was sent it (agent/tools.ts chatRequest).
    const chat = /^(endpoint|llm):/.test(trajectory.policy) ? chatLayout(question, trajectory.steps as AgentStep[]) : undefined;
    return { setId: id, trajectory, qa, datasetId, graphId: this.graphId(artefact, set.header), rendered, ...(chat ? { chat } : {}) };
  }
}

/** The messages a chat model was sent over an episode, and its last turn: system, question, then assistant and tool turns. */
export function chatLayout(question: string, steps: readonly AgentStep[]): ChatMessage[] {
  return chatRequest({ stop: [], maxNewTokens: 0, turns: { system: systemPrompt(), question, steps } }, {}).messages;
}
