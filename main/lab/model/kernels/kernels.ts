// Kernels the WebAssembly and plain-JS backends lack or run slowly, registered through tfjs's own kernel
// registry so the model keeps calling ordinary tf ops (tf.matMul, tf.gather and its gradient). tfjs-node
// and tfjs-node-gpu are never touched: their native kernels are the fast path.
//
// What each stock kernel cost is in docs/performance.md, 'Stock kernels replaced' (bench/speed/train.ts re-measures the
// whole step). Why each is replaced, on tfjs 4.22:
// - BatchMatMul with a batch dimension runs a scalar blocked loop in the wasm backend; only a batch of one
//   goes to XNNPACK, so attention's batched products crawled. The override below runs each batch entry
//   through the XNNPACK path on views of the tensors' memory (no copies).
// - tf.gather's gradient needs UnsortedSegmentSum, which wasm lacks and cpu runs so slowly that it was nearly
//   the whole step. A scatter-add over the heap takes a few milliseconds.
// - wasm's Identity copies its input, and tfjs clones every tensor a gradient saves. Tensors are immutable
//   (a variable's assign swaps its data, it never writes into it), so the override shares the data and
//   counts one more reference, as the backend's own Reshape does.
// - wasm's Sum over leading axes (a bias gradient) transposes its input first, and its Transpose of a large
//   matrix (the logits gradient) is slow per value. Column sums and a blocked transpose in JavaScript take a
//   fraction of that.
// - wasm's Slice (and SplitV, made of it) copies its whole input out of the heap before taking the part it
//   returns, as when splitting q, k and v. Reading the heap in place, it copies only the part.
// - wasm's GatherV2 walks every value with generic strides (the embedding, and the loss's positions).
//   Gathering whole rows is one copy per row.
// - The loss's softmax cross-entropy over [tokens, vocab] logits (4M values a step) as logSoftmax, its
//   gradient and a one-hot product walked the logits many times. Two kernels (xent.ts) do it in one pass each
//   way.
//
// The wasm override reads the backend's tensor table and calls its exported BatchMatMul function. Those are
// internals of @tensorflow/tfjs-backend-wasm, which package.json pins to one exact version; if they are not
// there the override steps aside and the stock kernel runs (fastKernelsReport says which is in effect).
import * as tf from '@tensorflow/tfjs';
import { SIMD_MODULE_BASE64 } from './simd-bytes';
import { geluKernels, type SimdGelu } from './gelu';
import { xentKernels, type SimdRows } from './xent';
import type { KernelIo } from './fused-kernel';
import { attentionKernels, type SimdAttention } from './attention';
import { layerNormKernels, type SimdLayerNorm } from './layernorm';
import { smearKernels } from './smear';
import { gemmMatMul, loadGemm, type GemmExports, type GemmKind } from './gemm';

type TensorInfo = tf.TensorInfo;
type TypedArray = Float32Array | Int32Array | Uint8Array;

/** The parts of tfjs-backend-wasm's BackendWasm used here. */
interface WasmBackend {
  wasm: {
    asm?: { memory?: object };
    cwrap: (name: string, ret: null, args: string[]) => (...args: unknown[]) => void;
    tfjs: { registerTensor: (id: number, size: number, offset: number) => void; disposeData: (id: number) => void };
  };
  dataIdMap: { get: (dataId: object) => { id: number; memoryOffset: number } | undefined };
  dataIdNextNumber: number;
  makeOutput: (shape: number[], dtype: tf.DataType) => TensorInfo;
  disposeData: (dataId: object, force?: boolean) => boolean;
  typedArrayFromHeap: (t: TensorInfo) => TypedArray;
}

/** The parts of tfjs's MathBackendCPU used here. */
interface CpuBackend {
  data: { get: (dataId: object) => { values: TypedArray } };
  makeTensorInfo: (shape: number[], dtype: tf.DataType, values: TypedArray) => TensorInfo;
}

const sizeOf = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);

/**
 * out[segmentIds[i]] += x[i] for rows of x (everything after the first axis is one row); rows whose id is
 * outside [0, numSegments) are dropped, as tf.unsortedSegmentSum does. Pure; `out` must be zeroed.
 */
export function scatterAddRows(x: ArrayLike<number>, segmentIds: ArrayLike<number>, numSegments: number, out: TypedArray): void {
  const rows = segmentIds.length;
  const inner = rows === 0 ? 0 : x.length / rows;
  for (let i = 0; i < rows; i++) {
    const s = segmentIds[i]!;
    if (s < 0 || s >= numSegments) continue;
    const src = i * inner;
    const dst = s * inner;
    for (let j = 0; j < inner; j++) out[dst + j]! += x[src + j]!;
  }
}

/** out[j] = sum over rows i of x[i * inner + j] (a sum over the leading axes). Pure; `out` must be zeroed. */
export function columnSums(x: ArrayLike<number>, rows: number, inner: number, out: Float32Array): void {
  for (let i = 0; i < rows; i++) {
    const o = i * inner;
    for (let j = 0; j < inner; j++) out[j]! += x[o + j]!;
  }
}

/** out = x^T for x [R, C] row-major, in 32 x 32 blocks (both sides stay in cache). Pure. */
export function transpose2d(x: ArrayLike<number>, R: number, C: number, out: Float32Array | Int32Array): void {
  const BS = 32;
  for (let i0 = 0; i0 < R; i0 += BS) {
    const i1 = Math.min(R, i0 + BS);
    for (let j0 = 0; j0 < C; j0 += BS) {
      const j1 = Math.min(C, j0 + BS);
      for (let i = i0; i < i1; i++) {
        const row = i * C;
        for (let j = j0; j < j1; j++) out[j * R + i] = x[row + j]!;
      }
    }
  }
}

/** Below this many values the stock wasm transpose is as fast. */
const JS_TRANSPOSE_MIN = 65_536;

function sumWasm(args: { inputs: { x: TensorInfo }; attrs: { axis: number | number[]; keepDims: boolean }; backend: WasmBackend }): TensorInfo | null {
  const { x } = args.inputs;
  if (x.dtype !== 'float32') return null;
  const axes = tf.util.parseAxisParam(args.attrs.axis, x.shape).sort((a, b) => a - b);
  const k = axes.length;
  if (k === 0 || k === x.shape.length || axes.some((a, i) => a !== i)) return null; // only sums over leading axes
  const rows = sizeOf(x.shape.slice(0, k));
  const rest = x.shape.slice(k);
  const out = args.backend.makeOutput(args.attrs.keepDims ? [...axes.map(() => 1), ...rest] : rest, 'float32');
  const o = args.backend.typedArrayFromHeap(out) as Float32Array;
  o.fill(0);
  const inner = sizeOf(rest);
  if (simd && inner % 4 === 0) simd.columnSums(args.backend.dataIdMap.get(x.dataId)!.memoryOffset, rows, inner, args.backend.dataIdMap.get(out.dataId)!.memoryOffset);
  else columnSums(args.backend.typedArrayFromHeap(x), rows, inner, o);
  return out;
}

/**
 * Swapping the last two axes (a matrix, or a batch of them): simd.wat's 4 x 4 block transpose when both are
 * multiples of 4, else the blocked JavaScript one for large matrices; null for other permutations.
 */
function transposeWasm(args: { inputs: { x: TensorInfo }; attrs: { perm: number[] }; backend: WasmBackend }): TensorInfo | null {
  const { x } = args.inputs;
  const { perm } = args.attrs;
  const rank = x.shape.length;
  const swapsLastTwo = rank >= 2 && perm[rank - 2] === rank - 1 && perm[rank - 1] === rank - 2 && perm.slice(0, -2).every((a, i) => a === i);
  if (!swapsLastTwo || x.dtype === 'string' || x.dtype === 'bool') return null;
  const [R, C] = x.shape.slice(-2) as [number, number];
  const G = sizeOf(x.shape.slice(0, -2));
  const viaSimd = simd !== undefined && R % 4 === 0 && C % 4 === 0;
  if (!viaSimd && (G > 1 || R * C < JS_TRANSPOSE_MIN)) return null;
  const out = args.backend.makeOutput([...x.shape.slice(0, -2), C, R], x.dtype);
  if (viaSimd) {
    const src = args.backend.dataIdMap.get(x.dataId)!.memoryOffset;
    const dst = args.backend.dataIdMap.get(out.dataId)!.memoryOffset;
    for (let g = 0; g < G; g++) simd!.transpose(src + 4 * g * R * C, dst + 4 * g * R * C, R, C);
  } else {
    transpose2d(args.backend.typedArrayFromHeap(x), R, C, args.backend.typedArrayFromHeap(out) as Float32Array | Int32Array);
  }
  return out;
}

/**
 * out = x[begin .. begin + size) per axis, for x of `shape` (row-major): one copy per contiguous run of the
 * innermost axes the slice takes whole. Pure.
 */
export function sliceInto(x: TypedArray, shape: readonly number[], begin: readonly number[], size: readonly number[], out: TypedArray): void {
  let k = shape.length - 1;
  let inner = 1;
  while (k >= 0 && begin[k] === 0 && size[k] === shape[k]) inner *= shape[k--]!;
  if (k < 0) {
    out.set(x.subarray(0, inner));
    return;
  }
  const run = size[k]! * inner;
  const strides = shape.map((_, a) => sizeOf(shape.slice(a + 1)));
  const idx = new Array<number>(k).fill(0); // odometer over the axes before k
  const total = sizeOf(size.slice(0, k));
  for (let n = 0, o = 0; n < total; n++, o += run) {
    let offset = begin[k]! * strides[k]!;
    for (let a = 0; a < k; a++) offset += (begin[a]! + idx[a]!) * strides[a]!;
    out.set(x.subarray(offset, offset + run), o);
    for (let a = k - 1; a >= 0 && ++idx[a]! === size[a]; a--) idx[a] = 0;
  }
}

function sliceWasm(args: { inputs: { x: TensorInfo }; attrs: { begin: number | number[]; size: number | number[] }; backend: WasmBackend }): TensorInfo | null {
  const { x } = args.inputs;
  if (x.dtype === 'string') return null;
  const [begin, size] = tf.slice_util.parseSliceParams(x as unknown as tf.Tensor, args.attrs.begin, args.attrs.size) as [number[], number[]];
  const out = args.backend.makeOutput(size, x.dtype);
  sliceInto(args.backend.typedArrayFromHeap(x), x.shape, begin, size, args.backend.typedArrayFromHeap(out));
  return out;
}

function splitWasm(args: { inputs: { x: TensorInfo }; attrs: { numOrSizeSplits: number | number[]; axis: number }; backend: WasmBackend }): TensorInfo[] | null {
  const { x } = args.inputs;
  if (x.dtype === 'string') return null;
  const axis = tf.util.parseAxisParam(args.attrs.axis, x.shape)[0]!;
  const sizes = tf.backend_util.prepareSplitSize(x as unknown as tf.Tensor, args.attrs.numOrSizeSplits, axis);
  const begin = x.shape.map(() => 0);
  const outs = sizes.map((s) => args.backend.makeOutput(x.shape.map((d, a) => (a === axis ? s : d)), x.dtype));
  const src = args.backend.typedArrayFromHeap(x); // after every allocation
  outs.forEach((out, i) => {
    sliceInto(src, x.shape, begin, out.shape, args.backend.typedArrayFromHeap(out));
    begin[axis]! += sizes[i]!;
  });
  return outs;
}

function gatherRowsWasm(args: { inputs: { x: TensorInfo; indices: TensorInfo }; attrs: { axis: number; batchDims: number }; backend: WasmBackend }): TensorInfo | null {
  const { x, indices } = args.inputs;
  if (x.dtype === 'string' || args.attrs.batchDims !== 0 || tf.util.parseAxisParam(args.attrs.axis, x.shape)[0] !== 0) return null;
  const rows = x.shape[0]!;
  const inner = sizeOf(x.shape.slice(1));
  const out = args.backend.makeOutput([...indices.shape, ...x.shape.slice(1)], x.dtype);
  const idx = args.backend.typedArrayFromHeap(indices);
  const src = args.backend.typedArrayFromHeap(x);
  const dst = args.backend.typedArrayFromHeap(out);
  for (let i = 0; i < idx.length; i++) {
    const r = idx[i]!;
    if (!(r >= 0 && r < rows)) throw new Error(`GatherV2: the index value ${r} is not in [0, ${rows - 1}]`);
    // A short row copies faster value by value than through a subarray view made for it.
    if (inner <= 128) for (let j = 0, s = r * inner, d = i * inner; j < inner; j++) dst[d + j] = src[s + j]!;
    else dst.set(src.subarray(r * inner, (r + 1) * inner), i * inner);
  }
  return out;
}

interface SegmentSumArgs {
  inputs: { x: TensorInfo; segmentIds: TensorInfo };
  attrs: { numSegments: number };
}

function segmentSumWasm({ inputs: { x, segmentIds }, attrs: { numSegments }, backend }: SegmentSumArgs & { backend: WasmBackend }): TensorInfo {
  const out = backend.makeOutput([numSegments, ...x.shape.slice(1)], x.dtype);
  // Views after makeOutput: an allocation may grow the heap and detach views taken before it.
  const o = backend.typedArrayFromHeap(out);
  o.fill(0);
  scatterAddRows(backend.typedArrayFromHeap(x), backend.typedArrayFromHeap(segmentIds), numSegments, o);
  return out;
}

function segmentSumCpu({ inputs: { x, segmentIds }, attrs: { numSegments }, backend }: SegmentSumArgs & { backend: CpuBackend }): TensorInfo {
  const shape = [numSegments, ...x.shape.slice(1)];
  const o = x.dtype === 'int32' ? new Int32Array(sizeOf(shape)) : new Float32Array(sizeOf(shape));
  scatterAddRows(backend.data.get(x.dataId).values, backend.data.get(segmentIds.dataId).values, numSegments, o);
  return backend.makeTensorInfo(shape, x.dtype, o);
}

function identityWasm({ inputs: { x }, backend }: { inputs: { x: TensorInfo }; backend: { incRef: (dataId: object) => void } }): TensorInfo {
  backend.incRef(x.dataId);
  return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
}

interface MatMulArgs {
  inputs: { a: TensorInfo; b: TensorInfo };
  attrs: { transposeA: boolean; transposeB: boolean };
  backend: WasmBackend;
}

let wasmMatMul: ((...args: unknown[]) => void) | null = null;
const MIN_ROWS_PER_ENTRY = 16;
const shapeBytes = (shape: number[]): Uint8Array => new Uint8Array(new Int32Array(shape).buffer);

/**
 * A batched a @ b without transposes as one XNNPACK matmul per batch entry, each on views of a, b and the
 * output registered in the backend's C++ tensor table at offsets into their memory, then unregistered (the
 * memory stays with the tensors). null when this shape is not one it takes (the stock kernel runs then).
 */
function batchedWasmMatMul({ inputs: { a, b }, attrs, backend }: MatMulArgs): TensorInfo | null {
  if (attrs.transposeA || attrs.transposeB || a.dtype !== 'float32' || b.dtype !== 'float32') return null;
  if (a.shape.length < 3 || a.shape.length !== b.shape.length) return null;
  const outer = a.shape.slice(0, -2);
  if (outer.some((d, i) => d !== b.shape[i])) return null; // broadcasting: the stock kernel
  const G = sizeOf(outer);
  if (G <= 1) return null; // a batch of one already takes the XNNPACK path
  const [M, K] = a.shape.slice(-2) as [number, number];
  // A few rows per entry (decoding: one query) is less work than setting up an XNNPACK operator per entry.
  if (M < MIN_ROWS_PER_ENTRY) return null;
  const N = b.shape[b.shape.length - 1]!;
  if (b.shape[b.shape.length - 2] !== K) return null; // the stock kernel reports the mismatch
  const aInfo = backend.dataIdMap.get(a.dataId);
  const bInfo = backend.dataIdMap.get(b.dataId);
  if (!aInfo || !bInfo) return null;
  wasmMatMul ??= backend.wasm.cwrap('BatchMatMul', null, ['number', 'array', 'number', 'number', 'array', 'number', 'number', 'number', 'number']);
  const out = backend.makeOutput([...outer, M, N], 'float32');
  const outOffset = backend.dataIdMap.get(out.dataId)!.memoryOffset;
  const aShape = shapeBytes([1, M, K]);
  const bShape = shapeBytes([1, K, N]);
  const { registerTensor, disposeData } = backend.wasm.tfjs;
  for (let g = 0; g < G; g++) {
    const ids = [backend.dataIdNextNumber++, backend.dataIdNextNumber++, backend.dataIdNextNumber++] as const;
    registerTensor(ids[0], M * K, aInfo.memoryOffset + 4 * g * M * K);
    registerTensor(ids[1], K * N, bInfo.memoryOffset + 4 * g * K * N);
    registerTensor(ids[2], M * N, outOffset + 4 * g * M * N);
    wasmMatMul(ids[0], aShape, 3, ids[1], bShape, 3, false, false, ids[2]);
    for (const id of ids) disposeData(id); // also frees the XNNPACK operator cached on b's id
  }
  return out;
}

/** a @ b through gemm.wat (gemm.ts) where it takes the shape: same leading dimensions, no transposes, float32. */
function gemmWasm({ inputs: { a, b }, attrs, backend }: MatMulArgs): TensorInfo | null {
  if (!gemm || attrs.transposeA || attrs.transposeB || a.dtype !== 'float32' || b.dtype !== 'float32') return null;
  if (a.shape.length < 2 || a.shape.length !== b.shape.length) return null;
  if (a.shape.slice(0, -2).some((d, i) => d !== b.shape[i])) return null; // broadcasting: another kernel
  if (a.shape[a.shape.length - 1] !== b.shape[b.shape.length - 2]) return null; // the stock kernel reports it
  if (!backend.dataIdMap.get(a.dataId) || !backend.dataIdMap.get(b.dataId)) return null;
  return gemmMatMul(gemm, a, b, backend);
}

/** Whether the internals the wasm override needs are there (checked on the live backend). */
function wasmInternalsPresent(backend: unknown): backend is WasmBackend {
  const b = backend as Partial<WasmBackend> | null;
  return !!b && typeof b.dataIdNextNumber === 'number' && typeof b.wasm?.cwrap === 'function' && typeof b.wasm?.tfjs?.registerTensor === 'function' && typeof b.dataIdMap?.get === 'function';
}

const wasmIo: KernelIo = {
  alloc: (backend, shape) => (backend as WasmBackend).makeOutput(shape, 'float32'),
  view: (backend, t) => (backend as WasmBackend).typedArrayFromHeap(t) as Float32Array | Int32Array,
  offset: (backend, t) => (backend as WasmBackend).dataIdMap.get(t.dataId)!.memoryOffset,
  free: (backend, t) => void (backend as WasmBackend).disposeData(t.dataId, true),
};

/** The part of the WebAssembly API used here (the project's TypeScript libs leave it out). */
interface WasmApi {
  Memory: new (d: { initial: number }) => object;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: object };
  validate(bytes: Uint8Array): boolean;
}

/** simd.wat instantiated on the wasm backend's own memory, or undefined where that memory is not reachable. */
type SimdExports = SimdRows
  & SimdGelu
  & SimdAttention
  & SimdLayerNorm & {
    columnSums(x: number, rows: number, inner: number, out: number): void;
    transpose(src: number, dst: number, R: number, C: number): void;
  };

function simdRows(): SimdExports | undefined {
  const wa = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const memory = (tf.findBackend('wasm') as Partial<WasmBackend> | null)?.wasm?.asm?.memory;
  const bytes = Buffer.from(SIMD_MODULE_BASE64, 'base64');
  if (!(memory instanceof wa.Memory) || !wa.validate(bytes)) return undefined; // no SIMD here: the JS rows run
  return new wa.Instance(new wa.Module(bytes), { env: { memory } }).exports as SimdExports;
}

const cpuIo: KernelIo = {
  alloc: (backend, shape) => (backend as CpuBackend).makeTensorInfo(shape, 'float32', new Float32Array(sizeOf(shape))),
  view: (backend, t) => (backend as CpuBackend).data.get(t.dataId).values as Float32Array | Int32Array,
};

const installed = new Set<string>();
let simd: SimdExports | undefined;
let gemm: GemmExports | undefined;
let gemmKind: GemmKind = 'xnnpack';
/** The kernels replaced, by backend, with what was registered before (undefined: nothing was). */
const replaced = new Map<string, Map<string, tf.KernelConfig | undefined>>();

function replaceKernel(kernelName: string, backendName: string, kernelFunc: tf.KernelFunc): tf.KernelConfig | undefined {
  const original = tf.getKernel(kernelName, backendName);
  if (original) tf.unregisterKernel(kernelName, backendName);
  tf.registerKernel({ kernelName, backendName, kernelFunc, setupFunc: original?.setupFunc, disposeFunc: original?.disposeFunc });
  const mine = replaced.get(backendName) ?? new Map<string, tf.KernelConfig | undefined>();
  if (!mine.has(kernelName)) mine.set(kernelName, original);
  replaced.set(backendName, mine);
  return original;
}

/**
 * Registers the kernels above for the wasm and cpu backends (once per backend; call after the backend's
 * package is imported). Returns the backends that have them.
 */
export function installFastKernels(): string[] {
  if (!installed.has('cpu') && tf.findBackendFactory('cpu')) {
    replaceKernel('UnsortedSegmentSum', 'cpu', segmentSumCpu as unknown as tf.KernelFunc);
    for (const [name, kernelFunc] of [...xentKernels(cpuIo), ...geluKernels(cpuIo), ...attentionKernels(cpuIo), ...layerNormKernels(cpuIo), ...smearKernels(cpuIo)]) replaceKernel(name, 'cpu', kernelFunc);
    installed.add('cpu');
  }
  if (!installed.has('wasm') && tf.findBackendFactory('wasm') && tf.getKernel('BatchMatMul', 'wasm')) {
    replaceKernel('UnsortedSegmentSum', 'wasm', segmentSumWasm as unknown as tf.KernelFunc);
    simd = simdRows();
    const memory = (tf.findBackend('wasm') as Partial<WasmBackend> | null)?.wasm?.asm?.memory;
    ({ kind: gemmKind, exports: gemm } = memory && gemmWanted !== 'xnnpack' ? loadGemm(memory, gemmWanted === 'relaxed-simd-fma') : { kind: 'xnnpack' as const, exports: undefined });
    for (const [name, kernelFunc] of [...xentKernels(wasmIo, simd), ...geluKernels(wasmIo, simd), ...attentionKernels(wasmIo, simd), ...layerNormKernels(wasmIo, simd), ...smearKernels(wasmIo)]) replaceKernel(name, 'wasm', kernelFunc);
    const identity = tf.getKernel('Identity', 'wasm');
    if (identity) replaceKernel('Identity', 'wasm', ((args: Parameters<typeof identityWasm>[0]) => (args.inputs.x.dtype === 'string' ? identity.kernelFunc(args as never) : identityWasm(args))) as unknown as tf.KernelFunc);
    const stock = tf.getKernel('BatchMatMul', 'wasm')!;
    replaceKernel('BatchMatMul', 'wasm', ((args: MatMulArgs) => (wasmInternalsPresent(args.backend) && (gemmWasm(args) ?? batchedWasmMatMul(args))) || stock.kernelFunc(args as never)) as unknown as tf.KernelFunc);
    overrideWhere('Sum', sumWasm);
    overrideWhere('GatherV2', gatherRowsWasm);
    overrideWhere('Slice', sliceWasm);
    overrideWhere('SplitV', splitWasm);
    overrideWhere('Transpose', transposeWasm);
    installed.add('wasm');
  }
  return [...installed];
}

/** Replaces a wasm kernel with `fast` where it takes the inputs (returns a tensor), the stock kernel elsewhere. */
function overrideWhere<A extends { backend: WasmBackend }>(kernelName: string, fast: (args: A) => TensorInfo | TensorInfo[] | null): void {
  const stock = tf.getKernel(kernelName, 'wasm');
  if (!stock) return;
  replaceKernel(kernelName, 'wasm', ((args: A) => (wasmInternalsPresent(args.backend) && fast(args)) || stock.kernelFunc(args as never)) as unknown as tf.KernelFunc);
}

/** Puts back tfjs's own kernels (the reference the tests compare the fast paths with). */
export function restoreStockKernels(): void {
  for (const [backendName, kernels] of replaced) {
    for (const [kernelName, original] of kernels) {
      tf.unregisterKernel(kernelName, backendName);
      if (original) tf.registerKernel(original);
    }
    installed.delete(backendName);
  }
  replaced.clear();
}

/** Whether the fast kernels (these, and the fused ones they register) are in effect on the active backend. */
export function fastKernelsActive(): boolean {
  return installed.has(tf.getBackend());
}

/**
 * Which kernel runs the wasm backend's matrix products (gemm.ts): relaxed SIMD's fused multiply-add, plain
 * SIMD, or tfjs's XNNPACK (where neither module validates, or before the wasm kernels are installed).
 */
export function matmulKernel(): GemmKind {
  return installed.has('wasm') ? gemmKind : 'xnnpack';
}

let gemmWanted: GemmKind = 'relaxed-simd-fma';
/**
 * Tests and benches: the most the next installFastKernels may use for the products (default: relaxed SIMD
 * where the runtime has it; 'simd': the plain variant; 'xnnpack': tfjs's own). Reinstall to apply
 * (restoreStockKernels, then installFastKernels).
 */
export function setMatmulKernel(kind: GemmKind): void {
  gemmWanted = kind;
}

/** Whether the loss's softmax runs in simd.wat's SIMD rows on wasm (else in JavaScript). */
export function simdKernelsActive(): boolean {
  return installed.has('wasm') && simd !== undefined;
}

/** Whether the active backend has a fast gather gradient (native, or registered here). */
export function hasFastGatherGrad(): boolean {
  return tf.getBackend() === 'tensorflow' || fastKernelsActive();
}
