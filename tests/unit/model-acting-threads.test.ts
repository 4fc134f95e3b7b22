// Acting on every core (model/acting-threads.ts): episodes whose turns decode on two threads, this one and a
// decoding thread with a copy of the weights, play exactly the turns they play on one thread (greedy and
// sampled: the same tokens, each episode's stream advanced alike), with the weights published after a change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../main/lab/model/backend';
import { createModel, disposeModel, resolveGPTConfig, type GPT } from '../../main/lab/model/gpt';
import { generate, type GenerateResult } from '../../main/lab/model/generate';
import { ActingThreads } from '../../main/lab/model/acting-threads';
import { reactEpisode } from '../support/react-episode';
import type { Rng } from '../../main/lab/util/rng';

const episode = reactEpisode;

async function play(sampler: ActingThreads, n: number, temperature: number): Promise<{ turns: GenerateResult[]; rng: Rng }[]> {
  return Promise.all(Array.from({ length: n }, (_, e) => episode(e, (p, o) => sampler.sample(p, o), temperature)));
}

describe('acting threads', () => {
  let model: GPT;
  let one: ActingThreads;
  let two: ActingThreads;
  beforeAll(async () => {
    await selectBackend({ only: ['wasm'] });
    model = createModel(resolveGPTConfig({ vocabSize: 61, blockSize: 48, nLayer: 2, nHead: 2, nEmbd: 16, distanceBias: true }), { seed: 11 });
    one = await ActingThreads.start(model, 1);
    two = await ActingThreads.start(model, 2);
  }, 180_000);
  afterAll(async () => {
    await one.close();
    await two.close();
    disposeModel(model);
  });

  it.each([['greedy', 0], ['sampled', 1]])('plays the same turns on two threads as on one (%s), with no tensor left behind', async (_, temperature) => {
    const before = tf.memory().numTensors;
    const a = await play(one, 12, temperature);
    const prefills = two.threadStats.map((s) => s.prefills);
    const b = await play(two, 12, temperature);
    expect(tf.memory().numTensors).toBe(before);
    expect(two.size).toBe(2);
    for (const [e, ep] of a.entries()) {
      expect(b[e]!.turns.map((t) => t.tokens)).toEqual(ep.turns.map((t) => t.tokens));
      expect(b[e]!.turns.map((t) => t.finishReason)).toEqual(ep.turns.map((t) => t.finishReason));
      b[e]!.turns.forEach((t, i) => t.logProbs.forEach((lp, j) => expect(lp).toBeCloseTo(ep.turns[i]!.logProbs[j]!, 4)));
      expect(b[e]!.rng.state()).toBe(ep.rng.state()); // the stream advanced by the thread's draws
    }
    // Both threads decoded turns, and every turn was decoded once.
    const served = two.threadStats.map((s, i) => s.prefills - prefills[i]!);
    expect(served.every((n) => n > 0)).toBe(true);
    expect(served.reduce((x, y) => x + y)).toBe(b.flatMap((ep) => ep.turns).length);
    expect(two.stats.maxRows).toBeGreaterThan(1);
  });

  it('decodes with the weights published by sync() after the model changed', async () => {
    const wte = model.params.get('wte')!;
    const old = wte.clone();
    wte.assign(tf.tidy(() => tf.mul(old, 3)));
    two.sync();
    const prompts = Array.from({ length: 6 }, (_, e) => [1, 10 + e, 20 + e]);
    const turns = await Promise.all(prompts.map((p) => two.sample(p, { maxNewTokens: 8, temperature: 0 })));
    for (const [e, p] of prompts.entries()) expect(turns[e]!.tokens).toEqual((await generate(model, p, { maxNewTokens: 8, temperature: 0 })).tokens);
    wte.assign(old);
    old.dispose();
    two.sync();
  });
});

// The threads a process keeps (ActingThreads.kept, what the rollout and compare jobs decode on): lent to one
// model, then to another of a different shape, each model's episodes play exactly as on one thread, and the
// second model is served by the same thread, not a new one.
describe('acting threads the process keeps', () => {
  let a: GPT;
  let b: GPT;
  let oneA: ActingThreads;
  let oneB: ActingThreads;
  beforeAll(async () => {
    await selectBackend({ only: ['wasm'] });
    a = createModel(resolveGPTConfig({ vocabSize: 61, blockSize: 48, nLayer: 2, nHead: 2, nEmbd: 16, distanceBias: true }), { seed: 3 });
    b = createModel(resolveGPTConfig({ vocabSize: 61, blockSize: 48, nLayer: 1, nHead: 4, nEmbd: 32 }), { seed: 5 });
    oneA = await ActingThreads.start(a, 1);
    oneB = await ActingThreads.start(b, 1);
  }, 180_000);
  afterAll(async () => {
    disposeModel(a);
    disposeModel(b);
  });

  it('lends its thread to one model after another, each playing its one-thread episodes', { timeout: 120_000 }, async () => {
    const before = tf.memory().numTensors;
    const keptA = ActingThreads.kept(a, 2);
    expect(keptA.size).toBe(2);
    await keptA.whenReady(); // started in the background; until then every turn decodes here
    for (const [model, kept, one] of [[a, keptA, oneA], [b, ActingThreads.kept(b, 2), oneB]] as const) {
      const want = await play(one, 12, 1);
      const got = await play(kept, 12, 1);
      for (const [e, ep] of want.entries()) {
        expect(got[e]!.turns.map((t) => t.tokens), `${model === a ? 'a' : 'b'}, episode ${e}`).toEqual(ep.turns.map((t) => t.tokens));
        expect(got[e]!.rng.state()).toBe(ep.rng.state());
      }
      // The kept thread decoded some of this model's turns.
      expect(kept.threadStats[1]!.prefills).toBeGreaterThan(0);
      await kept.close();
    }
    // One thread kept, lent twice: asking again starts none.
    expect(ActingThreads.keptCount).toBe(1);
    ActingThreads.kept(a, 2);
    expect(ActingThreads.keptCount).toBe(1);
    expect(tf.memory().numTensors).toBe(before);
  });
});
