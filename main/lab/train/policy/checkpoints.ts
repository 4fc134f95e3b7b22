// `ckpt:<run>/<step>` (or `<run>/last`) as a policy anywhere one is accepted. The run's config says which
// graph and which simulated-web settings the policy was trained in, so evaluating a checkpoint needs no
// other input. Registration is cheap: the model code (and TensorFlow.js) loads on the first generate.
import { LabError } from '../../base/errors';
import { defaultHome } from '../../base/home';
import { registerPolicyKind, type PolicyFactory } from '../../agent/policies';
import type { Policy } from '../../agent/runtime';
import type { WebOptions } from '../../agent/web';
import type { RunConfig } from '../../contract/run-config';
import { checkpointDir, checkpointRef, checkpointSteps, resolveCheckpoint } from '../../runs/layout';
import type { LoadedCheckpoint } from '../../model/checkpoint';
import { EPISODES_IN_FLIGHT, runLimits } from './eval-setup';
import type { GPT } from '../../model/gpt';
import type { Tokenizer } from '../../model/tokenizer';

/**
 * The newest of a run's checkpoints that verifies (manifest, sizes and SHA-256 of every file, checked by
 * loadCheckpoint), for a resume: a checkpoint truncated by a full disk or a kill mid-copy is passed over
 * with a note saying so. Undefined when the run has none; an error naming each failure when none verifies.
 */
export async function loadNewestVerifiedCheckpoint(home: string, runId: string, note: (message: string) => void): Promise<{ step: number; loaded: LoadedCheckpoint } | undefined> {
  const { loadCheckpoint } = await import('../../model/checkpoint');
  const steps = checkpointSteps(home, runId);
  const failures: string[] = [];
  for (const step of [...steps].reverse()) {
    try {
      const loaded = await loadCheckpoint(checkpointDir(home, runId, step));
      if (failures.length) note(`resuming from checkpoint ${checkpointRef(runId, step)}, the newest that verifies`);
      return { step, loaded };
    } catch (err) {
      if (!(err instanceof LabError) || (err.code !== 'corrupt' && err.code !== 'bad_input')) throw err;
      failures.push(`step ${step}: ${err.message}`);
      note(`checkpoint ${checkpointRef(runId, step)} does not verify (${err.message}); trying the one before`);
    }
  }
  if (failures.length) throw new LabError('corrupt', `run ${runId}: no checkpoint verifies, so it cannot be resumed: ${failures.join('; ')}`);
  return undefined;
}

/** The simulated-web settings and limits a run trained and evaluated its policy with. */
export function runEnvironment(config: RunConfig): { web: Partial<WebOptions>; maxToolCalls: number; maxNewTokens: number } {
  return { web: { topK: config.env.topK, snippetChars: config.env.snippetChars, maxEvidence: config.env.maxEvidence }, ...runLimits(config) };
}

/** A model and its tokenizer, loaded for a policy. */
type ModelLoad = () => Promise<{ model: GPT; tokenizer: Tokenizer | null; where: string }>;

/**
 * Episodes from which a model policy decodes on more threads than this one: a full batch of one thread
 * (EPISODES_IN_FLIGHT). Fewer would only split a small batch, and the threads' start (the first time in a
 * process) would cost more than they give.
 */
export const ACTING_THREADS_FROM = EPISODES_IN_FLIGHT;

/**
 * A policy over a model that is loaded on the first generate (or by `ready`), on the backend its source
 * names; the same factory for a run's checkpoint, the base model and an untrained model. Given at least
 * ACTING_THREADS_FROM episodes to play (`ready`'s plan), its turns decode on `threads` threads, those the
 * process keeps (model/acting-threads.ts ActingThreads.kept), with EPISODES_IN_FLIGHT episodes in flight
 * for each; the episodes are those of one thread.
 */
function modelPolicy(spec: string, kind: string, temperature: number, threads: RunConfig['workers'], src: ModelSource): PolicyFactory {
  let loaded: Promise<Policy> | null = null;
  const load = async (episodes: number): Promise<Policy> => {
    const [{ checkpointPolicy }, { BatchDecoder }, { ActingThreads, defaultActingThreads }] = await Promise.all([
      import('./policy'), import('../../model/batch-decoder'), import('../../model/acting-threads'),
    ]);
    const { model, tokenizer, backend } = await loadModelSource(src);
    const n = episodes >= ACTING_THREADS_FROM ? (threads === 'auto' ? defaultActingThreads(backend) : threads) : 1;
    // Every episode in flight decodes its turns in one batch (rolloutDataset plays `inFlight` at once), a batch per thread.
    const decoder = n > 1 ? ActingThreads.kept(model, n) : new BatchDecoder(model);
    factory.inFlight = EPISODES_IN_FLIGHT * (decoder instanceof ActingThreads ? decoder.size : 1);
    return checkpointPolicy(model, tokenizer, { name: spec, temperature, decoder });
  };
  const policy: Policy = {
    name: spec,
    generate: async (context, opts) => {
      loaded ??= load(0);
      return (await loaded).generate(context, opts);
    },
  };
  const factory: PolicyFactory = {
    spec,
    kind,
    forQA: () => policy,
    inFlight: EPISODES_IN_FLIGHT,
    ready: async (plan) => {
      loaded ??= load(plan?.episodes ?? 0);
      await loaded;
    },
  };
  return factory;
}

/** Sampling temperature of the base and untrained models: greedy, as a run's evaluation samples by default. */
const MODEL_POLICY_TEMPERATURE = 0;

/** Where a model policy's weights come from: its backend, its default temperature and acting threads, and how to load it. */
export interface ModelSource {
  kind: 'ckpt' | 'base' | 'untrained';
  backend: RunConfig['backend'];
  temperature: number;
  threads: RunConfig['workers'];
  load: ModelLoad;
}

/**
 * The model a spec names: `ckpt:<run>/<step>` (a run's checkpoint), `base` (the bundled base model, before any
 * training of this lab's) or `untrained[:<seed>]` (the base model's shape and tokenizer with fresh random
 * weights: what training starts from). Without `home`, the data directory is read when a checkpoint is resolved.
 */
export function modelSource(spec: string, home?: string): ModelSource {
  const at = spec.indexOf(':');
  const [kind, arg] = at < 0 ? [spec, ''] : [spec.slice(0, at), spec.slice(at + 1)];
  if (kind === 'ckpt') {
    const ckpt = resolveCheckpoint(arg, home ?? defaultHome());
    return {
      kind: 'ckpt', backend: ckpt.config.backend, temperature: ckpt.config.eval.temperature, threads: ckpt.config.workers,
      load: async () => {
        const { loadCheckpoint } = await import('../../model/checkpoint');
        return { ...(await loadCheckpoint(ckpt.dir)), where: ckpt.dir };
      },
    };
  }
  // The base model's directory is looked up when the model loads: base-model.ts brings the model code.
  if (kind === 'base') {
    return {
      kind: 'base', backend: 'auto', temperature: MODEL_POLICY_TEMPERATURE, threads: 'auto',
      load: async () => {
        const [{ loadCheckpoint }, { requireBaseModel }] = await Promise.all([import('../../model/checkpoint'), import('./base-model')]);
        const dir = requireBaseModel();
        return { ...(await loadCheckpoint(dir)), where: dir };
      },
    };
  }
  if (kind !== 'untrained') throw new LabError('bad_request', `'${spec}' names no model: expected ckpt:<run>/<step>, base or untrained[:<seed>]`);
  const seed = arg === '' ? undefined : Number(arg);
  if (seed !== undefined && !Number.isInteger(seed)) throw new LabError('bad_request', `policy '${spec}': the seed after 'untrained:' must be a whole number`);
  return {
    kind: 'untrained', backend: 'auto', temperature: MODEL_POLICY_TEMPERATURE, threads: 'auto',
    load: async () => {
      const [{ loadCheckpoint }, { createModel, disposeModel }, { requireBaseModel }] = await Promise.all([import('../../model/checkpoint'), import('../../model/gpt'), import('./base-model')]);
      const dir = requireBaseModel();
      const base = await loadCheckpoint(dir);
      const model = createModel(base.model.config, seed === undefined ? {} : { seed });
      disposeModel(base.model);
      return { model, tokenizer: base.tokenizer, where: dir };
    },
  };
}

/** A model source's weights and tokenizer on its backend (a served policy samples from them: server/policy-service.ts). */
export async function loadModelSource(src: ModelSource): Promise<{ model: GPT; tokenizer: Tokenizer; where: string; backend: string }> {
  const { selectBackend } = await import('../../model/backend');
  const { report } = await selectBackend(src.backend === 'auto' ? {} : { only: [src.backend] });
  const { model, tokenizer, where } = await src.load();
  if (!tokenizer) throw new LabError('corrupt', `${where} has no tokenizer`);
  return { model, tokenizer, where, backend: report.chosen ?? '' };
}

/** Registers the policies a model answers with: `ckpt:<run>/<step>`, `base` and `untrained[:<seed>]` (modelSource). */
export function registerCheckpointPolicies(home?: string): void {
  for (const kind of ['ckpt', 'base', 'untrained'] as const) {
    registerPolicyKind(kind, (_arg, pctx, spec) => {
      const src = modelSource(spec, home);
      return modelPolicy(spec, kind, pctx.temperature ?? src.temperature, pctx.actingThreads ?? src.threads, src);
    });
  }
}

/** Whether a policy spec names a model (a checkpoint, the base model, an untrained model): it needs registerCheckpointPolicies. */
export const isModelPolicy = (spec: string): boolean => /^(ckpt:|base$|untrained(:|$))/.test(spec);
