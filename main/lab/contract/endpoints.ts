// Saved model endpoints: an OpenAI-compatible server and a model on it (a vLLM serving a verl checkpoint, a
// hosted API), played as a policy `endpoint:<id>` wherever a policy is picked. The bearer key is never stored:
// an endpoint names the environment variable that holds it (`keyEnv`), read by the process that calls the
// server. The schema is strict, so a field such as `apiKey` is refused rather than written into db.json.
import { z } from 'zod';
import { artefactId } from './ids';

/** An environment variable's name, never its value. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const endpointFields = z
  .object({
    /** Absent: a new endpoint; present: the one to replace. */
    id: artefactId.optional(),
    name: z.string().trim().min(1, 'name it').max(120),
    baseUrl: z
      .string()
      .trim()
      .max(2000)
      .regex(/^https?:\/\/[^\s/]+/, 'expected an http(s) base URL, e.g. http://127.0.0.1:8000/v1'),
    model: z.string().trim().min(1, 'name the served model').max(300),
    /** The name of the environment variable holding the bearer key (e.g. OPENAI_API_KEY); none: no key sent. */
    keyEnv: z.string().trim().max(100).regex(ENV_NAME, 'an environment variable name: letters, digits and _').optional(),
    temperature: z.number().min(0).max(2).default(0),
    topP: z.number().gt(0).max(1).default(1),
    /** Tokens per assistant turn; none: the agent's own limit. */
    maxTokens: z.number().int().min(1).max(32_768).optional(),
    /** Ask for each generated token's log-probability (the inspector's heat strip); servers that refuse it: off. */
    logprobs: z.boolean().default(true),
    /** Requests in flight at once to this endpoint. */
    inFlight: z.number().int().min(1).max(64).default(4),
    /** A verl run's checkpoint this endpoint serves: the run's dashboard marks the step, Compare names it. */
    serves: z.object({ runId: artefactId, step: z.number().int().min(0) }).strict().optional(),
  })
  .strict();
export type EndpointFields = z.input<typeof endpointFields>;

export type Endpoint = z.output<typeof endpointFields> & { id: string; createdAt: string };

/** An endpoint's policy spec, and back. */
export const ENDPOINT_POLICY = 'endpoint:';
export const endpointPolicy = (id: string): string => `${ENDPOINT_POLICY}${id}`;
export function endpointIdOf(spec: string): string | null {
  return spec.startsWith(ENDPOINT_POLICY) ? spec.slice(ENDPOINT_POLICY.length) : null;
}

/** What a "test" showed: the server's model list, one short completion, and how long each took. */
export interface EndpointTest {
  ok: boolean;
  models: string[] | null;
  modelsMs: number | null;
  completion: string | null;
  completionMs: number | null;
  /** Where it failed, in the server's words. */
  error?: string;
}

export const endpointMethods = {
  'endpoints.list': { params: z.object({}).strict(), result: [] as Endpoint[] },
  'endpoints.save': { params: endpointFields, result: {} as Endpoint },
  'endpoints.remove': { params: z.object({ id: artefactId }).strict(), result: {} as { removed: boolean } },
  'endpoints.test': { params: z.object({ id: artefactId }).strict(), result: {} as EndpointTest },
} as const;
