// The environment an OpenAI-compatible server is named by: SAILOR_LLM_URL for its base URL and
// SAILOR_LLM_API_KEY for its bearer key, for every user of it (policies, judge, reconstructor, synthesis's
// rephrasing). SAILOR_LLM_KEY, the key's older name that some commands read, still works once with a note.
export const LLM_URL_ENV = 'SAILOR_LLM_URL';
export const LLM_KEY_ENV = 'SAILOR_LLM_API_KEY';
/** The key's deprecated name. */
export const LLM_KEY_ENV_OLD = 'SAILOR_LLM_KEY';

let warned = false;

/**
 * The API key for the OpenAI-compatible server: SAILOR_LLM_API_KEY, else the deprecated SAILOR_LLM_KEY with a
 * note (once per process) saying to rename it; undefined when neither is set.
 */
export function llmApiKey(env: Record<string, string | undefined> = process.env, warn: (message: string) => void = (m) => console.warn(m)): string | undefined {
  const key = env[LLM_KEY_ENV];
  if (key) return key;
  const old = env[LLM_KEY_ENV_OLD];
  if (!old) return undefined;
  if (!warned) {
    warned = true;
    warn(`${LLM_KEY_ENV_OLD} is deprecated: set ${LLM_KEY_ENV} instead (it is read first; ${LLM_KEY_ENV_OLD} is still accepted for now)`);
  }
  return old;
}

/** For tests: the deprecation note shows again. */
export function resetLlmKeyWarning(): void {
  warned = false;
}
