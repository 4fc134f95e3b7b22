// `ckpt:<run>/<step>` (or `<run>/last`) as a policy anywhere one is accepted. The run's config says which
// graph and which simulated-web settings the policy was trained in, so evaluating a checkpoint needs no
// other input. Registration is cheap: the model code (and TensorFlow.js) loads on the first generate.
import { LabError } from '../errors';
import { defaultHome } from '../home';
import { registerPolicyKind, type PolicyFactory } from '../agent/policies';
import type { Policy } from '../agent/runtime';
import type { WebOptions } from '../agent/web';
import type { RunConfig } from '../contract/run-config';
import { checkpointDir, checkpointRef, checkpointSteps, resolveCheckpoint } from '../runs/layout';
import type { LoadedCheckpoint } from '../model/checkpoint';
import { runLimits } from './eval-setup';

/**
 * The newest of a run's checkpoints that verifies (manifest, sizes and SHA-256 of every file, checked by
 * loadCheckpoint), for a resume: a checkpoint truncated by a full disk or a kill mid-copy is passed over
 * with a note saying so. Undefined when the run has none; an error naming each failure when none verifies.
 */
export async function loadNewestVerifiedCheckpoint(home: string, runId: string, note: (message: string) => void): Promise<{ step: number; loaded: LoadedCheckpoint } | undefined> {
  const { loadCheckpoint } = await import('../model/checkpoint');
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

/** Registers `ckpt:`; without `home`, the data directory is read when a checkpoint is resolved. */
export function registerCheckpointPolicies(home?: string): void {
  registerPolicyKind('ckpt', (arg, pctx, spec): PolicyFactory => {
    const ckpt = resolveCheckpoint(arg, home ?? defaultHome());
    let loaded: Promise<Policy> | null = null;
    const load = async (): Promise<Policy> => {
      const [{ selectBackend }, { loadCheckpoint }, { checkpointPolicy }] = await Promise.all([
        import('../model/backend'),
        import('../model/checkpoint'),
        import('./policy'),
      ]);
      await selectBackend(ckpt.config.backend === 'auto' ? {} : { only: [ckpt.config.backend] });
      const { model, tokenizer } = await loadCheckpoint(ckpt.dir);
      if (!tokenizer) throw new LabError('corrupt', `${ckpt.dir} has no tokenizer`);
      return checkpointPolicy(model, tokenizer, { name: spec, temperature: pctx.temperature ?? ckpt.config.eval.temperature });
    };
    const policy: Policy = {
      name: spec,
      generate: async (context, opts) => {
        loaded ??= load();
        return (await loaded).generate(context, opts);
      },
    };
    return {
      spec,
      kind: 'ckpt',
      forQA: () => policy,
      ready: async () => {
        loaded ??= load();
        await loaded;
      },
    };
  });
}
