// The policy registry: a spec string from the command line or the app ("oracle", "llm:<model>",
// "ckpt:<run>/<step>") becomes a factory of per-QA policies. Checkpoint policies are registered later by
// the model engine through `registerPolicyKind('ckpt', …)`; until then the spec fails with a clear error.
import type { QA } from '../formats/index';
import { LabError } from '../base/errors';
import type { Rng } from '../util/rng';
import { createExpert, type ExpertOptions } from './expert';
import { type Reconstructor, ruleReconstructor } from './thoughts';
import type { Policy } from './runtime';
import { type ChatConfig, chatPolicy, chatTool, type ToolPolicy } from './tools';
import type { Endpoint } from '../contract/endpoints';
import { endpointPolicyFactory } from './endpoints';

export interface PolicyFactory {
  spec: string;
  kind: string;
  /** A policy for one attempt at one QA. Only the expert receives the QA's formal query. */
  forQA(qa: QA, sample: number, rng: Rng): Policy;
  /** When set, the episode's thoughts are rewritten after the fact (reasoning reconstruction). */
  reconstruct?: Reconstructor;
  /**
   * Loads what the policy needs (a checkpoint's weights) before any episode; rejects when it cannot. `plan.episodes`:
   * how many episodes will play (a model policy decodes on more threads when there are enough to pay for them).
   */
  ready?: (plan?: { episodes: number }) => Promise<void>;
  /** Episodes it serves best at once (a model decoding every turn in flight as one batch); rolloutDataset's default concurrency. */
  inFlight?: number;
}

export interface PolicyContext {
  /** Base URL, key and tool-layer policy for `llm:<model>` (OpenAI-compatible server). */
  chat?: Omit<ChatConfig, 'model'> & { policy?: Partial<ToolPolicy>; temperature?: number };
  expert?: Partial<ExpertOptions>;
  /** The title of a node's page, so the expert can search its anchors by name (see ExpertOptions). */
  anchorName?: (id: string) => string | undefined;
  reconstructor?: Reconstructor;
  /** A saved endpoint by id (`endpoint:<id>`), e.g. from the data directory's db.json (agent/endpoints.ts). */
  endpoint?: (id: string) => Endpoint;
  /** Sampling temperature of a checkpoint policy (`ckpt:`); its run's eval temperature when absent. */
  temperature?: number;
  /** Threads a model policy decodes on when it plays many episodes (its run's `workers` when absent: every core by default). */
  actingThreads?: number;
}

export type PolicyResolver = (arg: string, ctx: PolicyContext, spec: string) => PolicyFactory;

const registry = new Map<string, PolicyResolver>();

export function registerPolicyKind(kind: string, resolver: PolicyResolver): void {
  registry.set(kind, resolver);
}

export function policyKinds(): string[] {
  return [...registry.keys()].sort();
}

const oracle: PolicyResolver = (_arg, ctx, spec) => ({
  spec,
  kind: 'oracle',
  // The expert gets id, question and query: never the answer fields.
  forQA: (qa, _sample, rng) => createExpert({ id: qa.id, question: qa.question, query: qa.query }, { anchorName: ctx.anchorName, ...ctx.expert, rng }),
  reconstruct: ctx.reconstructor ?? ruleReconstructor,
});

registerPolicyKind('oracle', oracle);
registerPolicyKind('expert', oracle);

registerPolicyKind('llm', (model, ctx, spec) => {
  if (!model) throw new LabError('bad_request', `policy '${spec}': name the model, e.g. llm:qwen2.5-7b-instruct`);
  if (!ctx.chat?.baseUrl) {
    throw new LabError('bad_request', `policy '${spec}' needs an OpenAI-compatible server: pass --llm-url (or set SAILOR_LLM_URL)`);
  }
  const tool = chatTool({ baseUrl: ctx.chat.baseUrl, apiKey: ctx.chat.apiKey, headers: ctx.chat.headers, model }, { policy: ctx.chat.policy });
  const policy = chatPolicy(tool, `llm:${model}`, { temperature: ctx.chat.temperature ?? 1 });
  return { spec, kind: 'llm', forQA: () => policy };
});

registerPolicyKind('endpoint', (id, ctx, spec) => {
  if (!ctx.endpoint) throw new LabError('bad_request', `policy '${spec}': saved endpoints are read from a data directory, which this caller has none of`);
  return endpointPolicyFactory(ctx.endpoint(id), spec);
});

/** `oracle` | `llm:<model>` | any registered `<kind>:<arg>`; unknown kinds are 'unsupported'. */
export function resolvePolicy(spec: string, ctx: PolicyContext = {}): PolicyFactory {
  const at = spec.indexOf(':');
  const kind = at < 0 ? spec : spec.slice(0, at);
  const arg = at < 0 ? '' : spec.slice(at + 1);
  const resolver = registry.get(kind);
  if (!resolver) {
    throw new LabError(
      'unsupported',
      `policy '${spec}' is not supported${kind === 'ckpt' ? ' yet (checkpoint policies arrive with the model engine)' : ''}; known kinds: ${policyKinds().join(', ')}`,
    );
  }
  return resolver(arg, ctx, spec);
}
