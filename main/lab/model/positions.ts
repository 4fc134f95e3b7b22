// Which keys each query may see and where each token stands: the causal reach and the reach under
// bidirectionalObservations, the additive mask the tf-op attention takes, ALiBi-style distance penalties and
// the rotary tables (GPTConfig documents each option). Shared by gpt.ts, generate.ts and the fused
// attention kernels (attention.ts), which take the reach instead of a mask.
import * as tf from '@tensorflow/tfjs';
import { SPECIAL_TOKENS, type SpecialToken } from './tokenizer';

/** The causal reach [B * T]: each position sees itself and what comes before it. */
export function causalReach(B: number, T: number): Int32Array {
  const reach = new Int32Array(B * T);
  for (let b = 0; b < B; b++) for (let t = 0; t < T; t++) reach[b * T + t] = t;
  return reach;
}

const special = (t: SpecialToken): number => SPECIAL_TOKENS.indexOf(t);
const RESPONSE_OPEN = special('<tool_response>');
const RESPONSE_CLOSE = special('</tool_response>');
/** Tags of the policy's own writing, the end of the text and padding: a response they meet was cut short. */
const RESPONSE_CUT = new Set((['<|pad|>', '<|bos|>', '<|eos|>', '<think>', '</think>', '<tool_call>', '</tool_call>', '<answer>', '</answer>'] as const).map(special));

/**
 * For each position of B rows of T token ids (row-major), the last position it may attend to under
 * bidirectionalObservations: a token of a tool response (from <tool_response> to its </tool_response>, tags
 * included) reaches the response's last token; every other token reaches only itself (causal). A response
 * the row cuts (its start before a context window, its end past the row, another tag inside it) covers what
 * the row holds of it. Decided from the ids alone, so training rows, RL samples and inference prompts get
 * the same attention from the same tokens. No response reaches past its own end, so nothing sees a later
 * turn: a turn's context reads the same in a shared training row as alone, and cached keys never go stale
 * (the policy writes no <tool_response>: a turn stops on it, checkpointPolicy).
 */
export function observationReach(ids: ArrayLike<number>, B: number, T: number): Int32Array {
  const reach = new Int32Array(B * T);
  for (let b = 0; b < B; b++) {
    const row = b * T;
    let open = -1; // where the open response starts, or -1
    const close = (end: number): void => {
      for (let k = open; k < end; k++) reach[row + k] = end - 1;
      open = -1;
    };
    for (let t = 0; t < T; t++) {
      const id = ids[row + t]!;
      if (open >= 0 && (id === RESPONSE_OPEN || RESPONSE_CUT.has(id))) close(t);
      if (id === RESPONSE_OPEN) open = t;
      if (open < 0) reach[row + t] = t;
      else if (id === RESPONSE_CLOSE) close(t + 1);
    }
    if (open >= 0) close(T);
  }
  return reach;
}

/**
 * Additive attention mask (0 / -1e9) for tq queries at positions past .. past + tq - 1 over past + tq keys.
 * Causal, [tq, past + tq], without `reach`; with it (the last key each query may see, [B * tq], absolute
 * positions), [B, 1, tq, past + tq].
 */
export function attentionBias(B: number, tq: number, past: number, reach?: Int32Array): tf.Tensor {
  const tk = past + tq;
  const rows = reach ? B : 1;
  const m = new Float32Array(rows * tq * tk);
  for (let b = 0; b < rows; b++) {
    for (let i = 0; i < tq; i++) {
      const last = reach ? reach[b * tq + i]! : past + i;
      const base = (b * tq + i) * tk;
      for (let j = last + 1; j < tk; j++) m[base + j] = -1e9;
    }
  }
  return reach ? tf.tensor4d(m, [B, 1, tq, tk]) : tf.tensor2d(m, [tq, tk]);
}

/** cos and sin [T, D] of the rotary angles of positions pos0 .. pos0 + T - 1 (see rotate). */
export interface Rotary {
  cos: tf.Tensor;
  sin: tf.Tensor;
}

const ROTARY_BASE = 10_000;

/**
 * The rotary angle of position t in channel d of a D-channel head: t * ROTARY_BASE^(-2i / D) with i = d mod D/2
 * (channel d and d + D/2 form one rotating pair, GPT-NeoX's layout). Pure, for the tables and the tests.
 */
export function rotaryAngle(t: number, d: number, D: number): number {
  return t * ROTARY_BASE ** ((-2 * (d % (D / 2))) / D);
}

export function rotaryTables(pos0: number, T: number, D: number): Rotary {
  const cos = new Float32Array(T * D);
  const sin = new Float32Array(T * D);
  for (let t = 0; t < T; t++) {
    for (let d = 0; d < D; d++) {
      const a = rotaryAngle(pos0 + t, d, D);
      cos[t * D + d] = Math.cos(a);
      sin[t * D + d] = Math.sin(a);
    }
  }
  return { cos: tf.tensor2d(cos, [T, D]), sin: tf.tensor2d(sin, [T, D]) };
}

/**
 * Rotates each channel pair (d, d + D/2) of x [B, H, T, D] (or [B, T, H, D] with [T, 1, D] tables) by its position's angle: x * cos + rotateHalf(x) * sin,
 * rotateHalf(x) = [-x2, x1]. Then q_i . k_j depends on i - j only (and on the contents).
 */
export function rotate(x: tf.Tensor4D, rot: { cos: tf.Tensor; sin: tf.Tensor }): tf.Tensor4D {
  const [B, A, T, D] = x.shape; // [B, H, T, D], or [B, T, H, D] with the tables shaped [T, 1, D]
  const half = D / 2;
  const x1 = tf.slice(x, [0, 0, 0, 0], [B, A, T, half]);
  const x2 = tf.slice(x, [0, 0, 0, half], [B, A, T, half]);
  return tf.add(tf.mul(x, rot.cos), tf.mul(tf.concat([tf.neg(x2), x1], 3), rot.sin)) as tf.Tensor4D;
}

/** ALiBi's head slopes: 2^(-8 (h + 1) / nHead) for heads h = 0 .. nHead - 1 (1/4, 1/16, 1/64, 1/256 for 4 heads). */
export function distanceSlopes(nHead: number): number[] {
  return Array.from({ length: nHead }, (_, h) => 2 ** ((-8 * (h + 1)) / nHead));
}

/** -m_h * |i - j| for tq queries at positions past .. past + tq - 1 over past + tq keys: [1, nHead, tq, past + tq]. */
export function distancePenalty(nHead: number, tq: number, past: number): tf.Tensor4D {
  const tk = past + tq;
  const slopes = distanceSlopes(nHead);
  const m = new Float32Array(nHead * tq * tk);
  for (let h = 0; h < nHead; h++) {
    for (let i = 0; i < tq; i++) {
      const base = (h * tq + i) * tk;
      for (let j = 0; j < tk; j++) m[base + j] = -slopes[h]! * Math.abs(past + i - j);
    }
  }
  return tf.tensor4d(m, [1, nHead, tq, tk]);
}
