// The `compare` job: two or more checkpoints answer the same held-out questions with the same seeds, each
// in the simulated web its run trained in. By default it asks what the first checkpoint's run's own evaluation
// asks (its held-out set, question count, samples, temperature and seed), so a checkpoint scores the pass@1 the
// dashboard shows for it. Each checkpoint's trajectories become a set in the store (so the inspector shows
// them), and comparisons/<id>.json holds the question-by-question outcome table.
import { join } from 'node:path';
import type { ArtefactRecord, ComparisonFile } from '../../contract';
import { runEvalProtocol, type EvalProtocol } from '../../contract/eval-protocol';
import { LabError } from '../../base/errors';
import { isInfrastructureFailure } from '../../formats/index';
import { writeJsonAtomic } from '../../store/files';
import { artefactFile, artefactRel } from '../../store/layout';
import { resolveCheckpoint } from '../../runs/layout';
import { rollOutSet } from './rollout-job';
import { evalSeed } from '../policy/eval-setup';
import { compareParams, type CompareParams } from '../../contract/jobs';
import type { ArtefactCollection } from '../../jobs/specs';
import type { JobContext } from '../../jobs/context';
import type { RunConfig } from '../../contract/run-config';
import { readQaDataset } from '../../agent/data';
import { readGraphFile } from '../../kg/io';
import { SimWeb } from '../../agent/web';
import { simToolset } from '../../agent/env';
import { rolloutDataset } from '../../agent/rollout';
import { sampleFromTrajectory } from '../../agent/eval';
import { questionScores } from '../../contract/level-breakdown';
import { rftExpert } from '../policy/rft-expert';
import { runEnvironment } from '../policy/checkpoints';
import { isCorrect } from '../../contract/correct';
import { endpointIdOf } from '../../contract/endpoints';
import { journalHead, openJournal, readJournal } from './compare-journal';

/** Which of two checkpoints solved a question (solved = at least one sample correct). */
export function outcomeOf(a: boolean, b: boolean): 'both' | 'a_only' | 'b_only' | 'neither' {
  return a && b ? 'both' : a ? 'a_only' : b ? 'b_only' : 'neither';
}

/** Time left at the pace so far, once a twentieth is done (earlier, loading dominates and the pace says little). */
export function timeLeftAt(fraction: number, elapsedMs: number): { secondsLeft?: number } {
  return fraction >= 0.05 && fraction < 1 ? { secondsLeft: Math.round(((elapsedMs / 1000) * (1 - fraction)) / fraction) } : {};
}

/** The protocol a comparison runs: what its params say, the first checkpoint's run's evaluation for the rest. */
export function comparisonProtocol(p: CompareParams, runEval: EvalProtocol | null): EvalProtocol {
  const datasetId = p.datasetId ?? runEval?.datasetId;
  if (!datasetId) throw new LabError('bad_request', `${runEval === null ? 'no compared checkpoint has a run that' : `checkpoint ${p.checkpoints[0]}'s run`} names no held-out set: choose the questions (datasetId)`);
  return {
    datasetId,
    questions: p.questions ?? runEval?.questions ?? 300,
    samples: p.samples ?? runEval?.samples ?? 1,
    temperature: p.temperature ?? runEval?.temperature ?? 0,
    rng: p.rng ?? runEval?.rng ?? 0,
  };
}

/** A comparison's entry as a rollout's policy: a saved endpoint as it is, a checkpoint `<run>/<step>` as `ckpt:`. */
export const comparedPolicy = (ref: string): string => (endpointIdOf(ref) !== null ? ref : `ckpt:${ref}`);

export async function runCompare(raw: unknown, ctx: JobContext): Promise<{ artefact: ArtefactRecord; also: Array<{ collection: ArtefactCollection; artefact: ArtefactRecord }> }> {
  const p = compareParams.parse(raw);
  // The first lab checkpoint's run sets the protocol and the expert's web; endpoints alone need the questions named.
  const firstCkpt = p.checkpoints.find((ref) => endpointIdOf(ref) === null);
  const firstRun = firstCkpt === undefined ? null : resolveCheckpoint(firstCkpt, ctx.home).config;
  const proto = comparisonProtocol(p, firstRun && runEvalProtocol(firstRun));
  // Every episode is journaled as it ends, so a stopped comparison resumes where it stopped (resumeOf).
  const head = journalHead(p.checkpoints, proto);
  const journal = openJournal(ctx.dir, head, p.resumeOf ? readJournal(ctx.home, p.resumeOf, head) : []);
  if (p.resumeOf) ctx.log(`resuming comparison ${p.resumeOf}: ${journal.kept} episodes kept, the rest played`);
  let playedNow = 0;
  const sets: ArtefactRecord[] = [];
  const solvedBy: Array<Map<string, { correct: number; n: number; trajIds: string[] }>> = [];
  const questions = new Map<string, string>();
  const t0 = performance.now();
  for (const [i, ref] of p.checkpoints.entries()) {
    const share = 1 / p.checkpoints.length;
    const { artefact, trajs } = await rollOutSet(
      ctx,
      { datasetId: proto.datasetId, policy: comparedPolicy(ref), n: proto.samples, rng: proto.rng, limit: proto.questions, reward: 'em', name: `${ref} (comparison ${ctx.jobId})` },
      `${ctx.jobId}-${i}`,
      (f, message) => {
        const fraction = Math.min(0.98, (i + f) * share);
        ctx.progress({ fraction, message: `${ref}: ${message}`, ...timeLeftAt(fraction, performance.now() - t0) });
      },
      { seed: evalSeed(proto.rng), temperature: proto.temperature, played: journal.played(i), onPlayed: (t) => {
        journal.append(i, t);
        playedNow++;
      } },
    );
    sets.push(artefact);
    const byQa = new Map<string, { correct: number; n: number; trajIds: string[] }>();
    for (const t of trajs) {
      const row = byQa.get(t.qa_id) ?? { correct: 0, n: 0, trajIds: [] };
      // An infrastructure failure is no sample of the model's: kept in the list, left out of n.
      if (!isInfrastructureFailure(t.termination)) row.n++;
      if (isCorrect(t.reward)) row.correct++;
      row.trajIds.push(t.id);
      byQa.set(t.qa_id, row);
      questions.set(t.qa_id, t.qa_id);
    }
    solvedBy.push(byQa);
  }
  journal.close();
  ctx.progress({ fraction: 0.98, message: 'the expert on the same questions (each level\'s ceiling)' });
  const expert = firstRun ? await expertScoresOn(ctx, proto, firstRun) : undefined;
  const file: ComparisonFile = {
    expert,
    checkpoints: p.checkpoints.map((ref, i) => ({ ref, setId: sets[i]!.id, eval: (sets[i]!.info.eval ?? null) as ComparisonFile['checkpoints'][number]['eval'], counts: sets[i]!.info.counts as Record<string, unknown> })),
    questions: [...questions.keys()].map((qaId) => ({
      qa_id: qaId,
      results: solvedBy.map((m) => m.get(qaId) ?? { correct: 0, n: 0, trajIds: [] }),
    })),
  };
  const solved = (i: number, q: ComparisonFile['questions'][number]): boolean => (q.results[i]?.correct ?? 0) > 0;
  const tally: Record<string, number> = { both: 0, a_only: 0, b_only: 0, neither: 0 };
  for (const q of file.questions) tally[outcomeOf(solved(0, q), solved(1, q))]!++;
  const rel = artefactRel('comparisons', ctx.jobId);
  writeJsonAtomic(join(ctx.home, rel), file);
  // The params as run: every protocol field filled in, so the view can say how it differs from the dashboard's.
  const params: CompareParams = { ...p, ...proto };
  return {
    artefact: {
      id: ctx.jobId,
      name: p.name ?? `${p.checkpoints.join(' vs ')} on ${file.questions.length} questions`,
      path: rel,
      createdAt: new Date().toISOString(),
      info: {
        params, datasetId: proto.datasetId, sets: sets.map((s) => s.id), outcomes: tally,
        // A resumed comparison says how much of it the stopped one had played.
        ...(p.resumeOf ? { resumed: { from: p.resumeOf, kept: journal.kept, played: playedNow } } : {}),
      },
    },
    also: sets.map((artefact) => ({ collection: 'trajectories' as const, artefact })),
  };
}

/**
 * The expert's pass@1 per question of a comparison (one episode each, the comparison's seed), in the simulated
 * web of the first checkpoint's run and with its RFT expert: the ceiling Compare shows beside each level.
 * Undefined when the dataset does not say which graph it came from.
 */
async function expertScoresOn(ctx: JobContext, proto: EvalProtocol, config: RunConfig): Promise<Record<string, number> | undefined> {
  const ds = artefactFile(ctx.home, 'datasets', proto.datasetId);
  const { header, qas } = readQaDataset(ds.path);
  const graphId = typeof ds.info.graphId === 'string' ? ds.info.graphId : typeof header?.graph === 'string' ? header.graph : undefined;
  if (!graphId) return undefined;
  const graph = readGraphFile(artefactFile(ctx.home, 'graphs', graphId).path);
  const env = runEnvironment(config);
  const trajs = await rolloutDataset(qas.slice(0, proto.questions), rftExpert(config.rft.style, graph), simToolset(new SimWeb(graph, env.web)), {
    n: 1, seed: evalSeed(proto.rng), limits: { maxToolCalls: env.maxToolCalls, maxNewTokens: env.maxNewTokens },
  });
  return Object.fromEntries(questionScores(trajs.map((t) => sampleFromTrajectory(t))));
}
