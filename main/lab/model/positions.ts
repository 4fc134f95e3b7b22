// Which keys each query may see and where each token stands: the reach under bidirectionalObservations, the
// additive mask the tf-op attention takes, and ALiBi-style distance penalties (GPTConfig documents each
// option). Shared by gpt.ts, generate.ts and the batch decoder's slots.
import * as tf from '@tensorflow/tfjs';
import { SPECIAL_TOKENS, type SpecialToken } from './tokenizer';

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
