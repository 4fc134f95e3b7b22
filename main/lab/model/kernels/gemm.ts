// The wasm backend's matrix products in gemm.wat (4 x 8 register blocks over a packed B) instead of tfjs's
// XNNPACK build, with relaxed SIMD's fused multiply-add where the runtime has it. Detected once, at install:
// Node 20 has relaxed SIMD behind --experimental-wasm-relaxed-simd (set here before the module is compiled;
// V8's flags are the process's, so worker threads get it too); Electron's Chromium has it on. Where neither
// variant validates, XNNPACK runs as before. The choice is in the wasm backend's line of `sailor doctor`.
// Figures: docs/performance.md, "Faster products".
import { setFlagsFromString } from 'node:v8';
import type * as tf from '@tensorflow/tfjs';
import { GEMM_FMA_MODULE_BASE64, GEMM_MODULE_BASE64 } from './simd-bytes';

type TensorInfo = tf.TensorInfo;

/** Which kernel runs the wasm backend's matrix products. */
export type GemmKind = 'relaxed-simd-fma' | 'simd' | 'xnnpack';

export interface GemmExports {
  packB(src: number, dst: number, K: number, N: number): void;
  gemm(a: number, bp: number, c: number, M: number, K: number, N: number): void;
}

/** The part of the WebAssembly API used here (the project's TypeScript libs leave it out). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: object };
  validate(bytes: Uint8Array): boolean;
}

/** Asks V8 for relaxed SIMD (a no-op where it is on already, or unknown). */
function enableRelaxedSimd(): void {
  try {
    setFlagsFromString('--experimental-wasm-relaxed-simd');
  } catch {
    // not V8's Node: the plain variant or XNNPACK
  }
}

/**
 * gemm.wat on `memory` (the wasm backend's): the relaxed-SIMD variant where it validates, else plain SIMD,
 * else none. `allowFma: false` keeps the plain variant (tests compare the two).
 */
export function loadGemm(memory: object, allowFma = true): { kind: GemmKind; exports?: GemmExports } {
  const wa = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  if (allowFma) enableRelaxedSimd();
  const variants: [GemmKind, string][] = [...(allowFma ? [['relaxed-simd-fma', GEMM_FMA_MODULE_BASE64] as [GemmKind, string]] : []), ['simd', GEMM_MODULE_BASE64]];
  for (const [kind, b64] of variants) {
    const bytes = Buffer.from(b64, 'base64');
    if (wa.validate(bytes)) return { kind, exports: new wa.Instance(new wa.Module(bytes), { env: { memory } }).exports as GemmExports };
  }
  return { kind: 'xnnpack' };
}

/** What the BatchMatMul override needs of the wasm backend. */
export interface GemmBackend {
  makeOutput: (shape: number[], dtype: tf.DataType) => TensorInfo;
  disposeData: (dataId: object, force?: boolean) => boolean;
  dataIdMap: { get: (dataId: object) => { memoryOffset: number } | undefined };
}

/**
 * a @ b (rank 3, same leading dimension, no transposes, float32) through gemm.wat, one packed B per batch
 * entry; null when the shape is not one it takes (N not a multiple of 8), so XNNPACK runs.
 */
export function gemmMatMul(g: GemmExports, a: TensorInfo, b: TensorInfo, backend: GemmBackend): TensorInfo | null {
  const outer = a.shape.slice(0, -2);
  const G = outer.reduce((x, y) => x * y, 1);
  const [M, K] = a.shape.slice(-2) as [number, number];
  const N = b.shape[b.shape.length - 1]!;
  if (N % 8 !== 0 || K < 1 || M < 1) return null;
  const out = backend.makeOutput([...outer, M, N], 'float32');
  const packed = backend.makeOutput([K * N], 'float32');
  // Offsets after both allocations (an allocation may move nothing, but take them last all the same).
  const at = (t: TensorInfo): number => backend.dataIdMap.get(t.dataId)!.memoryOffset;
  const [pa, pb, pc, pp] = [at(a), at(b), at(out), at(packed)];
  for (let i = 0; i < G; i++) {
    g.packB(pb + 4 * i * K * N, pp, K, N);
    g.gemm(pa + 4 * i * M * K, pp, pc + 4 * i * M * N, M, K, N);
  }
  backend.disposeData(packed.dataId, true);
  return out;
}
