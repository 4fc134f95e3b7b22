// The batch decoder's keys and values (batch-decoder.ts), in host memory with room for a whole context per
// row: a row owns a slot of blockSize positions per layer, its prompt's keys are copied in once, and each
// decoding step writes one position per row in place and reads the row's own keys only. No per-step concat
// of the whole cache, no padding, no mask: rows of any lengths share a step.
//
// A decoding step's attention runs here too, one query per row against its slot, in plain loops: a query of
// one position over at most blockSize keys is little arithmetic, and as tf ops it was mostly per-operation
// cost (a batched matmul per row and head, the concat, the mask, the softmax). The layer's projections, MLP
// and head stay tf ops over the whole batch. The same arithmetic as attention-heads.ts opHeads: smeared keys
// (the raw key of the last position kept per slot), distance penalties. (A generated token is causal under
// bidirectionalObservations too: only a prefill, a forward pass, sees a tool response whole.)
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../base/errors';
import type { GPTConfig } from './gpt';
import { distanceSlopes } from './positions';
import { SIMD_MODULE_BASE64 } from './kernels/simd-bytes';

/** The rows of one decoding step: each row's slot and the position of its new token (= positions cached). */
export interface SlotRows {
  cache: SlotCache;
  slots: Int32Array;
  positions: Int32Array;
}

/** The part of the WebAssembly API used here (the project's TypeScript libs leave it out). */
interface WasmApi {
  Memory: new (d: { initial: number }) => { buffer: ArrayBuffer; grow(pages: number): number };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: object };
  validate(bytes: Uint8Array): boolean;
}

/** simd.wat's attention for one query (attnQuery: byte addresses; D a multiple of 16). */
type AttnQuery = (q: number, k: number, v: number, n: number, row: number, y: number, D: number, ld: number, scale: number, slope: number) => void;

const PAGE = 65536;

export class SlotCache {
  private readonly H: number;
  private readonly D: number;
  private readonly T: number;
  /**
   * Every slot's keys (smeared, as attention reads them) and values, [layer][k, v][H, T, D] a
   * slot, after a header of scratch (the query, the output, the scores): in a WebAssembly memory of its own
   * where simd.wat's attnQuery runs on it, else in an ordinary array (the same layout, plain loops).
   */
  private heap: Float32Array;
  private readonly memory: InstanceType<WasmApi['Memory']> | null = null;
  private readonly attnQuery: AttnQuery | null = null;
  private readonly header: number;
  private readonly block: number;
  /** Per layer: the raw key of each slot's last position, [slot, H, D] (smearKeys mixes it into the next). */
  private last: Float32Array[] = [];
  private readonly free: number[] = [];
  private capacity = 0;
  private readonly slopes: number[];

  /** `simd: false` runs the plain loops where SIMD would run (tests compare the two). */
  constructor(private readonly cfg: GPTConfig, opts: { simd?: boolean } = {}) {
    this.H = cfg.nHead;
    this.D = cfg.nEmbd / cfg.nHead;
    this.T = cfg.blockSize;
    this.slopes = cfg.distanceBias ? distanceSlopes(this.H) : [];
    this.header = Math.ceil((2 * this.D + this.T + 4) / 16) * 16; // q, y, scores; 64-byte aligned
    this.block = cfg.nLayer * 2 * this.H * this.T * this.D;
    const wa = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
    const bytes = Buffer.from(SIMD_MODULE_BASE64, 'base64');
    if (opts.simd !== false && this.D % 16 === 0 && wa.validate(bytes)) {
      this.memory = new wa.Memory({ initial: Math.ceil((4 * this.header) / PAGE) });
      this.attnQuery = (new wa.Instance(new wa.Module(bytes), { env: { memory: this.memory } }).exports as { attnQuery: AttnQuery }).attnQuery;
      this.heap = new Float32Array(this.memory.buffer);
    } else this.heap = new Float32Array(this.header);
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
    const floats = this.header + capacity * this.block;
    if (this.memory) {
      const need = Math.ceil((4 * floats) / PAGE) - this.memory.buffer.byteLength / PAGE;
      if (need > 0) this.memory.grow(need);
      this.heap = new Float32Array(this.memory.buffer); // growing detached the old view
    } else {
      const heap = new Float32Array(floats);
      heap.set(this.heap);
      this.heap = heap;
    }
    for (let l = 0; l < this.cfg.nLayer; l++) {
      const last = new Float32Array(capacity * this.H * this.D);
      if (this.last[l]) last.set(this.last[l]!);
      this.last[l] = last;
    }
    for (let s = capacity - 1; s >= this.capacity; s--) this.free.push(s);
    this.capacity = capacity;
  }

  /** Where head h's keys (or values) of `layer` start for `slot`, in floats. */
  private at(slot: number, layer: number, values: boolean, h: number): number {
    return this.header + slot * this.block + ((layer * 2 + (values ? 1 : 0)) * this.H + h) * this.T * this.D;
  }

  /**
   * Copies row r of a prefill's cache for layer `layer` into `slot`: its first `len` positions of kT
   * [n, H, D, Tp] and v [n, H, Tp, D], and its raw last key from `last` [n, H, 1, D] (smeared keys).
   */
  fill(layer: number, slot: number, r: number, len: number, Tp: number, kT: Float32Array, v: Float32Array, last: Float32Array | null): void {
    const { H, D, heap } = this;
    for (let h = 0; h < H; h++) {
      const src = (r * H + h) * D * Tp;
      const k = this.at(slot, layer, false, h);
      for (let j = 0; j < len; j++) for (let d = 0; d < D; d++) heap[k + j * D + d] = kT[src + d * Tp + j]!;
      heap.set(v.subarray(src, src + len * D), this.at(slot, layer, true, h));
    }
    if (last) this.last[layer]!.set(last.subarray(r * H * D, (r + 1) * H * D), slot * H * D);
  }

  /**
   * One decoding step of layer `layer` for B rows: qkv [B, 3C] (each row's query, raw key and value, heads
   * [H, D] within each), smear [H] the heads' sigmoid(a) (null without smeared keys). Writes each row's key
   * and value at its position and the attention output into y [B, C].
   */
  step(layer: number, rows: SlotRows, qkv: Float32Array, smear: Float32Array | null, y: Float32Array): void {
    const { H, D, T, heap } = this;
    const C = H * D;
    const last = this.last[layer]!;
    const scale = 1 / Math.sqrt(D);
    const q = heap.subarray(0, D);
    const k = new Float32Array(D);
    for (let b = 0; b < rows.slots.length; b++) {
      const slot = rows.slots[b]!;
      const pos = rows.positions[b]!;
      if (pos >= T) throw new LabError('internal', `slot ${slot} is full (${T} positions)`);
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
        const K = this.at(slot, layer, false, h);
        const V = this.at(slot, layer, true, h);
        heap.set(k, K + pos * D);
        heap.set(qkv.subarray(at + 2 * C, at + 2 * C + D), V + pos * D);
        const slope = this.slopes[h] ?? 0;
        if (this.attnQuery) this.attnQuery(0, 4 * K, 4 * V, pos + 1, 4 * 2 * D, 4 * D, D, D, scale, slope);
        else attendLoops(heap, K, V, pos, D, scale, slope);
        y.set(heap.subarray(D, 2 * D), b * C + h * D);
      }
    }
  }
}

/**
 * attnQuery's twin in plain loops: the query heap[0, D) at position pos over keys heap[K + j D] and values
 * heap[V + j D], j = 0 .. pos; the scores at heap[2 D ..), the output at heap[D, 2 D).
 */
function attendLoops(heap: Float32Array, K: number, V: number, pos: number, D: number, scale: number, slope: number): void {
  const row = 2 * D;
  let max = -Infinity;
  for (let j = 0; j <= pos; j++) {
    let dot = 0;
    for (let d = 0; d < D; d++) dot += heap[d]! * heap[K + j * D + d]!;
    heap[row + j] = dot * scale - slope * (pos - j);
    if (heap[row + j]! > max) max = heap[row + j]!;
  }
  let sum = 0;
  for (let j = 0; j <= pos; j++) sum += heap[row + j] = Math.exp(heap[row + j]! - max);
  heap.fill(0, D, 2 * D);
  for (let j = 0; j <= pos; j++) {
    const p = heap[row + j]! / sum;
    for (let d = 0; d < D; d++) heap[D + d] = heap[D + d]! + p * heap[V + j * D + d]!;
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
