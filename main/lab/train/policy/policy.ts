// A trained checkpoint as a ReAct policy: `ckpt:<run>/<step>` wherever a policy is accepted (rollout,
// eval, the comparison view). It reads the compact view (view.ts), cut to its context the way training
// windows were cut, and samples one turn with the KV cache until </tool_call>, </answer> or <|eos|>.
// For RL, `onTurn` receives every turn as token ids: the context exactly as the policy saw it, the sampled
// tokens (stop token included) and their sampling log-probs, so the trainer rebuilds nothing from text.
import type { GPT } from '../../model/gpt';
import { generate, type FinishReason } from '../../model/generate';
import type { TurnSampler } from '../../model/acting-threads';
import type { Tokenizer } from '../../model/tokenizer';
import { buildMaskedTokens } from '../../model/mask';
import type { Policy, GenerateOptions } from '../../agent/runtime';
import type { AgentStep } from '../../agent/react';
import { createRng } from '../../util/rng';
import { policyView, promptBudget, windowIndices } from './view';

import { EPISODES_IN_FLIGHT, TURN_TOKENS } from './eval-setup';

export { EPISODES_IN_FLIGHT, TURN_TOKENS };

/**
 * The tags that end a turn: a tool call, an answer, the end of the episode; and <tool_response>: the policy
 * never writes a tool response, so a turn that starts one ends there (a format error) and no invented
 * observation enters its context (model/positions observationReach).
 */
export const TURN_STOP_TAGS = ['</tool_call>', '</answer>', '<|eos|>', '<tool_response>'] as const;

export interface CheckpointPolicyOptions {
  name: string;
  temperature: number;
  topP?: number;
  /** Tokens one turn may generate at most. */
  maxTurnTokens?: number;
  /** Called after every turn with what was sampled (RL keeps it for the loss). */
  onTurn?: (turn: SampledTurn) => void;
  /**
   * Decode the turns in this shared batch (continuous batching: a BatchDecoder, or ActingThreads' batches on
   * every core) instead of one at a time: the same tokens for the same stream. Pays when many episodes run at
   * once (rolloutDataset's concurrency, EPISODES_IN_FLIGHT).
   */
  decoder?: TurnSampler;
}

/** One generated turn in token ids. */
export interface SampledTurn {
  /** The context the policy was given: <|bos|>, the question, the most recent turns (view.ts). */
  prompt: number[];
  /** The sampled tokens, the stop token included (the text returned drops a final <|eos|>). */
  tokens: number[];
  /** log pi(token | context) of each sampled token under the sampling distribution (model/generate). */
  logProbs: number[];
  finish: FinishReason;
}

/**
 * The token ids a policy of context `blockSize` is given before a turn: tokenised exactly as the training
 * windows were (span by span, <|bos|> first, no <|eos|>), then cut to the same budget (view.ts promptBudget:
 * the question pinned, the most recent tokens after it), which leaves `maxNew` positions for the turn.
 */
export function policyPrompt(tok: Tokenizer, question: string, steps: readonly AgentStep[], blockSize: number, maxNew: number): number[] {
  const view = policyView(question, steps);
  const { ids, segments } = buildMaskedTokens(tok, view.text, view.spans, { eos: false });
  const headLen = segments?.find((s) => s.kind === 'prompt')?.end ?? 1;
  return windowIndices(ids.length, headLen, promptBudget(blockSize, maxNew)).map((i) => ids[i]!);
}

/**
 * The share of trajectories whose final (answer) turn has one of its answers in the prompt window a policy of
 * context `blockSize` is given. Below 1 the context is too short for the data: the expert answered from an
 * observation the policy will not see (the question's first page, when a later visit checked a constraint).
 */
export function answerInWindow(
  tok: Tokenizer, trajectories: ReadonlyArray<{ question: string; steps: readonly AgentStep[]; answers: readonly string[] }>, blockSize: number,
): number {
  if (trajectories.length === 0) return 1;
  const seen = trajectories.filter((t) => {
    const window = tok.decode(policyPrompt(tok, t.question, t.steps.slice(0, -1), blockSize, TURN_TOKENS));
    return t.answers.some((a) => a.length > 0 && window.includes(a));
  });
  return seen.length / trajectories.length;
}

/** One turn of a checkpoint policy: the text the agent reads and the turn in token ids. */
export interface PolicyTurn extends SampledTurn {
  text: string;
}

/** A checkpoint's turn sampler: what `checkpointPolicy` plays, and what a served policy answers (server/policy-service.ts). */
export function checkpointTurns(model: GPT, tok: Tokenizer, opts: Omit<CheckpointPolicyOptions, 'name' | 'onTurn'>): (g: GenerateOptions) => Promise<PolicyTurn> {
  const stops = TURN_STOP_TAGS.map((t) => tok.special(t));
  const eos = tok.special('<|eos|>');
  const maxNew = opts.maxTurnTokens ?? TURN_TOKENS;
  return async (g) => {
    const prompt = policyPrompt(tok, g.turns.question, g.turns.steps, model.config.blockSize, maxNew);
    const sampling = {
      maxNewTokens: Math.min(maxNew, Math.max(1, g.maxNewTokens)),
      temperature: opts.temperature,
      topP: opts.topP ?? 1,
      rng: g.rng ?? createRng(0),
      stopTokens: stops,
    };
    const out = await (opts.decoder ? opts.decoder.sample(prompt, sampling) : generate(model, prompt, sampling));
    return { prompt, tokens: out.tokens, logProbs: out.logProbs, finish: out.finishReason, text: tok.decode(out.tokens.filter((t) => t !== eos)) };
  };
}

export function checkpointPolicy(model: GPT, tok: Tokenizer, opts: CheckpointPolicyOptions): Policy {
  const turn = checkpointTurns(model, tok, opts);
  return {
    name: opts.name,
    async generate(_context: string, g: GenerateOptions): Promise<string> {
      const { text, ...sampled } = await turn(g);
      opts.onTurn?.(sampled);
      return text;
    },
  };
}
