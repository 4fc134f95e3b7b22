import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decoder, generate, sampleFromLogits } from '../../main/lab/model/generate';
import { createModel, disposeModel, fastPath, flopsPerToken, forward, paramCount, paramSpecs, resolveGPTConfig, type GPT } from '../../main/lab/model/gpt';
import { loss, sequenceLogProbs, tokenLogProbs } from '../../main/lab/model/logprobs';
import { matmul } from '../../main/lab/model/kernels/matmul';
import { distanceSlopes, observationReach } from '../../main/lab/model/positions';
import { fusedAttentionAvailable } from '../../main/lab/model/kernels/attention';
import { createRng } from '../../main/lab/util/rng';

const cfg = resolveGPTConfig({ vocabSize: 50, blockSize: 16, nLayer: 2, nHead: 2, nEmbd: 32 });
let model: GPT;

beforeAll(async () => {
  await tf.setBackend('cpu');
  model = createModel(cfg, { seed: 7 });
});
afterAll(() => disposeModel(model));

const ids2d = (rows: number[][]): tf.Tensor2D => tf.tensor2d(rows, [rows.length, rows[0]!.length], 'int32');

/**
 * Every way of decoding a prompt gives the same tokens and log-probabilities: sampling with and without the KV
 * cache, scoring the result whole (sequenceLogProbs, beside `extraRow` when given), and a Decoder fed the prompt
 * in two parts (the split at 5 keeps a tool response whole) against one uncached pass.
 */
async function expectDecodingPathsAgree(model: GPT, prompt: number[], o: { seed: number; stops: number[]; extraRow?: number[] }): Promise<void> {
  const a = await generate(model, prompt, { maxNewTokens: 4, temperature: 1, rng: createRng(o.seed), stopTokens: o.stops });
  const b = await generate(model, prompt, { maxNewTokens: 4, temperature: 1, rng: createRng(o.seed), stopTokens: o.stops, useCache: false });
  expect(a.tokens).toEqual(b.tokens);
  a.logProbs.forEach((x, i) => expect(x).toBeCloseTo(b.logProbs[i]!, 4));
  const { logProbs } = await sequenceLogProbs(model, [[...prompt, ...a.tokens], ...(o.extraRow ? [o.extraRow] : [])]);
  a.logProbs.forEach((x, i) => expect(x).toBeCloseTo(logProbs[0]![prompt.length - 1 + i]!, 4));
  const dec = new Decoder(model);
  dec.feed(prompt.slice(0, 5));
  dec.feed(prompt.slice(5));
  const t = await dec.sample({ maxNewTokens: 1, temperature: 0 });
  dec.dispose();
  const ref = await generate(model, prompt, { maxNewTokens: 1, temperature: 0, useCache: false });
  expect(t.tokens).toEqual(ref.tokens);
  expect(t.logProbs[0]).toBeCloseTo(ref.logProbs[0]!, 4);
}

describe('GPT config and parameters', () => {
  it('resolves presets and validates', () => {
    expect(resolveGPTConfig({ preset: 'tiny' })).toMatchObject({ nLayer: 2, nEmbd: 64, blockSize: 256, vocabSize: 2048, tiedHead: true });
    expect(resolveGPTConfig({ preset: 'base' }).nLayer).toBe(12);
    expect(() => resolveGPTConfig({ nEmbd: 30, nHead: 4 })).toThrow(/divisible/);
    expect(() => resolveGPTConfig({ preset: 'huge' as 'tiny' })).toThrow(/unknown model preset/);
  });

  it('creates named variables with GPT-2 shapes, deterministically from the seed', async () => {
    const names = [...model.params.keys()];
    expect(names).toEqual(paramSpecs(cfg).map((s) => s.name));
    expect(names).toContain('h.1.attn.c_attn.weight');
    expect(model.params.get('h.0.mlp.c_fc.weight')!.shape).toEqual([32, 128]);
    expect(model.params.has('lm_head.weight')).toBe(false);
    expect([...model.params.values()].reduce((a, v) => a + v.size, 0)).toBe(paramCount(cfg));
    const again = createModel(cfg, { seed: 7 });
    expect(await again.params.get('h.1.mlp.c_proj.weight')!.data()).toEqual(await model.params.get('h.1.mlp.c_proj.weight')!.data());
    const ln = await again.params.get('h.0.ln_1.weight')!.data();
    expect(Array.from(ln).every((x) => x === 1)).toBe(true);
    disposeModel(again);
    const untied = createModel({ ...cfg, tiedHead: false });
    expect(untied.params.get('lm_head.weight')!.shape).toEqual([32, 50]);
    disposeModel(untied);
  });
});

describe('forward and loss', () => {
  it('gives logits [B, T, V] and an initial loss near ln V', async () => {
    const rows = [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]];
    const [shape, l] = tf.tidy(() => {
      const logits = forward(model, ids2d(rows));
      const mask = tf.ones([2, 6]) as tf.Tensor2D;
      return [logits.shape, loss(model, ids2d(rows), ids2d(rows.map((r) => r.map((x) => x + 1))), mask).dataSync()[0]!];
    });
    expect(shape).toEqual([2, 6, 50]);
    expect(Math.abs(l - Math.log(50))).toBeLessThan(0.2);
  });

  it('smeared keys: at s = 1 the model is the plain one; at s = 0.5 every key mixes in its predecessor', () => {
    const plain = createModel({ ...cfg, smearKeys: false }, { seed: 7 });
    const rows = [[1, 2, 3, 4, 5, 6]];
    const diff = (): number => tf.tidy(() => tf.max(tf.abs(tf.sub(forward(model, ids2d(rows)), forward(plain, ids2d(rows))))).dataSync()[0]!);
    // Same seed: the plain model has every weight of the smeared one except the per-head mixing logits.
    expect([...plain.params.keys()]).toEqual([...model.params.keys()].filter((k) => !k.endsWith('.attn.smear')));
    for (const [name, v] of plain.params) v.assign(model.params.get(name)!);
    expect(diff()).toBeGreaterThan(1e-4); // initial s = sigmoid(0) = 0.5
    const saved = [0, 1].map((i) => model.params.get(`h.${i}.attn.smear`)!.clone());
    for (const i of [0, 1]) model.params.get(`h.${i}.attn.smear`)!.assign(tf.fill([cfg.nHead], 40));
    expect(diff()).toBeLessThan(1e-5);
    [0, 1].forEach((i) => model.params.get(`h.${i}.attn.smear`)!.assign(saved[i]!));
    tf.dispose(saved);
    disposeModel(plain);
  });

  it('normalises by the number of unmasked tokens', () => {
    const ids = [[1, 2, 3, 4], [5, 6, 7, 8]];
    const tg = [[2, 3, 4, 5], [6, 7, 8, 9]];
    const maskRows = [[0, 1, 1, 0], [0, 0, 0, 1]];
    const [l, lp, l0] = tf.tidy(() => {
      const mask = tf.tensor2d(maskRows) as tf.Tensor2D;
      return [
        loss(model, ids2d(ids), ids2d(tg), mask).dataSync()[0]!,
        Array.from(tokenLogProbs(model, ids2d(ids), ids2d(tg)).dataSync()),
        loss(model, ids2d(ids), ids2d(tg), tf.zeros([2, 4]) as tf.Tensor2D).dataSync()[0]!,
      ];
    });
    const flatMask = maskRows.flat();
    const expected = -lp.reduce((a, x, i) => a + x * flatMask[i]!, 0) / 3;
    expect(l).toBeCloseTo(expected, 5);
    expect(l0 === 0).toBe(true); // (may be -0)
  });

  it('embedding modes agree on values and gradients; every parameter gets a gradient', () => {
    const rows = [[3, 1, 4, 1, 5, 9, 2, 6]];
    const tg = [[1, 4, 1, 5, 9, 2, 6, 5]];
    const results = (['onehot', 'hybrid', 'gather'] as const).map((embedding) =>
      tf.tidy(() => {
        const m: GPT = { config: { ...cfg, embedding }, params: model.params };
        const logits = Array.from(forward(m, ids2d(rows)).dataSync());
        const { grads } = tf.variableGrads(() => loss(m, ids2d(rows), ids2d(tg), tf.ones([1, 8]) as tf.Tensor2D));
        // A parameter the loss does not reach has no entry in `grads` (or an all-zero one).
        const noGradient = [...model.params].filter(([, v]) => !grads[v.name] || grads[v.name]!.abs().max().dataSync()[0] === 0).map(([name]) => name);
        return { logits, noGradient, dwte: Array.from(grads[model.params.get('wte')!.name]!.dataSync()), dwpe: Array.from(grads[model.params.get('wpe')!.name]!.dataSync()) };
      }),
    );
    const [onehot, hybrid, gather] = results as [(typeof results)[0], (typeof results)[0], (typeof results)[0]];
    expect(hybrid.logits).toEqual(onehot.logits);
    expect(gather.logits).toEqual(onehot.logits);
    for (const r of results) expect(r.noGradient).toEqual([]);
    hybrid.dwte.forEach((x, i) => expect(x).toBeCloseTo(onehot.dwte[i]!, 6));
    gather.dwte.forEach((x, i) => expect(x).toBeCloseTo(onehot.dwte[i]!, 6));
    expect(hybrid.dwpe).toEqual(onehot.dwpe);
  });

  it('the flag-free matmul has the same values and gradients as tf.matMul (rank 2 and 4)', () => {
    for (const [sa, sb] of [[[3, 5], [5, 4]], [[2, 3, 4, 5], [2, 3, 5, 6]]] as const) {
      const [ours, ref] = [matmul, (a: tf.Tensor, b: tf.Tensor) => tf.matMul(a, b)].map((mm) =>
        tf.tidy(() => {
          const a = tf.randomNormal([...sa], 0, 1, 'float32', 1);
          const b = tf.randomNormal([...sb], 0, 1, 'float32', 2);
          const w = tf.randomNormal([...sa.slice(0, -1), sb[sb.length - 1]!], 0, 1, 'float32', 3);
          const f = (x: tf.Tensor, y: tf.Tensor): tf.Scalar => tf.sum(tf.mul(mm(x, y), w));
          const [da, db] = tf.grads(f)([a, b]);
          return [mm(a, b), da!, db!].map((t) => Array.from(t.dataSync()));
        }),
      );
      ours!.forEach((arr, i) => arr.forEach((x, j) => expect(x).toBeCloseTo(ref![i]![j]!, 5)));
    }
  });

  it('rejects too-long or non-int32 input clearly', () => {
    expect(() => tf.tidy(() => forward(model, ids2d([Array.from({ length: 17 }, () => 1)])))).toThrow(/exceeds blockSize 16/);
    expect(() => tf.tidy(() => forward(model, tf.tensor2d([[1, 2]]) as tf.Tensor2D))).toThrow(/int32/);
  });
});

describe('generation', () => {
  const prompt = [1, 5, 9, 13];

  it('KV cache and no-cache paths agree, and log-probs match sequenceLogProbs', async () => {
    const before = tf.memory().numTensors;
    const a = await generate(model, prompt, { maxNewTokens: 8, temperature: 1, rng: createRng(3) });
    const b = await generate(model, prompt, { maxNewTokens: 8, temperature: 1, rng: createRng(3), useCache: false });
    expect(a.tokens).toEqual(b.tokens);
    a.logProbs.forEach((x, i) => expect(x).toBeCloseTo(b.logProbs[i]!, 4));
    expect(a.finishReason).toBe('length');
    expect(a.tokens).toHaveLength(8);
    const { logProbs, entropy } = await sequenceLogProbs(model, [[...prompt, ...a.tokens], prompt]);
    expect(logProbs[0]).toHaveLength(prompt.length + 8 - 1);
    expect(logProbs[1]).toHaveLength(prompt.length - 1);
    a.logProbs.forEach((x, i) => expect(x).toBeCloseTo(logProbs[0]![prompt.length - 1 + i]!, 4));
    a.entropies.forEach((x, i) => expect(x).toBeCloseTo(entropy[0]![prompt.length - 1 + i]!, 4));
    a.entropies.forEach((x) => expect(x).toBeLessThanOrEqual(Math.log(50) + 1e-6));
    const greedy = await generate(model, prompt, { maxNewTokens: 6, temperature: 0 });
    const greedy2 = await generate(model, prompt, { maxNewTokens: 6, temperature: 0, useCache: false });
    expect(greedy.tokens).toEqual(greedy2.tokens);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('stops on stop tokens and at the end of the context', async () => {
    const all = Array.from({ length: 50 }, (_, i) => i);
    const s = await generate(model, prompt, { maxNewTokens: 5, stopTokens: all });
    expect(s.finishReason).toBe('stop');
    expect(s.tokens).toHaveLength(1);
    const c = await generate(model, Array.from({ length: 14 }, () => 2), { maxNewTokens: 10 });
    expect(c.finishReason).toBe('context');
    expect(c.tokens).toHaveLength(3);
  });

  it('a Decoder continues across turns like a fresh pass over the whole context', async () => {
    const before = tf.memory().numTensors;
    const dec = new Decoder(model);
    dec.feed(prompt);
    const turn1 = await dec.sample({ maxNewTokens: 3, temperature: 0 });
    dec.feed([7, 7, 8]); // an "observation"
    const turn2 = await dec.sample({ maxNewTokens: 3, temperature: 0 });
    expect(dec.length).toBe(prompt.length + 3 + 3 + 3); // every sampled token is in the context
    expect(dec.context.slice(prompt.length, prompt.length + 3)).toEqual(turn1.tokens);
    dec.dispose();
    const ref = await generate(model, [...prompt, ...turn1.tokens, 7, 7, 8], { maxNewTokens: 3, temperature: 0, useCache: false });
    expect(turn2.tokens).toEqual(ref.tokens);
    turn2.logProbs.forEach((x, i) => expect(x).toBeCloseTo(ref.logProbs[i]!, 4));
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('bidirectional observations', () => {
  // Special ids (model/tokenizer SPECIAL_TOKENS): 0 pad, 1 bos, 2 eos, 3 <think>, 6 </tool_call>, 7 <tool_response>, 8 </tool_response>.
  const [PAD, BOS, THINK, CALL_END, OPEN, CLOSE] = [0, 1, 3, 6, 7, 8];

  it('a tool response reaches its last token; everything else reaches itself', () => {
    //              0    1   2      3   4         5     6   7   8      9   10
    const row = [BOS, 20, THINK, 21, CALL_END, OPEN, 22, 23, CLOSE, 24, THINK];
    expect([...observationReach(row, 1, row.length)]).toEqual([0, 1, 2, 3, 4, 8, 8, 8, 8, 9, 10]);
    // Cut by the window (no opener), cut by the row end, cut by a tag of the policy's writing; rows are independent.
    const rows = [25, 26, CLOSE, THINK, OPEN, 27, 28, PAD, OPEN, 29, THINK, OPEN, 30, 31, 32, 33];
    expect([...observationReach(rows, 2, 8)]).toEqual([0, 1, 2, 3, 6, 6, 6, 7, /* row 2, positions within it: */ 1, 1, 2, 7, 7, 7, 7, 7]);
  });

  const on = createModel({ ...cfg, bidirectionalObservations: true }, { seed: 11 });
  const logitsOf = (row: number[]): Float32Array => tf.tidy(() => forward(on, ids2d([row]))).dataSync() as Float32Array;
  const V = cfg.vocabSize;
  const at = (l: Float32Array, t: number): number[] => Array.from(l.subarray(t * V, (t + 1) * V));
  const close = (a: number[], b: number[]): boolean => a.every((x, i) => Math.abs(x - b[i]!) < 1e-4);
  const turn = [BOS, 20, THINK, 21, CALL_END, OPEN, 22, 23, 24, CLOSE, THINK, 25, 26];

  it('a response token reads the rest of its response; nothing reads a later token outside it', () => {
    const base = logitsOf(turn);
    const changedInside = logitsOf(turn.map((x, i) => (i === 8 ? 40 : x))); // the response's last word
    const changedAfter = logitsOf(turn.map((x, i) => (i === 11 ? 40 : x))); // a word of the next turn
    // Positions 5..7 of the response read position 8: their logits change with it.
    for (const t of [5, 6, 7]) expect(close(at(base, t), at(changedInside, t))).toBe(false);
    // Before the response, attention stays causal.
    for (const t of [0, 1, 2, 3, 4]) expect(close(at(base, t), at(changedInside, t))).toBe(true);
    // Nothing up to position 10 reads position 11.
    for (let t = 0; t <= 10; t++) expect(close(at(base, t), at(changedAfter, t))).toBe(true);
    // A causal model with the same weights: position 5 does not read position 8.
    const causal = { config: { ...on.config, bidirectionalObservations: false }, params: on.params };
    const c0 = tf.tidy(() => forward(causal, ids2d([turn]))).dataSync() as Float32Array;
    const c1 = tf.tidy(() => forward(causal, ids2d([turn.map((x, i) => (i === 8 ? 40 : x))]))).dataSync() as Float32Array;
    expect(close(at(c0, 5), at(c1, 5))).toBe(true);
  });

  it('the KV cache, the full pass and sequenceLogProbs agree on a prompt with a response', async () => {
    const before = tf.memory().numTensors;
    const prompt = turn.slice(0, 11); // the context before the second turn, ending in <think>
    // As checkpointPolicy: a turn that starts a response ends there. A second, shorter row pads the batch.
    await expectDecodingPathsAgree(on, prompt, { seed: 5, stops: [OPEN], extraRow: [BOS, 20] });
    expect(tf.memory().numTensors).toBe(before);
  });

  it('refuses a response split across feeds (its cached keys would be stale)', () => {
    const dec = new Decoder(on);
    dec.feed([BOS, 20, OPEN, 22]);
    expect(() => dec.feed([23, CLOSE])).toThrow(/tool response must be fed whole/);
    dec.dispose();
  });

  afterAll(() => disposeModel(on));
});

describe('retired and reference-only options', () => {
  it('rotary positions were retired: a config or checkpoint that asks for them is refused, saying so', () => {
    expect(() => resolveGPTConfig({ ...cfg, positions: 'rotary' as 'learned' })).toThrow(/positions must be learned, got rotary: rotary positions were retired/);
    expect(() => resolveGPTConfig({ ...cfg, positions: 'absolute' as 'learned' })).toThrow(/positions must be learned, got absolute$/);
    const learned = createModel(cfg, { seed: 1 });
    expect(learned.params.has('wpe')).toBe(true);
    disposeModel(learned);
  });

  it('bidirectionalObservations leaves the fused attention out: the reference path takes it', () => {
    const ctx = (bidirectionalObservations: boolean) => ({ cfg: { ...cfg, bidirectionalObservations }, training: false, decode: false, seed: 0, site: 0 });
    expect(fastPath(ctx(true), 0).attention).toBe(false);
    expect(fastPath(ctx(false), 0).attention).toBe(fusedAttentionAvailable());
  });
});

describe('distance penalties', () => {
  const dcfg = resolveGPTConfig({ ...cfg, distanceBias: true, bidirectionalObservations: true });
  const near = createModel(dcfg, { seed: 17 });
  afterAll(() => disposeModel(near));

  it('slopes by hand: 2^(-8 (h + 1) / nHead)', () => {
    expect(distanceSlopes(4)).toEqual([1 / 4, 1 / 16, 1 / 64, 1 / 256]);
    expect(distanceSlopes(2)).toEqual([1 / 16, 1 / 256]);
  });

  it('change the logits, and the KV cache, the full pass and sequenceLogProbs still agree', async () => {
    const before = tf.memory().numTensors;
    // 7 ... 8: a tool response, read both ways and penalised by distance both ways.
    const prompt = [1, 20, 3, 21, 6, 7, 22, 23, 24, 8, 3];
    const plain = { config: { ...dcfg, distanceBias: false }, params: near.params };
    const last = (m: GPT): number[] => tf.tidy(() => Array.from(forward(m, ids2d([prompt])).slice([0, prompt.length - 1, 0], [1, 1, cfg.vocabSize]).dataSync()));
    const a0 = last(near);
    const b0 = last(plain);
    expect(a0.some((x, i) => Math.abs(x - b0[i]!) > 1e-4)).toBe(true);
    await expectDecodingPathsAgree(near, prompt, { seed: 8, stops: [7] });
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('sampling and FLOPs', () => {
  it('top-p keeps the nucleus only; temperature 0 is argmax', () => {
    const logits = [5, 0, 0, 0]; // p(0) ~ 0.98
    const rng = createRng(1);
    for (let i = 0; i < 50; i++) expect(sampleFromLogits(logits, { topP: 0.9, rng }).id).toBe(0);
    const g = sampleFromLogits([0, 3, 1], { temperature: 0, rng });
    expect(g.id).toBe(1);
    expect(g.logProb).toBeCloseTo(3 - Math.log(1 + Math.exp(3) + Math.exp(1)), 10);
    const flat = sampleFromLogits([0, 0, 0, 0], { rng });
    expect(flat.entropy).toBeCloseTo(Math.log(4), 10);
  });

  it('estimates FLOPs per token like nanoGPT, on the tiny preset counted by hand', () => {
    // nanoGPT's 6N + 12·L·C·T, N every parameter but wpe (the tied wte counted once, as the head). Tiny: L 2,
    // C 64, 4 heads, T 256, vocabulary 2048. Per layer: ln_1 128, c_attn 64·192 + 192 = 12480, smear 4,
    // c_proj 64·64 + 64 = 4160, ln_2 128, c_fc 64·256 + 256 = 16640, mlp c_proj 256·64 + 64 = 16448: 49988.
    // N = 2·49988 + ln_f 128 + wte 2048·64 = 231176; 6N = 1387056; 12·2·64·256 = 393216.
    const tiny = resolveGPTConfig({ preset: 'tiny' });
    expect(flopsPerToken(tiny)).toBe(1_780_272);
    expect(flopsPerToken(tiny, { training: false })).toBe(593_424); // the forward pass alone: a third
    expect(flopsPerToken(tiny, { seqLen: 128 })).toBe(1_387_056 + 12 * 2 * 64 * 128);
  });
});
