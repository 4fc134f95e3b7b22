// The policy model: a GPT-2 style decoder-only transformer in TensorFlow.js, read top to bottom like
// nanoGPT's model.py: config and presets, parameters (a named map of tf.Variables), the pieces
// (layer norm, causal self-attention, MLP, pre-norm block), the forward pass and the head, and the FLOPs /
// MFU estimate. Beside it: the loss and per-token log-probs (logprobs.ts), generation with and without a KV
// cache (generate.ts, batch-decoder.ts), the attention heads' arithmetic and the KV cache they keep
// (attention-heads.ts; a batch decoder's slots in slot-cache.ts), which keys each query sees (attention-mask.ts,
// positions.ts); the fused kernels and the fast-gradient matmuls are in kernels/, and `fastPath` below is the
// one place that decides which are taken.
//
// Backend notes (checked on tfjs 4.22, cpu and wasm in Node; bench/speed/train.ts re-checks):
// - tf.gather's gradient needs the UnsortedSegmentSum kernel, which the stock wasm backend does NOT have and
//   whose stock cpu kernel is pathologically slow (most of a `tiny` train step on cpu); kernels/kernels.ts
//   registers a scatter-add for both. The token embedding has modes:
//     'gather'  tf.gather with its own gradient (right for tfjs-node, whose kernel is native);
//     'onehot'  oneHot(ids) @ wte both ways: a matmul, gradient everywhere, 2*N*V*C FLOPs forward and backward;
//     'hybrid'  tf.gather forward (a lookup on every backend) with a custom gradient oneHot(ids)^T @ dy:
//               only the backward pays the matmul;
//     'auto'    (default) 'gather' where the gradient is fast (tfjs-node, or wasm/cpu with kernels.ts), else 'hybrid'.
//   All give bit-identical forward values.
// - Fused kernels on wasm/cpu, tf ops elsewhere (tfjs-node, and decoding with a KV cache): the loss's softmax
//   cross-entropy with the tied head (kernels/xent.ts), attention (kernels/attention.ts), layer norm
//   (kernels/layernorm.ts), smeared keys (kernels/smear.ts), GELU (kernels/gelu.ts): see fastPath.
// - Everything else used here has a gradient on cpu and wasm: matMul (incl. 4-D batched), transpose,
//   reshape, split/slice (grad = pad), concat, add/sub/mul/div, square, tanh, rsqrt, moments, softmax,
//   logSoftmax, oneHot * x, dropout. tf.where/select has no gradient through its condition (not needed):
//   the attention mask is an additive constant (0 / -1e9) instead.
// - matMul with transposeA/transposeB set is an order of magnitude slower than a plain matMul on wasm, and
//   tfjs-core's matMul gradient uses those flags: every matmul here goes through `matmul` (kernels/matmul.ts).
// - GELU is the tanh approximation (kernels/gelu.ts; tfjs-core has no gelu op; GPT-2 uses the tanh form too).
//
// Tensor hygiene: every public function that returns numbers disposes everything it made; functions that
// return tensors (forward, hidden, head) are meant to be called inside tf.tidy by the caller.
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../base/errors';
import { MODEL_PRESETS, modelShapeProblem, PRESET_SHAPES, type ModelPreset } from '../contract/run-config';
import { createRng, type Rng } from '../util/rng';
import { fusedAttentionAvailable } from './kernels/attention';
import { layerInputs, type LayerInputs } from './attention-mask';
import { fusedHeads, opHeads, type LayerKV } from './attention-heads';
import { slotAttention, type SlotRows } from './slot-cache';
import { hasFastGatherGrad } from './kernels/kernels';
import { matmul, tiedLogits } from './kernels/matmul';
import { DEFAULT_VOCAB_SIZE } from './tokenizer';
import { targetLogProbs, tiedHeadXent, tiedHeadXentAvailable } from './kernels/xent';
import { fusedGeluAvailable, gelu } from './kernels/gelu';
import { fusedLayerNormAvailable, layerNorm } from './kernels/layernorm';

// ---------- config ----------

export type EmbeddingMode = 'auto' | 'gather' | 'onehot' | 'hybrid';

/** How a token's position enters the model (see GPTConfig.positions): learned only, rotary was retired. */
export type PositionMode = 'learned';

export interface GPTConfig {
  vocabSize: number;
  /** Maximum context length (number of positions). */
  blockSize: number;
  nLayer: number;
  nHead: number;
  nEmbd: number;
  /** Dropout rate on embeddings, attention weights and residual branches when training (0 for RL: log-probs must be exact). */
  dropout: number;
  /**
   * Tie the output head to the token embedding (logits = h @ wte^T), as GPT-2 and nanoGPT do. Saves V*C
   * parameters, which is a large share of a tiny model (wte is over half of `tiny`). Untied adds `lm_head.weight` [C, V].
   */
  tiedHead: boolean;
  /** How the token embedding is looked up (see the backend notes above). */
  embedding: EmbeddingMode;
  /**
   * Smeared keys (Olsson et al. 2022, "In-context learning and induction heads"): each head's key at position
   * t is s * k_t + (1 - s) * k_(t-1), with s = sigmoid(a) learned per head. A key then also tells which token
   * came before it, so a single head can attend to "the token after the earlier occurrence of this one" and
   * copy it: how a policy writes a name from the question or a URL from a result, piece by piece, for names
   * it never saw in training. Without it that circuit needs a previous-token head in an earlier layer, which
   * a 2-layer model trained for minutes forms late. Checkpoints from before this option load with it off.
   */
  smearKeys: boolean;
  /**
   * Bidirectional attention within each tool response, causal attention everywhere else (see
   * observationReach). The policy is given its observations and never writes them, so their tokens may read
   * the whole response: in "Irrawaddy River flows into Andaman Sea." the key of "Irrawaddy" then also says
   * what it flows into, and a question about what flows into the Andaman Sea can find the name before
   * writing it. A causal model must pick the name's first token before reading what identifies it. What the
   * policy writes stays causal, so sampling and the loss see the same thing. Off in the presets and the base
   * model: it did not raise held-out pass@1 (docs/learning.md, 'Before the base model: from random weights',
   * has the figures). So it runs on the reference path only (tf ops; fastPath leaves the fused attention out),
   * slower but the same arithmetic. Checkpoints from before this option load with it off.
   */
  bidirectionalObservations: boolean;
  /**
   * 'learned': GPT-2's position embedding `wpe` [blockSize, C], added to the token embedding. The only mode:
   * 'rotary' (RoPE) was retired, as no preset or base model used it and it did not pay (docs/learning.md,
   * 'Before the base model'); a checkpoint that asks for it is refused by resolveGPTConfig with that reason.
   * Checkpoints from before this field load as 'learned'.
   */
  positions: PositionMode;
  /**
   * ALiBi-style distance penalties (Press et al. 2022) on top of the position embeddings: head h subtracts
   * m_h * |i - j| from the score of query i on key j, with slopes m_h = 2^(-8 (h + 1) / nHead), so the first heads
   * read their neighbourhood and the last ones the whole context. With bidirectionalObservations a response
   * token's near neighbours on both sides are its own line: the name that opens "Manas International Airport
   * serves city Bishkek." can carry what the line says of it. Checkpoints from before this option load with it off.
   */
  distanceBias: boolean;
}

export type GPTPreset = ModelPreset;

/**
 * Model shapes: the contract's (PRESET_SHAPES, which the run config and the wizard read too) with what only
 * training uses. vocabSize is filled from the tokenizer. dropout 0: we fine-tune and do RL, where dropout hurts.
 */
export const GPT_PRESETS: Record<GPTPreset, Omit<GPTConfig, 'vocabSize'>> = Object.fromEntries(
  MODEL_PRESETS.map((p) => {
    const { blockSize, nLayer, nHead, nEmbd, bidirectionalObservations, positions, distanceBias } = PRESET_SHAPES[p];
    // The keys in GPTConfig's order, as checkpoints have always stored them.
    return [p, { blockSize, nLayer, nHead, nEmbd, dropout: 0, tiedHead: true, embedding: 'auto', smearKeys: true, bidirectionalObservations, positions, distanceBias }];
  }),
) as Record<GPTPreset, Omit<GPTConfig, 'vocabSize'>>;

/** Defaults (`tiny`, vocab 2048) <- preset <- overrides, validated. The result is what checkpoints store. */
export function resolveGPTConfig(overrides: Partial<GPTConfig> & { preset?: GPTPreset } = {}): GPTConfig {
  const { preset, ...rest } = overrides;
  if (preset !== undefined && !Object.hasOwn(GPT_PRESETS, preset)) {
    throw new LabError('bad_request', `unknown model preset ${String(preset)} (expected ${Object.keys(GPT_PRESETS).join(', ')})`);
  }
  const cfg: GPTConfig = { vocabSize: DEFAULT_VOCAB_SIZE, ...GPT_PRESETS.tiny, ...(preset ? GPT_PRESETS[preset] : {}), ...rest };
  for (const k of ['vocabSize', 'blockSize', 'nLayer', 'nHead', 'nEmbd'] as const) {
    if (!Number.isInteger(cfg[k]) || cfg[k] <= 0) throw new LabError('bad_request', `model config ${k} must be a positive integer, got ${cfg[k]}`);
  }
  if (!(cfg.dropout >= 0 && cfg.dropout < 1)) throw new LabError('bad_request', `dropout must be in [0, 1), got ${cfg.dropout}`);
  if (!['auto', 'gather', 'onehot', 'hybrid'].includes(cfg.embedding)) throw new LabError('bad_request', 'embedding must be auto, gather, onehot or hybrid');
  for (const k of ['smearKeys', 'bidirectionalObservations', 'distanceBias'] as const) {
    if (typeof cfg[k] !== 'boolean') throw new LabError('bad_request', `${k} must be true or false, got ${String(cfg[k])}`);
  }
  if (cfg.positions !== 'learned') {
    const why = (cfg.positions as string) === 'rotary' ? ': rotary positions were retired (no preset or base model used them; docs/learning.md has their measurement)' : '';
    throw new LabError('bad_request', `positions must be learned, got ${String(cfg.positions)}${why}`);
  }
  const shape = modelShapeProblem(cfg);
  if (shape) throw new LabError('bad_request', `model config: ${shape}`);
  return cfg;
}

// ---------- parameters ----------

type Init = { kind: 'normal'; std: number } | { kind: 'zeros' } | { kind: 'ones' };

export interface ParamSpec {
  name: string;
  shape: number[];
  init: Init;
  /** AdamW weight decay applies (matmul weights only; never norms, biases or embeddings). */
  decay: boolean;
}

/**
 * Every parameter with its shape and GPT-2 initialisation, in canonical order. Linear weights are stored
 * [in, out] so a layer is x @ W + b. Init: N(0, 0.02) for weights and embeddings, with the residual
 * projections (attn.c_proj, mlp.c_proj) scaled to 0.02 / sqrt(2 * nLayer); biases 0; layer-norm gains 1.
 */
export function paramSpecs(cfg: GPTConfig): ParamSpec[] {
  const C = cfg.nEmbd;
  const std = 0.02;
  const projStd = 0.02 / Math.sqrt(2 * cfg.nLayer);
  const specs: ParamSpec[] = [
    { name: 'wte', shape: [cfg.vocabSize, C], init: { kind: 'normal', std }, decay: false },
  ];
  specs.push({ name: 'wpe', shape: [cfg.blockSize, C], init: { kind: 'normal', std }, decay: false });
  const norm = (name: string): void => {
    specs.push({ name: `${name}.weight`, shape: [C], init: { kind: 'ones' }, decay: false });
    specs.push({ name: `${name}.bias`, shape: [C], init: { kind: 'zeros' }, decay: false });
  };
  const linear = (name: string, nin: number, nout: number, s: number): void => {
    specs.push({ name: `${name}.weight`, shape: [nin, nout], init: { kind: 'normal', std: s }, decay: true });
    specs.push({ name: `${name}.bias`, shape: [nout], init: { kind: 'zeros' }, decay: false });
  };
  for (let i = 0; i < cfg.nLayer; i++) {
    norm(`h.${i}.ln_1`);
    linear(`h.${i}.attn.c_attn`, C, 3 * C, std);
    // sigmoid(0) = 0.5: each key starts as the mean of its own and its predecessor's.
    if (cfg.smearKeys) specs.push({ name: `h.${i}.attn.smear`, shape: [cfg.nHead], init: { kind: 'zeros' }, decay: false });
    linear(`h.${i}.attn.c_proj`, C, C, projStd);
    norm(`h.${i}.ln_2`);
    linear(`h.${i}.mlp.c_fc`, C, 4 * C, std);
    linear(`h.${i}.mlp.c_proj`, 4 * C, C, projStd);
  }
  norm('ln_f');
  if (!cfg.tiedHead) specs.push({ name: 'lm_head.weight', shape: [C, cfg.vocabSize], init: { kind: 'normal', std }, decay: true });
  return specs;
}

export interface GPT {
  readonly config: GPTConfig;
  /** All trainable weights by name, in paramSpecs order. Checkpoints and the optimiser work on this map. */
  readonly params: Map<string, tf.Variable>;
}

function initValues(spec: ParamSpec, rng: Rng): Float32Array {
  const n = spec.shape.reduce((a, b) => a * b, 1);
  const out = new Float32Array(n);
  if (spec.init.kind === 'ones') out.fill(1);
  else if (spec.init.kind === 'normal') {
    const std = spec.init.std;
    for (let i = 0; i < n; i += 2) {
      // Box-Muller from our seeded RNG: the same weights on every backend.
      const u = 1 - rng.next();
      const v = rng.next();
      const r = Math.sqrt(-2 * Math.log(u)) * std;
      out[i] = r * Math.cos(2 * Math.PI * v);
      if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * v);
    }
  }
  return out;
}

/** A fresh model with GPT-2 init from a seed (default 1337, nanoGPT's). */
export function createModel(config: GPTConfig, opts: { seed?: number } = {}): GPT {
  const cfg = resolveGPTConfig(config);
  const rng = createRng(opts.seed ?? 1337);
  const params = new Map<string, tf.Variable>();
  for (const spec of paramSpecs(cfg)) {
    // No variable name: tfjs names must be unique per process, and several models may coexist.
    const init = tf.tensor(initValues(spec, rng), spec.shape, 'float32');
    params.set(spec.name, tf.variable(init, true));
    init.dispose(); // the variable holds its own reference to the data
  }
  return { config: cfg, params };
}

export function disposeModel(model: GPT): void {
  for (const v of model.params.values()) v.dispose();
  model.params.clear();
}

/** Number of parameters. `nonEmbedding` excludes wte and wpe (nanoGPT reports that figure). */
export function paramCount(cfg: GPTConfig, opts: { nonEmbedding?: boolean } = {}): number {
  let n = 0;
  for (const s of paramSpecs(cfg)) {
    if (opts.nonEmbedding && (s.name === 'wte' || s.name === 'wpe')) continue;
    n += s.shape.reduce((a, b) => a * b, 1);
  }
  return n;
}

function p(model: GPT, name: string): tf.Variable {
  const v = model.params.get(name);
  if (!v) throw new LabError('internal', `model has no parameter ${name}`);
  return v;
}

// ---------- pieces ----------

export interface ForwardOptions {
  /** Apply dropout (default false). */
  training?: boolean;
  /** Seed for dropout masks (each dropout site derives its own). */
  seed?: number;
}

/** Per-call dropout state: a base seed and a counter so every site gets a different, reproducible mask. */
export interface Ctx {
  cfg: GPTConfig;
  training: boolean;
  /** Decoding, no gradient: plain tf.matMul (a customGrad call costs JS overhead on every op of every token). */
  decode: boolean;
  seed: number;
  site: number;
  /** bidirectionalObservations after a KV cache: the last key each new position may see ([B * T], absolute). */
  reach?: Int32Array;
  /** Decoding one token per row, each row's past in its slot of a host cache (batch-decoder.ts, slot-cache.ts). */
  slots?: SlotRows;
  /**
   * Prefilling rows of different lengths padded at the end (batch-decoder.ts): each row's last real position,
   * whose raw key the cache keeps for smearKeys (the padding's would be wrong).
   */
  lastPositions?: Int32Array;
}

function dropout(x: tf.Tensor, ctx: Ctx): tf.Tensor {
  if (!ctx.training || ctx.cfg.dropout === 0) return x;
  return tf.dropout(x, ctx.cfg.dropout, undefined, ctx.seed * 1000 + ctx.site++);
}

/** x [..., nin] @ W [nin, nout] + b. */
function linear(x: tf.Tensor, w: tf.Tensor, b: tf.Tensor, ctx: Ctx): tf.Tensor {
  const shape = x.shape;
  const nin = shape[shape.length - 1]!;
  const y = tf.add((ctx.decode ? tf.matMul : matmul)(tf.reshape(x, [-1, nin]), w), b);
  return tf.reshape(y, [...shape.slice(0, -1), w.shape[1]!]);
}

/**
 * Self-attention, the heads by one of three paths: a batch decoder's step over its slots (slot-cache.ts), the
 * fused kernels when fastPath takes them (`shared.fused`), else tf ops under the additive mask `bias`
 * (attentionBias), the reference; both in attention-heads.ts. With `past` (decoding), the new keys/values are
 * appended to the cached ones. The new KV is returned when decoding only.
 */
function attention(model: GPT, i: number, x: tf.Tensor, ctx: Ctx, past: LayerKV | undefined, shared: LayerInputs): { y: tf.Tensor; kv?: LayerKV } {
  const C = ctx.cfg.nEmbd;
  const [B, T] = x.shape as [number, number, number];
  const qkv = linear(x, p(model, `h.${i}.attn.c_attn.weight`), p(model, `h.${i}.attn.c_attn.bias`), ctx);
  const heads = (): tf.Tensor[] => tf.split(qkv, 3, -1);
  const smear = (): tf.Variable | undefined => (ctx.cfg.smearKeys ? p(model, `h.${i}.attn.smear`) : undefined);
  const { y, kv } = ctx.slots
    ? { y: slotAttention(qkv, i, model.params.get(`h.${i}.attn.smear`), ctx.slots) }
    : shared.fused
      ? fusedHeads(heads(), smear(), ctx)
      : opHeads(heads(), smear(), ctx, past, shared, (weights) => dropout(weights, ctx));
  const out = dropout(linear(tf.reshape(y, [B, T, C]), p(model, `h.${i}.attn.c_proj.weight`), p(model, `h.${i}.attn.c_proj.bias`), ctx), ctx);
  return kv ? { y: out, kv } : { y: out };
}

function mlp(model: GPT, i: number, x: tf.Tensor, ctx: Ctx, fast: FastPath): tf.Tensor {
  const h = gelu(linear(x, p(model, `h.${i}.mlp.c_fc.weight`), p(model, `h.${i}.mlp.c_fc.bias`), ctx), fast.gelu);
  return dropout(linear(h, p(model, `h.${i}.mlp.c_proj.weight`), p(model, `h.${i}.mlp.c_proj.bias`), ctx), ctx);
}

/** Pre-norm block: x + attn(ln_1(x)), then x + mlp(ln_2(x)). */
function block(model: GPT, i: number, x: tf.Tensor, ctx: Ctx, past: LayerKV | undefined, shared: LayerInputs, fast: FastPath): { x: tf.Tensor; kv?: LayerKV } {
  const a = attention(model, i, layerNorm(x, p(model, `h.${i}.ln_1.weight`), p(model, `h.${i}.ln_1.bias`), fast.layerNorm), ctx, past, shared);
  const x1 = tf.add(x, a.y);
  const x2 = tf.add(x1, mlp(model, i, layerNorm(x1, p(model, `h.${i}.ln_2.weight`), p(model, `h.${i}.ln_2.bias`), fast.layerNorm), ctx, fast));
  return { x: x2, kv: a.kv };
}

// ---------- the fast path ----------

/**
 * Which pieces of one forward pass run as the fused kernels of kernels/ (installFastKernels registers them for
 * wasm and cpu) instead of tf ops: decided here and nowhere else. A fused piece gives its tf-op twin's values
 * (tests/unit/model-kernels.test.ts); tfjs-node registers none and runs tf ops throughout.
 */
export interface FastPath {
  /** Attention with smeared keys, one kernel per head: causal from position 0, so no KV cache, no dropout, no bidirectionalObservations. */
  attention: boolean;
  layerNorm: boolean;
  gelu: boolean;
}

/** The fast path of a forward pass that starts at position pos0 (after a KV cache of pos0 positions). */
export function fastPath(ctx: Ctx, pos0: number): FastPath {
  return {
    // From position 0 only (the kernels take no KV cache in; a prefill gets its cache back), and no dropout.
    // Causal only: bidirectionalObservations, which no preset or base model uses, stays on the reference path.
    attention: pos0 === 0 && !(ctx.training && ctx.cfg.dropout > 0) && !ctx.cfg.bidirectionalObservations && fusedAttentionAvailable(),
    layerNorm: fusedLayerNormAvailable(),
    gelu: fusedGeluAvailable(),
  };
}

/** Whether the loss takes the tied head and its cross-entropy as one fused kernel (kernels/xent.ts tiedHeadXent). */
function fusedHeadXent(model: GPT, rows: number): boolean {
  return model.config.tiedHead && rows > 16 && tiedHeadXentAvailable();
}

/** The embedding mode in effect on the current backend ('auto' resolved: a fast gather gradient, registered or native). */
export function embeddingMode(cfg: GPTConfig): Exclude<EmbeddingMode, 'auto'> {
  if (cfg.embedding !== 'auto') return cfg.embedding;
  return hasFastGatherGrad() ? 'gather' : 'hybrid';
}

/** Token embedding rows [N, C] for flat ids [N] (see the backend notes at the top). */
function lookup(wte: tf.Tensor, flat: tf.Tensor1D, mode: Exclude<EmbeddingMode, 'auto'>, V: number): tf.Tensor {
  if (mode === 'gather') return tf.gather(wte, flat);
  if (mode === 'onehot') return matmul(tf.oneHot(flat, V), wte);
  const f = tf.customGrad((w, save) => {
    // The ids must be saved (the engine keeps a copy for the backward pass); a closure would see them disposed.
    (save as tf.GradSaveFunc)([flat]);
    return {
      value: tf.gather(w as tf.Tensor, flat),
      // d wte = oneHot(ids)^T @ dy: the scatter-add as a matmul, which every backend has and runs fast.
      gradFunc: (dy, saved) => tf.matMul(tf.transpose(tf.oneHot(saved[0] as tf.Tensor1D, V)), dy),
    };
  });
  return f(wte);
}

function embed(model: GPT, ids: tf.Tensor2D, pos0: number, ctx: Ctx): tf.Tensor {
  const { vocabSize: V, nEmbd: C } = ctx.cfg;
  const [B, T] = ids.shape;
  const flat = tf.reshape(ids, [B * T]) as tf.Tensor1D;
  const tok = tf.reshape(lookup(p(model, 'wte'), flat, embeddingMode(ctx.cfg), V), [B, T, C]);
  if (ctx.slots) return tf.add(tok, tf.reshape(tf.gather(p(model, 'wpe'), tf.tensor1d(ctx.slots.positions, 'int32')), [B, 1, C]));
  return dropout(tf.add(tok, tf.slice(p(model, 'wpe'), [pos0, 0], [T, C])), ctx);
}

function checkIds(cfg: GPTConfig, ids: tf.Tensor, pos0: number): void {
  if (ids.rank !== 2) throw new LabError('bad_request', `token ids must be [batch, time], got shape [${ids.shape.join(', ')}]`);
  if (ids.dtype !== 'int32') throw new LabError('bad_request', `token ids must be int32, got ${ids.dtype}`);
  if (pos0 + ids.shape[1]! > cfg.blockSize) {
    throw new LabError('bad_request', `sequence of ${pos0 + ids.shape[1]!} positions exceeds blockSize ${cfg.blockSize}`);
  }
}

/** Final hidden states [B, T, C] (after ln_f) and, when decoding (ctx.decode), the new KV per layer. */
export function hidden(model: GPT, ids: tf.Tensor2D, ctx: Ctx, past: LayerKV[] | undefined): { h: tf.Tensor; kv: LayerKV[] } {
  const pos0 = past?.[0]?.kT.shape[3] ?? 0;
  checkIds(ctx.cfg, ids, pos0);
  let x = embed(model, ids, pos0, ctx);
  const fast = fastPath(ctx, pos0);
  const shared = layerInputs(ids, pos0, ctx, fast.attention);
  const kv: LayerKV[] = [];
  for (let i = 0; i < ctx.cfg.nLayer; i++) {
    const r = block(model, i, x, ctx, past?.[i], shared, fast);
    x = r.x;
    if (r.kv) kv.push(r.kv);
  }
  return { h: layerNorm(x, p(model, 'ln_f.weight'), p(model, 'ln_f.bias'), fast.layerNorm), kv };
}

/** Logits [..., V] from hidden states [..., C]. */
export function head(model: GPT, h: tf.Tensor, wteT?: tf.Tensor): tf.Tensor {
  const cfg = model.config;
  const shape = h.shape;
  const h2 = tf.reshape(h, [-1, cfg.nEmbd]) as tf.Tensor2D;
  let logits: tf.Tensor;
  if (!cfg.tiedHead) logits = matmul(h2, p(model, 'lm_head.weight'));
  // Decoding with wte^T made once for all steps (generateGroup): a plain matmul.
  else if (wteT) logits = tf.matMul(h2, wteT);
  // A few rows (decoding): the transposeB flag is cheap, transposing all of wte per token is not.
  else if (h2.shape[0] <= 16) logits = tf.matMul(h2, p(model, 'wte'), false, true);
  else logits = tiedLogits(h2, p(model, 'wte'));
  return tf.reshape(logits, [...shape.slice(0, -1), cfg.vocabSize]);
}

export function makeCtx(model: GPT, opts: ForwardOptions, decode = false): Ctx {
  return { cfg: model.config, training: opts.training ?? false, decode, seed: opts.seed ?? 0, site: 0 };
}

// ---------- forward ----------

/** Logits [B, T, V] for int32 ids [B, T] (T <= blockSize). Call inside tf.tidy. */
export function forward(model: GPT, ids: tf.Tensor2D, opts: ForwardOptions = {}): tf.Tensor3D {
  const { h } = hidden(model, ids, makeCtx(model, opts), undefined);
  return head(model, h) as tf.Tensor3D;
}

/**
 * Log-probs of targets [N] and entropy under the head's logits for hidden states h [N, C]: through the fused
 * head and cross-entropy (fusedHeadXent) where its kernels are, else the head and targetLogProbs.
 */
export function headLogProbs(model: GPT, h: tf.Tensor2D, targets: tf.Tensor1D): { logProbs: tf.Tensor1D; entropy: tf.Tensor1D } {
  if (fusedHeadXent(model, h.shape[0])) return tiedHeadXent(h, p(model, 'wte') as tf.Tensor2D, targets);
  return targetLogProbs(head(model, h) as tf.Tensor2D, targets);
}

// ---------- FLOPs and MFU ----------

/**
 * FLOPs per token, nanoGPT's estimate (PaLM appendix B): training = 6 * N + 12 * L * C * T, where N counts the
 * parameters that take part in matmuls (all but the two embedding tables, plus the V * C output head, which for
 * a tied model is wte itself, exactly nanoGPT's N) and T the attention context. Inference (forward only) is
 * a third of it: 2 * N + 4 * L * C * T, with T the average context. The one-hot embedding's extra matmul is
 * not counted: MFU counts the model's useful work, not the backend's workaround.
 */
export function flopsPerToken(cfg: GPTConfig, opts: { seqLen?: number; training?: boolean } = {}): number {
  const T = opts.seqLen ?? cfg.blockSize;
  const N = paramCount(cfg, { nonEmbedding: true }) + (cfg.tiedHead ? cfg.vocabSize * cfg.nEmbd : 0);
  const perToken = 6 * N + 12 * cfg.nLayer * cfg.nEmbd * T;
  return opts.training === false ? perToken / 3 : perToken;
}

/** Model FLOPs utilisation: achieved FLOP/s (tokens/s * flopsPerToken) over a peak FLOP/s (e.g. a measured matmul ceiling). */
export function estimateMfu(cfg: GPTConfig, tokensPerSecond: number, peakFlops: number, opts: { seqLen?: number; training?: boolean } = {}): number {
  return (flopsPerToken(cfg, opts) * tokensPerSecond) / peakFlops;
}
