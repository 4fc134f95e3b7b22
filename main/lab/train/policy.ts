// A trained checkpoint as a ReAct policy: `ckpt:<run>/<step>` wherever a policy is accepted (rollout,
// eval, the comparison view). It reads the compact view (view.ts), cut to its context the way training
// windows were cut, and samples one turn with the KV cache until </tool_call>, </answer> or <|eos|>.
import type { GPT } from '../model/gpt';
import { generate } from '../model/gpt';
import type { Tokenizer } from '../model/tokenizer';
import { buildMaskedTokens } from '../model/mask';
import type { Policy, GenerateOptions } from '../agent/runtime';
import { createRng } from '../util/rng';
import { policyView, windowIndices } from './view';

export interface CheckpointPolicyOptions {
  name: string;
  temperature: number;
  topP?: number;
  /** Tokens one turn may generate at most. */
  maxTurnTokens?: number;
}

export function checkpointPolicy(model: GPT, tok: Tokenizer, opts: CheckpointPolicyOptions): Policy {
  const stops = ['</tool_call>', '</answer>', '<|eos|>'].map((t) => tok.special(t));
  const eos = tok.special('<|eos|>');
  const maxNew = opts.maxTurnTokens ?? 96;
  return {
    name: opts.name,
    async generate(_context: string, g: GenerateOptions): Promise<string> {
      // Tokenised exactly as the training windows were (span by span, <|bos|> first, no <|eos|>), then cut
      // the same way: the question pinned, the most recent turns after it.
      const view = policyView(g.turns.question, g.turns.steps);
      const { ids, segments } = buildMaskedTokens(tok, view.text, view.spans, { eos: false });
      const headLen = segments?.find((s) => s.kind === 'prompt')?.end ?? 1;
      const budget = Math.max(8, model.config.blockSize - maxNew);
      const prompt = windowIndices(ids.length, headLen, budget).map((i) => ids[i]!);
      const out = await generate(model, prompt, {
        maxNewTokens: Math.min(maxNew, Math.max(1, g.maxNewTokens)),
        temperature: opts.temperature,
        topP: opts.topP ?? 1,
        rng: g.rng ?? createRng(0),
        stopTokens: stops,
      });
      return tok.decode(out.tokens.filter((t) => t !== eos));
    },
  };
}
