// The `rollout` job: runs the ReAct agent over a dataset in the simulated web (n attempts per QA, in the
// same QA-major order and with the same per-attempt seeds as `sailor rollout`), scores every trajectory,
// evaluates the set, and writes `trajectories/<jobId>.jsonl` atomically (header line, then one trajectory
// per line). The artefact it returns is registered in the store's `trajectories` collection.
import { join } from 'node:path';
import type { ArtefactRecord } from '../../store/db';
import type { QA, Trajectory } from '../../formats';
import { LabError } from '../../base/errors';
import { readGraphFile } from '../../kg/io';
import { artefactFile, artefactRel } from '../../store/layout';
import { resolveCheckpoint } from '../../runs/layout';
import { isModelPolicy, registerCheckpointPolicies, runEnvironment } from '../policy/checkpoints';
import { datasetSha256, writeTrajectorySet } from '../../store/traj-set';
import { readQaDataset } from '../../agent/data';
import { simToolset } from '../../agent/env';
import { evaluationSummary, trajectorySummary } from '../../agent/summary';
import { goldLookup } from '../../agent/failures';
import { resolvePolicy, type PolicyContext, type PolicyFactory } from '../../agent/policies';
import { llmApiKey, LLM_URL_ENV } from '../../agent/llm-env';
import { findEndpoint } from '../../agent/endpoints';
import { preparePolicy, requireSomeModelEpisodes, rolloutDataset, type RolloutOptions } from '../../agent/rollout';
import { SimWeb, URL_SCHEME, type WebOptions } from '../../agent/web';
import { chatJudge, type Judge } from '../../agent/reward';
import { chatFn, chatTool } from '../../agent/tools';
import { DEFAULT_MAX_TOOL_CALLS, rolloutParams, type RolloutParams } from '../../contract/jobs';
import { throwIfCancelled, type JobContext } from '../../jobs/context';
import { isCorrect } from '../../contract/correct';

function policyFactory(home: string, p: RolloutParams, web: SimWeb, maxToolCalls: number, temperature?: number): PolicyFactory {
  const pctx: PolicyContext = {
    endpoint: (id) => findEndpoint(home, id),
    ...(temperature === undefined ? {} : { temperature }),
    anchorName: (id) => web.page(URL_SCHEME + id)?.title,
    expert: { maxCalls: maxToolCalls - 1 },
  };
  const llmUrl = process.env[LLM_URL_ENV];
  if (llmUrl) pctx.chat = { baseUrl: llmUrl, apiKey: llmApiKey() };
  return resolvePolicy(p.policy, pctx);
}

/** The LLM judge of `reward: 'judge'`, at the server the llm policies use. */
function judgeOf(p: RolloutParams): Judge | undefined {
  if (p.reward !== 'judge') return undefined;
  const baseUrl = process.env[LLM_URL_ENV];
  if (!baseUrl) throw new LabError('bad_request', `reward judge needs an OpenAI-compatible server: set ${LLM_URL_ENV}`);
  return chatJudge(chatFn(chatTool({ baseUrl, apiKey: llmApiKey(), model: p.judgeModel! })));
}

/** The set's summary with its question count second. */
function counts(trajs: readonly Trajectory[]): Record<string, unknown> {
  return { trajectories: trajs.length, questions: new Set(trajs.map((t) => t.qa_id)).size, ...trajectorySummary(trajs) };
}

export async function runRollout(raw: unknown, ctx: JobContext): Promise<{ artefact: ArtefactRecord }> {
  const p = rolloutParams.parse(raw);
  const { artefact } = await rollOutSet(ctx, p, ctx.jobId, (fraction, message, done, total) => ctx.progress({ fraction, message, done, total }));
  return { artefact };
}

/** What the checkpoint comparison sets beyond a rollout's params: its runs' evaluation seed and temperature. */
export interface RolloutProtocol {
  /** The rollout seed (default: the params' rng). */
  seed?: number;
  /** A checkpoint policy's sampling temperature (default: its run's eval.temperature). */
  temperature?: number;
  /** Episodes a stopped comparison played, by trajectory id: kept, not played again (compare-journal.ts). */
  played?: ReadonlyMap<string, Trajectory>;
  /** Called with each episode the moment it ends, before a cancel can stop the rest (the comparison's journal). */
  onPlayed?: (traj: Trajectory) => void;
}

/**
 * Rolls a policy out over a dataset and writes the set as `trajectories/<id>.jsonl`; returns the artefact
 * to register and the trajectories. Shared by the rollout job and the checkpoint comparison. A checkpoint
 * policy acts in its run's simulated web with its run's limits, as the run's own evaluation does.
 */
export async function rollOutSet(
  ctx: JobContext,
  p: RolloutParams,
  id: string,
  progress: (fraction: number, message: string, done?: number, total?: number) => void,
  protocol: RolloutProtocol = {},
): Promise<{ artefact: ArtefactRecord; trajs: Trajectory[] }> {
  progress(0, `reading dataset ${p.datasetId}`);
  const ds = artefactFile(ctx.home, 'datasets', p.datasetId);
  const { header: dsHeader, qas: allQas } = readQaDataset(ds.path);
  const graphId = p.graphId ?? (typeof ds.info.graphId === 'string' ? ds.info.graphId : typeof dsHeader?.graph === 'string' ? dsHeader.graph : undefined);
  if (!graphId) throw new LabError('bad_request', `dataset ${p.datasetId} does not say which graph it came from: pass graphId`);
  // A checkpoint policy runs in the simulated-web settings its run was trained with.
  let webOptions: Partial<WebOptions> = {};
  let maxToolCalls = p.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
  let maxNewTokens: number | undefined;
  if (isModelPolicy(p.policy)) {
    registerCheckpointPolicies(ctx.home);
    if (p.policy.startsWith('ckpt:')) {
      const env = runEnvironment(resolveCheckpoint(p.policy.slice('ckpt:'.length), ctx.home).config);
      webOptions = env.web;
      maxToolCalls = p.maxToolCalls ?? env.maxToolCalls;
      maxNewTokens = env.maxNewTokens;
    }
  }
  progress(0.01, `indexing graph ${graphId}`);
  const web = new SimWeb(readGraphFile(artefactFile(ctx.home, 'graphs', graphId).path), webOptions);
  const factory = policyFactory(ctx.home, p, web, maxToolCalls, protocol.temperature);
  const tools = simToolset(web);
  const qas: QA[] = p.limit ? allQas.slice(0, p.limit) : allQas;
  // A resumed comparison plays only what its journal lacks; one whose episodes were all played loads no model.
  const toPlay = qas.length * p.n - (protocol.played?.size ?? 0);
  if (toPlay > 0) await preparePolicy(factory, { episodes: toPlay });
  const opts: RolloutOptions = {
    n: p.n, seed: protocol.seed ?? p.rng, reward: { mode: p.reward }, judge: judgeOf(p),
    limits: { maxToolCalls, ...(maxNewTokens === undefined ? {} : { maxNewTokens }) },
    ...(protocol.played ? { played: protocol.played } : {}),
  };

  // The policy's episodes in flight at once (a checkpoint decodes their turns as one batch), QA-major order.
  // Progress once per question's worth of trajectories; a cancel stops every episode loop at its next end.
  let solved = [...(protocol.played?.values() ?? [])].filter((t) => isCorrect(t.reward)).length;
  const trajs = await rolloutDataset(qas, factory, tools, opts, (done, total, finished) => {
    protocol.onPlayed?.(finished);
    throwIfCancelled(ctx);
    if (isCorrect(finished.reward)) solved++;
    if (done % p.n === 0) progress(Math.min(0.97, done / total), `QA ${done / p.n} of ${qas.length} (${done}/${total} trajectories, ${solved} correct)`, done / p.n, qas.length);
  });
  // A field docs/formats.md allows on `sailor.traj/1`: which attempt at its question.
  trajs.forEach((t, i) => (t.attempt = i % p.n));

  requireSomeModelEpisodes(trajs, factory.spec);
  // The evaluation with its failure breakdown on the dataset's questions.
  const { report } = evaluationSummary(trajs, p.n, goldLookup(qas));
  const rel = artefactRel('trajectories', id);
  progress(0.98, `writing ${rel}`);
  const header = {
    policy: factory.spec, graphId, datasetId: p.datasetId, datasetSha256: datasetSha256(ds.path),
    n: p.n, rng: p.rng, reward: p.reward, ...(p.limit ? { limit: p.limit } : {}),
    ...(protocol.seed === undefined ? {} : { seed: protocol.seed }), ...(protocol.temperature === undefined ? {} : { temperature: protocol.temperature }),
  };
  writeTrajectorySet(join(ctx.home, rel), header, trajs);
  return {
    trajs,
    artefact: {
      id,
      name: p.name ?? `${factory.spec} × ${p.n} · ${qas.length} QAs · rng ${p.rng}`,
      path: rel,
      createdAt: new Date().toISOString(),
      info: { params: p, graphId, datasetId: p.datasetId, policy: factory.spec, n: p.n, counts: counts(trajs), eval: report },
    },
  };
}
