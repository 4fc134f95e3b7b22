// The batch decoder's keys and values (batch-decoder.ts), in host memory with room for a whole context per
// row: a row owns a slot of blockSize positions per layer, its prompt's keys are copied in once, and each
// decoding step writes one position per row in place and reads the row's own keys only. No per-step concat
// of the whole cache, no padding, no mask: rows of any lengths share a step.
//
// A decoding step's attention runs here too, one query per row against its slot, in plain loops: a query of
// one position over at most blockSize keys is little arithmetic, and as tf ops it was mostly per-operation
// cost (a batched matmul per row and head, the concat, the mask, the softmax). The layer's projections, MLP
// and head stay tf ops over the whole batch. The same arithmetic as gpt.ts opHeads: smeared keys (the raw key
// of the last position kept per slot), rotary positions, distance penalties.
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../errors';
import type { GPTConfig } from './gpt';
import { distanceSlopes, rotaryAngle } from './positions';

/** The rows of one decoding step: each row's slot and the position of its new token (= positions cached). */
export interface SlotRows {
  cache: SlotCache;
  slots: Int32Array;
  positions: Int32Array;
}

export class SlotCache {
  private readonly H: number;
  private readonly D: number;
  private readonly T: number;
  /** Per layer: keys (smeared and rotated, as attention reads them) and values, [slot, H, T, D]. */
  private k: Float32Array[] = [];
  private v: Float32Array[] = [];
  /** Per layer: the raw key of each slot's last position, [slot, H, D] (smearKeys mixes it into the next). */
  private last: Float32Array[] = [];
  private readonly free: number[] = [];
  private capacity = 0;
  private readonly slopes: number[];
  /** cos and sin [T, D] of every position (rotary), computed once. */
  private readonly rot: { cos: Float32Array; sin: Float32Array } | null;

  constructor(private readonly cfg: GPTConfig) {
    this.H = cfg.nHead;
    this.D = cfg.nEmbd / cfg.nHead;
    this.T = cfg.blockSize;
    this.slopes = cfg.distanceBias ? distanceSlopes(this.H) : [];
    this.rot = cfg.positions === 'rotary' ? rotaryTable(this.T, this.D) : null;
  }

  /** A free slot (the cache grows by doubling when none is). */
  alloc(): number {
    if (this.free.length === 0) this.grow(Math.max(8, this.capacity * 2));
    return this.free.pop()!;
  }

  release(slot: number): void {
    this.free.push(slot);
  }

  private grow(capacity: number): void {
    const per = this.H * this.T * this.D;
    const widen = (a: Float32Array, n: number): Float32Array => {
      const b = new Float32Array(capacity * n);
      b.set(a);
      return b;
    };
    for (let l = 0; l < this.cfg.nLayer; l++) {
      this.k[l] = widen(this.k[l] ?? new Float32Array(0), per);
      this.v[l] = widen(this.v[l] ?? new Float32Array(0), per);
      this.last[l] = widen(this.last[l] ?? new Float32Array(0), this.H * this.D);
    }
    for (let s = capacity - 1; s >= this.capacity; s--) this.free.push(s);
    this.capacity = capacity;
  }

  /**
   * Copies row r of a prefill's cache for layer `layer` into `slot`: its first `len` positions of kT
   * [n, H, D, Tp] and v [n, H, Tp, D], and its raw last key from `last` [n, H, 1, D] (smeared keys).
   */
  fill(layer: number, slot: number, r: number, len: number, Tp: number, kT: Float32Array, v: Float32Array, last: Float32Array | null): void {
    const { H, D, T } = this;
    const K = this.k[layer]!;
    const V = this.v[layer]!;
    for (let h = 0; h < H; h++) {
      const src = (r * H + h) * D * Tp;
      const dst = (slot * H + h) * T * D;
      for (let j = 0; j < len; j++) for (let d = 0; d < D; d++) K[dst + j * D + d] = kT[src + d * Tp + j]!;
      V.set(v.subarray(src + 0, src + len * D), dst);
    }
    if (last) this.last[layer]!.set(last.subarray(r * H * D, (r + 1) * H * D), slot * H * D);
  }

  /**
   * One decoding step of layer `layer` for B rows: qkv [B, 3C] (each row's query, raw key and value, heads
   * [H, D] within each), smear [H] the heads' sigmoid(a) (null without smeared keys). Writes each row's key
   * and value at its position and the attention output into y [B, C].
   */
  step(layer: number, rows: SlotRows, qkv: Float32Array, smear: Float32Array | null, y: Float32Array): void {
    const { H, D, T } = this;
    const C = H * D;
    const K = this.k[layer]!;
    const V = this.v[layer]!;
    const last = this.last[layer]!;
    const scale = 1 / Math.sqrt(D);
    const q = new Float32Array(D);
    const k = new Float32Array(D);
    let scores = new Float64Array(T);
    for (let b = 0; b < rows.slots.length; b++) {
      const slot = rows.slots[b]!;
      const pos = rows.positions[b]!;
      if (pos >= T) throw new LabError('internal', `slot ${slot} is full (${T} positions)`);
      if (scores.length < pos + 1) scores = new Float64Array(pos + 1);
      for (let h = 0; h < H; h++) {
        const at = b * 3 * C + h * D;
        const lastAt = (slot * H + h) * D;
        for (let d = 0; d < D; d++) {
          q[d] = qkv[at + d]!;
          const raw = qkv[at + C + d]!;
          if (smear) {
            const s = smear[h]!;
            k[d] = s * raw + (1 - s) * last[lastAt + d]!;
            last[lastAt + d] = raw;
          } else k[d] = raw;
        }
        if (this.rot) {
          rotateInPlace(q, this.rot, pos, D);
          rotateInPlace(k, this.rot, pos, D);
        }
        const base = (slot * H + h) * T * D;
        K.set(k, base + pos * D);
        V.set(qkv.subarray(at + 2 * C, at + 2 * C + D), base + pos * D);
        // Scores over keys 0 .. pos, their softmax, and the weighted sum of the values.
        const slope = this.slopes[h] ?? 0;
        let max = -Infinity;
        for (let j = 0; j <= pos; j++) {
          const kj = base + j * D;
          let dot = 0;
          for (let d = 0; d < D; d++) dot += q[d]! * K[kj + d]!;
          const sc = dot * scale - slope * (pos - j);
          scores[j] = sc;
          if (sc > max) max = sc;
        }
        let sum = 0;
        for (let j = 0; j <= pos; j++) sum += scores[j] = Math.exp(scores[j]! - max);
        const out = b * C + h * D;
        y.fill(0, out, out + D);
        for (let j = 0; j <= pos; j++) {
          const p = scores[j]! / sum;
          const vj = base + j * D;
          for (let d = 0; d < D; d++) y[out + d] = y[out + d]! + p * V[vj + d]!;
        }
      }
    }
  }
}

function rotaryTable(T: number, D: number): { cos: Float32Array; sin: Float32Array } {
  const cos = new Float32Array(T * D);
  const sin = new Float32Array(T * D);
  for (let t = 0; t < T; t++) {
    for (let d = 0; d < D; d++) {
      const a = rotaryAngle(t, d, D);
      cos[t * D + d] = Math.cos(a);
      sin[t * D + d] = Math.sin(a);
    }
  }
  return { cos, sin };
}

/** positions.ts rotate for one head's vector at position t: x * cos + [-x2, x1] * sin. */
function rotateInPlace(x: Float32Array, rot: { cos: Float32Array; sin: Float32Array }, t: number, D: number): void {
  const half = D / 2;
  const at = t * D;
  for (let d = 0; d < half; d++) {
    const x1 = x[d]!;
    const x2 = x[d + half]!;
    x[d] = x1 * rot.cos[at + d]! - x2 * rot.sin[at + d]!;
    x[d + half] = x2 * rot.cos[at + d + half]! + x1 * rot.sin[at + d + half]!;
  }
}

/**
 * gpt.ts attention's heads for a decoding step over slots: qkv [B, 1, 3C] read out, the step done in the
 * cache, the output [B, 1, C] back as a tensor.
 */
export function slotAttention(qkv: tf.Tensor, layer: number, smear: tf.Tensor | undefined, rows: SlotRows): tf.Tensor {
  const [B, T, C3] = qkv.shape as [number, number, number];
  if (T !== 1) throw new LabError('internal', `a decoding step over slots feeds one token per row, got ${T}`);
  const y = new Float32Array(B * (C3 / 3));
  const s = smear ? Float32Array.from(smear.dataSync(), (a) => 1 / (1 + Math.exp(-a))) : null;
  rows.cache.step(layer, rows, qkv.dataSync() as Float32Array, s, y);
  return tf.tensor3d(y, [B, 1, C3 / 3]);
}
