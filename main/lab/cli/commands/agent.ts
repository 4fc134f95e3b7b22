// `sailor env search|visit`, `sailor rollout`, `sailor eval`, `sailor rft`: the simulated web tools and the
// ReAct agent over a QA dataset (docs/formats.md, 'Command-line contract').
import { LLM_URL_ENV, llmApiKey } from '../../agent/llm-env';
import type { QA, Trajectory } from '../../formats/index';
import { LabError } from '../../base/errors';
import { readGraphFile } from '../../kg/io';
import { datasetSha256, writeTrajectorySet } from '../../store/traj-set';
import { readQaDataset, readTrajectories } from '../../agent/data';
import { simToolset } from '../../agent/env';
import { headroomCurve, sampleFromTrajectory } from '../../agent/eval';
import { evaluationSummary, trajectorySummary } from '../../agent/summary';
import { goldLookup } from '../../agent/failures';
import { FAILURE_CLASSES, FAILURE_TEXT, type FailureCounts } from '../../contract/failures';
import { headroomSentence } from '../../contract/stats';
import { llmReconstructor } from '../../agent/thoughts';
import { chatJudge } from '../../agent/reward';
import { chatFn, chatTool } from '../../agent/tools';
import { type PolicyContext, type PolicyFactory, resolvePolicy } from '../../agent/policies';
import { filterTrajectories, RFT_DEFAULTS } from '../../agent/rft';
import { preparePolicy, requireSomeModelEpisodes, rolloutDataset, type RolloutOptions } from '../../agent/rollout';
import { SimWeb, URL_SCHEME, extractEvidence } from '../../agent/web';
import { registerCheckpointPolicies, runEnvironment } from '../../train/policy/checkpoints';
import { resolveCheckpoint } from '../../runs/layout';
import { type CliCommand, type CommandContext, type OptionSpec, flag, optInt, optNumber, optString, printResult, reqString, sharedOptions, usageError } from '../command';
import { jobOptions, parseJobFlags, type JobFlags } from '../job-flags';
import { DEFAULT_MAX_TOOL_CALLS } from '../../contract/jobs';
import { levelBreakdown, levelOfQuestion, questionScores, type LevelBreakdown, type LevelRow } from '../../contract/level-breakdown';
import { rftExpert } from '../../train/policy/rft-expert';

registerCheckpointPolicies();

/** The checkpoint named by --checkpoint R/S or --policy ckpt:R/S, if any. */
function checkpointOf(ctx: CommandContext): string | undefined {
  const policy = optString(ctx, 'policy');
  return optString(ctx, 'checkpoint') ?? (policy?.startsWith('ckpt:') ? policy.slice('ckpt:'.length) : undefined);
}

/** The graph and web settings: from --graph, or, for a checkpoint without --graph, from its run's config. */
function loadWeb(ctx: CommandContext): SimWeb {
  const t0 = performance.now();
  const checkpoint = checkpointOf(ctx);
  const graphFlag = optString(ctx, 'graph');
  let web: SimWeb;
  if (checkpoint) {
    const ckpt = resolveCheckpoint(checkpoint);
    web = new SimWeb(readGraphFile(graphFlag ?? ckpt.graphFile), runEnvironment(ckpt.config).web);
  } else web = new SimWeb(readGraphFile(reqString(ctx, 'graph')));
  ctx.io.err(`indexed ${web.pages.length} pages in ${Math.round(performance.now() - t0)} ms\n`);
  return web;
}

function policyFor(ctx: CommandContext, web: SimWeb | null, checkpointTemperature?: number): PolicyFactory {
  const checkpoint = optString(ctx, 'checkpoint');
  const spec = checkpoint ? `ckpt:${checkpoint}` : reqString(ctx, 'policy');
  const llmUrl = optString(ctx, 'llm-url') ?? process.env[LLM_URL_ENV];
  const pctx: PolicyContext = {
    anchorName: web ? (id) => web.page(URL_SCHEME + id)?.title : undefined,
    expert: { maxCalls: optInt(ctx, 'max-tool-calls', DEFAULT_MAX_TOOL_CALLS, { min: 1 }) - 1 },
  };
  if (llmUrl) pctx.chat = { baseUrl: llmUrl, apiKey: llmApiKey(), temperature: optNumber(ctx, 'temperature', 1) };
  const temperature = optString(ctx, 'temperature') === undefined ? checkpointTemperature : optNumber(ctx, 'temperature', 0);
  if (temperature !== undefined) pctx.temperature = temperature;
  const reconstructor = optString(ctx, 'reconstructor-model');
  if (reconstructor) pctx.reconstructor = llmReconstructor(chatFn(chatTool({ baseUrl: requireLlmUrl(ctx, 'reconstructor-model'), apiKey: llmApiKey(), model: reconstructor })));
  try {
    return resolvePolicy(spec, pctx);
  } catch (err) {
    // A policy the command line names but this build cannot run is bad input (exit 2), not a crash.
    if (err instanceof LabError && err.code === 'unsupported') throw new LabError('bad_request', err.message);
    throw err;
  }
}

function requireLlmUrl(ctx: CommandContext, flagName: string): string {
  const url = optString(ctx, 'llm-url') ?? process.env[LLM_URL_ENV];
  if (!url) throw usageError(`--${flagName} needs an OpenAI-compatible server: pass --llm-url (or set SAILOR_LLM_URL)`);
  return url;
}

function loadQas(ctx: CommandContext): QA[] {
  const { qas } = readQaDataset(reqString(ctx, 'dataset'));
  const limit = optInt(ctx, 'limit', 0, { min: 0 });
  return limit > 0 ? qas.slice(0, limit) : qas;
}

/** A set's header fields for the dataset it was played on: the --dataset path and its content hash (docs/formats.md). */
function datasetHeader(ctx: CommandContext): { dataset: string; datasetSha256: string } {
  const dataset = reqString(ctx, 'dataset');
  return { dataset, datasetSha256: datasetSha256(dataset) };
}

function rolloutOptions(ctx: CommandContext, n: number): RolloutOptions {
  const mode = optString(ctx, 'reward') ?? 'em';
  if (mode !== 'em' && mode !== 'f1' && mode !== 'judge') throw usageError(`--reward must be em, f1 or judge, got '${mode}'`);
  const judgeModel = optString(ctx, 'judge-model');
  if (mode === 'judge' && !judgeModel) throw usageError('--reward judge needs --judge-model');
  return {
    n,
    reward: { mode },
    judge: judgeModel ? chatJudge(chatFn(chatTool({ baseUrl: requireLlmUrl(ctx, 'judge-model'), apiKey: llmApiKey(), model: judgeModel }))) : undefined,
    seed: optInt(ctx, 'rng', 0),
    limits: { maxToolCalls: optInt(ctx, 'max-tool-calls', checkpointOf(ctx) ? runEnvironment(resolveCheckpoint(checkpointOf(ctx)!).config).maxToolCalls : DEFAULT_MAX_TOOL_CALLS, { min: 1 }), maxTokens: optInt(ctx, 'max-tokens', 32_000, { min: 1 }) },
    // Unset: the policy's own (a checkpoint batches its episodes' turns), else one at a time.
    ...(optString(ctx, 'concurrency') === undefined ? {} : { concurrency: optInt(ctx, 'concurrency', 1, { min: 1, max: 64 }) }),
  };
}

async function runRollouts(ctx: CommandContext, n: number, checkpointTemperature?: number): Promise<{ trajs: Trajectory[]; factory: PolicyFactory; qas: QA[] }> {
  const web = loadWeb(ctx);
  const factory = policyFor(ctx, web, checkpointTemperature);
  const qas = loadQas(ctx);
  await preparePolicy(factory, { episodes: qas.length * n });
  const t0 = performance.now();
  let lastReport = 0;
  const trajs = await rolloutDataset(qas, factory, simToolset(web), rolloutOptions(ctx, n), (done, total) => {
    const now = performance.now();
    if (done === total || now - lastReport > 1000) {
      lastReport = now;
      ctx.io.err(`rollouts ${done}/${total} (${((done * 1000) / (now - t0)).toFixed(1)}/s)\n`);
    }
  });
  const infra = requireSomeModelEpisodes(trajs, factory.spec);
  if (infra.failed > 0) ctx.io.err(`warning: ${infra.failed} of ${infra.total} episodes failed on the infrastructure (${JSON.stringify(infra.byTermination)}); first error: ${infra.firstError ?? 'unknown'}\n`);
  return { trajs, factory, qas };
}

/** The failure breakdown in one line: `episodes 300: solved 150, repetition loop 12, ...` (classes with none left out). */
function failureLine(f: FailureCounts): string {
  const total = FAILURE_CLASSES.reduce((a, c) => a + f[c], 0);
  return `episodes ${total}: ${FAILURE_CLASSES.filter((c) => f[c] > 0).map((c) => `${FAILURE_TEXT[c].label} ${f[c]}`).join(', ')}`;
}

/**
 * pass@1 by hops and by obfuscation level (contract/level-breakdown.ts), with `--expert` the RFT expert's on the
 * same questions (one episode each, the same seed) beside each row: the ceiling the environment allows.
 */
async function byLevel(ctx: CommandContext, qas: readonly QA[], trajs: readonly Trajectory[]): Promise<LevelBreakdown> {
  const levels = new Map(qas.map((q) => [q.id, levelOfQuestion(q)]));
  const scores = questionScores(trajs.map((t) => sampleFromTrajectory(t)));
  if (!flag(ctx, 'expert')) return levelBreakdown(scores, levels);
  const checkpoint = checkpointOf(ctx);
  const graph = readGraphFile(optString(ctx, 'graph') ?? resolveCheckpoint(checkpoint!).graphFile);
  const web = new SimWeb(graph, checkpoint ? runEnvironment(resolveCheckpoint(checkpoint).config).web : undefined);
  const expertTrajs = await rolloutDataset(qas, rftExpert('compact', graph), simToolset(web), { ...rolloutOptions(ctx, 1), concurrency: 1 });
  return levelBreakdown(scores, levels, questionScores(expertTrajs.map((t) => sampleFromTrajectory(t))));
}

function levelLines(b: LevelBreakdown): string[] {
  const pct = (x: number | null): string => (x === null ? '   -' : x.toFixed(3));
  const rows = (name: string, rs: LevelRow[]): string[] => [`pass@1 by ${name} (questions, policy, expert):`, ...rs.map((r) => `  ${name} ${r.key}: ${r.questions}  ${pct(r.passAt1)}  ${pct(r.expert)}`)];
  return [...rows('hops', b.hops), ...rows('level', b.level)];
}

const graphOpt = sharedOptions.webGraph();
const runOpts: OptionSpec = {
  ...graphOpt,
  dataset: { type: 'string', description: 'a sailor.qa/1 JSON Lines file' },
  policy: { type: 'string', description: 'oracle | base | untrained[:<seed>] | llm:<model> | ckpt:<run>/<step>' },
  rng: { type: 'string', description: 'seed of the per-attempt random streams', default: '0' },
  limit: { type: 'string', description: 'use only the first N QAs (0: all)', default: '0' },
  'max-tool-calls': { type: 'string', description: 'tool calls per episode before the agent must answer', default: String(DEFAULT_MAX_TOOL_CALLS) },
  'max-tokens': { type: 'string', description: 'context budget per episode (approximate tokens)', default: '32000' },
  concurrency: { type: 'string', description: 'episodes run at once (useful for llm policies)', default: '1' },
  'llm-url': { type: 'string', description: 'OpenAI-compatible base URL for llm:<model> (or SAILOR_LLM_URL)' },
  temperature: { type: 'string', description: 'sampling temperature (default: 1 for llm policies; for a checkpoint, 0 (greedy) in eval, its run\'s eval temperature otherwise)' },
  reward: { type: 'string', description: 'answer score: em (exact match), f1 (word F1) or judge (LLM)', default: 'em' },
  'judge-model': { type: 'string', description: 'model of the LLM judge (at --llm-url)' },
  'reconstructor-model': { type: 'string', description: "model that rewrites the expert's thoughts (at --llm-url); default: rules" },
};

/**
 * `rollout` takes the rollout job's params as flags; the dataset and graph are files here (--dataset, --graph)
 * where the job names stored ones. The stand-in only lets the schema check the rest.
 */
const rolloutFlags: JobFlags<'rollout'> = { kind: 'rollout', omit: ['name', 'graphId', 'datasetId'], standIns: { datasetId: 'file' }, engineDefaults: { maxToolCalls: DEFAULT_MAX_TOOL_CALLS } };

export const agentCommands: CliCommand[] = [
  {
    path: ['env', 'search'],
    summary: 'the simulated search tool: top-10 pages per query by BM25, with the best-matching sentence',
    usage: 'env search --graph G.json "query" ["query" …] [--json]',
    options: { ...graphOpt, ...sharedOptions.json('[{query, results: [{title, snippet, url}]}]') },
    positionals: { min: 1, max: 5 },
    async run(ctx) {
      const web = loadWeb(ctx);
      const queries = ctx.positionals;
      if (queries.every((q) => q.trim() === '')) throw usageError('the query is empty');
      printResult(
        ctx,
        queries.map((query) => ({ query, results: web.searchResults(query) })),
        () => web.search(queries),
      );
    },
  },
  {
    path: ['env', 'visit'],
    summary: 'the simulated visit tool: evidence and summary of a page, focused on a goal',
    usage: 'env visit --graph G.json URL [URL …] --goal "…" [--json]',
    options: {
      ...graphOpt,
      goal: { type: 'string', description: 'what to look for in the page(s)' },
      ...sharedOptions.json('[{url, found, title, evidence: [...], summary}]'),
    },
    positionals: { min: 1, max: 5 },
    async run(ctx) {
      const web = loadWeb(ctx);
      const goal = reqString(ctx, 'goal');
      const value = ctx.positionals.map((url) => {
        const page = web.page(url);
        if (!page) return { url, found: false };
        const ex = extractEvidence(page.sentences, goal, web.idf, web.options.maxEvidence);
        return { url, found: true, title: page.title, canonical_url: page.url, evidence: ex.evidence, summary: ex.summary };
      });
      printResult(ctx, value, () => web.visit(ctx.positionals, goal));
      return value.every((v) => v.found) ? 0 : 1;
    },
  },
  {
    path: ['rollout'],
    job: rolloutFlags,
    summary: 'runs the ReAct agent on every QA of a dataset and writes sailor.traj/1 trajectories',
    usage: 'rollout --graph G.json --dataset D.jsonl --policy P --out T.jsonl [--n N] [--rng S] [--json]',
    options: {
      ...runOpts,
      ...jobOptions(rolloutFlags),
      out: { type: 'string', description: 'where to write the trajectories (JSON Lines, header first)' },
      ...sharedOptions.json(),
    },
    async run(ctx) {
      const { n, rng } = parseJobFlags(ctx, rolloutFlags);
      const out = reqString(ctx, 'out');
      const { trajs, factory, qas } = await runRollouts(ctx, n);
      writeTrajectorySet(out, { policy: factory.spec, ...datasetHeader(ctx), graph: optString(ctx, 'graph'), n, rng }, trajs);
      const summary = { out, ...trajectorySummary(trajs, goldLookup(qas)) };
      printResult(ctx, summary, () => Object.entries(summary).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`).join('\n'));
    },
  },
  {
    path: ['eval'],
    summary: 'pass@1, pass@k, avg@k, cons@k, tool calls, turns, tokens, terminations and the failure breakdown of a policy on a dataset',
    usage: 'eval (--policy P | --checkpoint R/S) --graph G.json --dataset D.jsonl [--k K] [--n N] [--json] | eval --trajectories T.jsonl [--dataset D.jsonl] [--k K] [--json]',
    options: {
      ...runOpts,
      checkpoint: { type: 'string', description: 'a checkpoint R/S (same as --policy ckpt:R/S)' },
      k: { type: 'string', description: 'k of pass@k, avg@k, cons@k', default: '1' },
      n: { type: 'string', description: 'samples per question (default: k)' },
      trajectories: { type: 'string', description: 'evaluate existing rollouts instead of running the policy' },
      out: { type: 'string', description: 'also write the rollouts here' },
      expert: { type: 'boolean', description: 'also run the RFT expert (compact) on the same questions: its pass@1 beside each hop count and level, the ceiling' },
      ...sharedOptions.json('the report'),
    },
    async run(ctx) {
      const k = optInt(ctx, 'k', 1, { min: 1, max: 1000 });
      let levels: LevelBreakdown | null = null;
      let trajs: Trajectory[];
      // The questions behind the failure breakdown: the dataset's (with --trajectories, when --dataset is given).
      let qas: readonly QA[] = [];
      const from = optString(ctx, 'trajectories');
      if (from) {
        trajs = readTrajectories(from);
        if (optString(ctx, 'dataset')) qas = loadQas(ctx);
      } else {
        const n = optInt(ctx, 'n', k, { min: 1, max: 1000 });
        if (n < k) throw usageError(`--n (${n}) must be at least --k (${k})`);
        // One sample per question is pass@1 as the papers report it for a checkpoint: greedy.
        const run = await runRollouts(ctx, n, n === 1 ? 0 : undefined);
        trajs = run.trajs;
        qas = run.qas;
        const out = optString(ctx, 'out');
        if (out) writeTrajectorySet(out, { policy: run.factory.spec, ...datasetHeader(ctx), graph: optString(ctx, 'graph'), n }, trajs);
        levels = await byLevel(ctx, run.qas, trajs);
      }
      const samples = trajs.map((t) => sampleFromTrajectory(t));
      const { report } = evaluationSummary(trajs, k, qas.length ? goldLookup(qas) : undefined);
      // With several samples a question: the headroom curve, pass@k at k = 1, 2, 4, ... n.
      const curve = samples.length > report.questions ? headroomCurve(samples) : null;
      printResult(ctx, { ...report, ...(curve ? { curve, headroom: headroomSentence(curve) } : {}), ...(levels ? { levels } : {}) }, () =>
        [
          ...(curve ? [`pass@k curve ${curve.map((p) => `${p.k}:${p.passAtK.toFixed(3)}`).join(' ')}`, headroomSentence(curve)] : []),
          ...(levels ? levelLines(levels) : []),
          `questions ${report.questions}, samples ${report.samples}, k ${k}`,
          `pass@1 ${report['pass@1'].toFixed(3)}  pass@${k} ${report['pass@k'].toFixed(3)}  avg@${k} ${report['avg@k'].toFixed(3)}  cons@${k} ${report['cons@k'].toFixed(3)}`,
          `tool calls ${report.all.tool_calls_mean.toFixed(2)} ${JSON.stringify(report.all.tool_calls_by_type)}, turns ${report.all.turns_mean.toFixed(2)}, tokens ${report.all.tokens_mean.toFixed(0)}`,
          `terminations ${JSON.stringify(report.all.termination)}`,
          `solved questions ${report.solved.questions}: tool calls ${report.solved.tool_calls_mean.toFixed(2)}, turns ${report.solved.turns_mean.toFixed(2)}`,
          ...(report.failures ? [failureLine(report.failures)] : []),
        ].join('\n'),
      );
    },
  },
  {
    path: ['rft'],
    summary: 'RFT cold-start data: N expert attempts per QA, keep correct, well-formed, short enough, complex enough, not repetitive',
    usage: 'rft --graph G.json --dataset D.jsonl --out T.jsonl [--attempts N] [--min-tool-calls M] [--max-tokens L] [--json]',
    options: {
      ...runOpts,
      policy: { type: 'string', description: 'the expert policy', default: 'oracle' },
      out: { type: 'string', description: 'where to write the kept trajectories' },
      attempts: { type: 'string', description: 'attempts per QA', default: String(RFT_DEFAULTS.attempts) },
      'min-tool-calls': { type: 'string', description: 'keep trajectories with MORE tool calls than this', default: String(RFT_DEFAULTS.minToolCalls) },
      'max-per-qa': { type: 'string', description: 'keep at most this many per QA (0: all)', default: '0' },
      ...sharedOptions.json('the filter report'),
    },
    async run(ctx) {
      const out = reqString(ctx, 'out');
      const attempts = optInt(ctx, 'attempts', RFT_DEFAULTS.attempts, { min: 1, max: 100 });
      // The expert unless --policy names another (a flag left out is absent: cli/index.ts givenOnly).
      const { trajs, factory } = await runRollouts({ ...ctx, values: { policy: 'oracle', ...ctx.values } }, attempts);
      const maxPerQa = optInt(ctx, 'max-per-qa', 0, { min: 0 });
      const { kept, report } = filterTrajectories(trajs, {
        maxTokens: optInt(ctx, 'max-tokens', RFT_DEFAULTS.maxTokens, { min: 1 }),
        minToolCalls: optInt(ctx, 'min-tool-calls', RFT_DEFAULTS.minToolCalls, { min: 0 }),
        maxPerQa: maxPerQa > 0 ? maxPerQa : Infinity,
      });
      writeTrajectorySet(out, { policy: factory.spec, ...datasetHeader(ctx), graph: optString(ctx, 'graph'), rft: report }, kept);
      printResult(ctx, { out, ...report }, () => `kept ${report.kept}/${report.attempts} (questions ${report.questions_kept}/${report.questions}); removed ${JSON.stringify(report.removed)}`);
    },
  },
];
