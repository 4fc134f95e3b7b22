// A ReAct-like episode for decoder tests: a prompt of its own length, then turns, each followed by an
// "observation" of a few tokens fed back, until the context is nearly full. The same episode e always asks for
// the same turns, so decoders can be compared turn by turn.
import type { GenerateResult, SampleOptions } from '../../main/lab/model/generate';
import { createRng, seedFrom, type Rng } from '../../main/lab/util/rng';

export const STOP = 7;

export type Sampler = (prompt: number[], opts: SampleOptions) => Promise<GenerateResult>;

/** Every turn's result and the episode's stream at the end. */
export async function reactEpisode(e: number, sample: Sampler, temperature: number): Promise<{ turns: GenerateResult[]; rng: Rng }> {
  const rng = createRng(seedFrom(`episode/${e}`));
  let context = [1, ...Array.from({ length: 3 + ((e * 5) % 9) }, (_, i) => 10 + ((e * 7 + i * 3) % 50))];
  const turns: GenerateResult[] = [];
  for (let t = 0; t < 3 && context.length < 40; t++) {
    const out = await sample(context, { maxNewTokens: 6 + (e % 4), temperature, rng, stopTokens: [STOP] });
    turns.push(out);
    const observation = Array.from({ length: 2 + ((e + t) % 4) }, (_, i) => 20 + ((e + t + i) % 30));
    context = [...context, ...out.tokens, ...observation].slice(0, 44);
  }
  return { turns, rng };
}
