// Continuous batching (model/batch-decoder.ts): episodes of several turns, started at different times, decode
// their turns in one shared batch; each turn must be what generate() samples alone with the same prompt and
// stream: the same tokens (greedy and sampled) and log-probs within float tolerance.
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../main/lab/model/backend';
import { createModel, disposeModel, resolveGPTConfig, type GPT, type GPTConfig } from '../../main/lab/model/gpt';
import { generate, type GenerateResult } from '../../main/lab/model/generate';
import { BatchDecoder } from '../../main/lab/model/batch-decoder';
import { reactEpisode, type Sampler } from '../support/react-episode';

const SMALL: Partial<GPTConfig> = { vocabSize: 61, blockSize: 48, nLayer: 2, nHead: 2, nEmbd: 16 };
/** The turns of episode e (tests/support/react-episode.ts). */
const episode = async (e: number, sample: Sampler, temperature: number): Promise<GenerateResult[]> => (await reactEpisode(e, sample, temperature)).turns;

/** Runs `n` episodes with the batch decoder, starting them at staggered times so rows join mid-batch. */
async function batched(model: GPT, n: number, temperature: number): Promise<{ turns: GenerateResult[][]; dec: BatchDecoder }> {
  const dec = new BatchDecoder(model);
  const runs: Promise<GenerateResult[]>[] = [];
  for (let e = 0; e < n; e++) {
    if (e % 3 === 2) for (let k = 0; k < 4; k++) await new Promise<void>((r) => setImmediate(r));
    runs.push(episode(e, (p, o) => dec.sample(p, o), temperature));
  }
  const turns = await Promise.all(runs);
  await dec.drain();
  return { turns, dec };
}

describe('continuous batching of episodes', () => {
  it.each([
    ['plain, greedy', {}, 0],
    ['plain, sampled', {}, 1],
    ['every model option, greedy', { bidirectionalObservations: true, distanceBias: true }, 0],
    ['every model option, sampled', { bidirectionalObservations: true, distanceBias: true }, 1],
    // 16-wide heads: the slots' attention runs in SIMD (slot-cache.ts), narrower heads in plain loops.
    ['16-wide heads, distance penalties, sampled', { nEmbd: 32, distanceBias: true }, 1],
  ])('every turn equals generate() alone with its stream (%s), with no tensor left behind', async (_, options, temperature) => {
    await selectBackend({ only: ['wasm'] });
    const model = createModel(resolveGPTConfig({ ...SMALL, ...options }), { seed: 11 });
    const before = tf.memory().numTensors;
    const { turns, dec } = await batched(model, 9, temperature);
    expect(tf.memory().numTensors).toBe(before);
    expect(dec.stats.maxRows).toBeGreaterThan(3); // the turns did share steps
    expect(dec.stats.prefills).toBe(turns.flat().length);
    for (let e = 0; e < turns.length; e++) {
      const alone = await episode(e, (p, o) => generate(model, p, o), temperature);
      expect(turns[e]!.length).toBe(alone.length);
      turns[e]!.forEach((turn, t) => {
        expect(turn.tokens).toEqual(alone[t]!.tokens);
        expect(turn.finishReason).toBe(alone[t]!.finishReason);
        turn.logProbs.forEach((lp, i) => expect(lp).toBeCloseTo(alone[t]!.logProbs[i]!, 4));
        turn.entropies.forEach((h, i) => expect(h).toBeCloseTo(alone[t]!.entropies[i]!, 4));
      });
    }
    expect(turns.flat().some((t) => t.finishReason === 'length')).toBe(true);
    if (temperature > 0) expect(turns.flat().some((t) => t.finishReason === 'stop')).toBe(true);
    disposeModel(model);
  });

  it('a prompt that does not fit fails its own turn only; maxRows bounds the batch', async () => {
    await selectBackend({ only: ['wasm'] });
    const model = createModel(resolveGPTConfig(SMALL), { seed: 3 });
    const dec = new BatchDecoder(model, { maxRows: 2 });
    const ok = [1, 2, 3].map((e) => dec.sample([1, 10 + e], { maxNewTokens: 5, temperature: 0 }));
    const tooLong = dec.sample(Array.from({ length: 49 }, () => 5), { maxNewTokens: 5 });
    await expect(tooLong).rejects.toThrow(/exceeds blockSize 48/);
    const results = await Promise.all(ok);
    await dec.drain();
    expect(dec.stats.maxRows).toBe(2);
    for (const [i, r] of results.entries()) expect(r.tokens).toEqual((await generate(model, [1, 11 + i], { maxNewTokens: 5, temperature: 0 })).tokens);
    disposeModel(model);
  });
});
