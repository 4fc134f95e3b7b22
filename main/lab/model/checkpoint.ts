// Checkpoints: one directory per checkpoint, holding
//   manifest.json   format, step, model config, train config, lineage, RNG state, tensor index, checksums
//   weights.bin     every parameter, float32 little-endian, concatenated in paramSpecs order
//   optim.bin       AdamW m then v for every parameter, same layout (absent when no optimiser was saved)
//   tokenizer.json  the tokenizer (sailor.tokenizer/1), so a checkpoint decodes its own outputs
// Crash safety: all files are written (each with writeFileAtomic) into a hidden sibling temp directory,
// manifest last, then the directory is renamed into place. A kill leaves either no checkpoint or a complete
// one (plus possibly a stale `.NAME.tmp-*` directory, which is never read as a checkpoint).
// Loading checks the format, every tensor's name and shape against the config, file sizes and SHA-256.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { endianness } from 'node:os';
import { basename, dirname, join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../base/errors';
import { readJsonFile, writeFileAtomic, writeJsonAtomic } from '../store/files';
import { createModel, paramSpecs, resolveGPTConfig, type GPT, type GPTConfig } from './gpt';
import { AdamW } from './optim';
import { Tokenizer } from './tokenizer';
import { resolveTrainConfig, type TrainConfig } from './train';

export const CHECKPOINT_FORMAT = 'sailor.ckpt/1';
const MANIFEST = 'manifest.json';
const WEIGHTS = 'weights.bin';
const OPTIM = 'optim.bin';
const TOKENIZER = 'tokenizer.json';

export interface CheckpointLineage {
  /** The checkpoint this one continues from or was fine-tuned from (a path or run/step id), null for a fresh model. */
  parent: string | null;
  /** The dataset(s) trained on (file name, id or hash). */
  dataset: string | null;
  /** The run that wrote it. */
  run: string | null;
  /** Stage, e.g. "sft" or "rl:dupo". */
  stage: string | null;
}

export interface TensorEntry {
  name: string;
  shape: number[];
  /** Offset and length in float32 elements within the file. */
  offset: number;
  length: number;
}

export interface CheckpointManifest {
  format: typeof CHECKPOINT_FORMAT;
  step: number;
  createdAt: string;
  model: GPTConfig;
  train: TrainConfig | null;
  lineage: CheckpointLineage;
  /** State of the run's RNG (util/rng createRng(state) continues it), null if not saved. */
  rng: { state: number } | null;
  weights: { file: string; sha256: string; dtype: 'float32'; byteOrder: 'little'; tensors: TensorEntry[] };
  optimizer: {
    file: string;
    sha256: string;
    kind: 'adamw';
    step: number;
    beta1: number;
    beta2: number;
    eps: number;
    weightDecay: number;
    decayed: string[];
    /** m and v of every parameter: entries named "m/<param>" and "v/<param>". */
    tensors: TensorEntry[];
  } | null;
  tokenizer: string | null;
  /** Free-form numbers to show next to the checkpoint (e.g. the last val/loss). */
  metrics: Record<string, number>;
  /** How to make this checkpoint again (a base model's command options, seed and data), when it was recorded. */
  recipe?: Record<string, unknown>;
}

export interface SaveCheckpointInput {
  model: GPT;
  step: number;
  optimizer?: AdamW | null;
  tokenizer?: Tokenizer | null;
  train?: TrainConfig | null;
  rngState?: number | null;
  lineage?: Partial<CheckpointLineage>;
  metrics?: Record<string, number>;
  recipe?: Record<string, unknown>;
}

export interface LoadedCheckpoint {
  manifest: CheckpointManifest;
  model: GPT;
  optimizer: AdamW | null;
  tokenizer: Tokenizer | null;
  step: number;
  train: TrainConfig | null;
  rngState: number | null;
}

let tmpCounter = 0;

function checkEndianness(): void {
  if (endianness() !== 'LE') throw new LabError('unsupported', 'checkpoints are little-endian float32; this machine is big-endian');
}

function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Concatenates named float32 arrays into one buffer with an index. */
function pack(items: { name: string; shape: number[]; data: Float32Array }[]): { bytes: Uint8Array; tensors: TensorEntry[] } {
  const total = items.reduce((a, x) => a + x.data.length, 0);
  const all = new Float32Array(total);
  const tensors: TensorEntry[] = [];
  let offset = 0;
  for (const x of items) {
    all.set(x.data, offset);
    tensors.push({ name: x.name, shape: x.shape, offset, length: x.data.length });
    offset += x.data.length;
  }
  return { bytes: new Uint8Array(all.buffer, all.byteOffset, all.byteLength), tensors };
}

/**
 * Writes a checkpoint directory atomically (see the top of this file). Fails with `conflict` if `dir` exists,
 * unless overwrite is set (then the old directory is swapped out and removed after the new one is in place).
 */
export async function saveCheckpoint(dir: string, input: SaveCheckpointInput, opts: { overwrite?: boolean } = {}): Promise<CheckpointManifest> {
  checkEndianness();
  if (existsSync(dir) && !opts.overwrite) throw new LabError('conflict', `checkpoint ${dir} already exists`);
  const { model } = input;
  const items: { name: string; shape: number[]; data: Float32Array }[] = [];
  for (const [name, v] of model.params) items.push({ name, shape: [...v.shape], data: ((await v.data()) as Float32Array).slice() });
  const weights = pack(items);

  let optimizer: CheckpointManifest['optimizer'] = null;
  let optimBytes: Uint8Array | null = null;
  if (input.optimizer) {
    const opt = input.optimizer;
    const st = await opt.getState();
    const oitems: { name: string; shape: number[]; data: Float32Array }[] = [];
    for (const [name, v] of model.params) oitems.push({ name: `m/${name}`, shape: [...v.shape], data: st.m.get(name)! });
    for (const [name, v] of model.params) oitems.push({ name: `v/${name}`, shape: [...v.shape], data: st.v.get(name)! });
    const packed = pack(oitems);
    optimBytes = packed.bytes;
    optimizer = {
      file: OPTIM,
      sha256: sha256(packed.bytes),
      kind: 'adamw',
      step: st.step,
      beta1: opt.beta1,
      beta2: opt.beta2,
      eps: opt.eps,
      weightDecay: opt.weightDecay,
      decayed: [...opt.decayedNames],
      tensors: packed.tensors,
    };
  }

  const manifest: CheckpointManifest = {
    format: CHECKPOINT_FORMAT,
    step: input.step,
    createdAt: new Date().toISOString(),
    model: model.config,
    train: input.train ?? null,
    lineage: { parent: null, dataset: null, run: null, stage: null, ...input.lineage },
    rng: input.rngState === undefined || input.rngState === null ? null : { state: input.rngState },
    weights: { file: WEIGHTS, sha256: sha256(weights.bytes), dtype: 'float32', byteOrder: 'little', tensors: weights.tensors },
    optimizer,
    tokenizer: input.tokenizer ? TOKENIZER : null,
    metrics: input.metrics ?? {},
    ...(input.recipe ? { recipe: input.recipe } : {}),
  };

  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  const tmp = join(parent, `.${basename(dir)}.tmp-${process.pid}-${tmpCounter++}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  try {
    writeFileAtomic(join(tmp, WEIGHTS), weights.bytes);
    if (optimBytes) writeFileAtomic(join(tmp, OPTIM), optimBytes);
    if (input.tokenizer) writeJsonAtomic(join(tmp, TOKENIZER), input.tokenizer.toJSON());
    writeJsonAtomic(join(tmp, MANIFEST), manifest, true); // last: a directory with a manifest is complete
    if (existsSync(dir)) {
      const old = join(parent, `.${basename(dir)}.old-${process.pid}-${tmpCounter++}`);
      renameSync(dir, old);
      renameSync(tmp, dir);
      rmSync(old, { recursive: true, force: true });
    } else {
      renameSync(tmp, dir);
    }
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  return manifest;
}

/** Reads and checks a checkpoint's manifest (no tensors). */
export function readCheckpointManifest(dir: string): CheckpointManifest {
  const path = join(dir, MANIFEST);
  if (!existsSync(path)) throw new LabError('not_found', `${dir} is not a checkpoint (no ${MANIFEST})`);
  const m = readJsonFile(path) as Partial<CheckpointManifest> | null;
  if (!m || typeof m !== 'object' || m.format !== CHECKPOINT_FORMAT) {
    throw new LabError('bad_input', `${path}: not a ${CHECKPOINT_FORMAT} manifest (format: ${String(m?.format)})`);
  }
  if (!m.model || !m.weights || !Array.isArray(m.weights.tensors) || typeof m.step !== 'number') {
    throw new LabError('bad_input', `${path}: manifest lacks model, weights or step`);
  }
  // Checkpoints written before an option existed have no such field: their models did without it.
  const model: Partial<GPTConfig> = m.model;
  const legacy = { smearKeys: false, bidirectionalObservations: false, positions: 'learned', distanceBias: false } as const;
  return { ...m, model: { ...legacy, ...model } } as CheckpointManifest;
}

function readBin(dir: string, file: string, expectSha: string, floats: number): Float32Array {
  const path = join(dir, file);
  if (!existsSync(path)) throw new LabError('corrupt', `${path}: missing`);
  const buf = readFileSync(path);
  if (buf.byteLength !== floats * 4) throw new LabError('corrupt', `${path}: ${buf.byteLength} bytes, manifest says ${floats * 4}`);
  if (sha256(buf) !== expectSha) throw new LabError('corrupt', `${path}: SHA-256 does not match the manifest`);
  const out = new Float32Array(floats);
  new Uint8Array(out.buffer).set(buf);
  return out;
}

function shapeStr(s: readonly number[]): string {
  return `[${s.join(', ')}]`;
}

/** Checks the manifest's tensor index against the model's expected parameters; the error lists every mismatch. */
function validateTensors(where: string, entries: TensorEntry[], expected: { name: string; shape: number[] }[], prefix = ''): void {
  const byName = new Map(entries.map((e) => [e.name, e]));
  const problems: string[] = [];
  for (const x of expected) {
    const e = byName.get(prefix + x.name);
    if (!e) problems.push(`${prefix + x.name}: missing (expected ${shapeStr(x.shape)})`);
    else if (shapeStr(e.shape) !== shapeStr(x.shape)) problems.push(`${prefix + x.name}: shape ${shapeStr(e.shape)}, model expects ${shapeStr(x.shape)}`);
    else if (e.length !== x.shape.reduce((a, b) => a * b, 1)) problems.push(`${prefix + x.name}: length ${e.length} does not match its shape`);
    byName.delete(prefix + x.name);
  }
  for (const name of byName.keys()) if (name.startsWith(prefix)) problems.push(`${name}: not a parameter of this model`);
  if (problems.length) {
    const shown = problems.slice(0, 8).join('; ') + (problems.length > 8 ? `; and ${problems.length - 8} more` : '');
    throw new LabError('bad_input', `${where}: checkpoint does not fit the model: ${shown}`, { problems });
  }
}

/**
 * Loads a checkpoint. Without opts.model a new model is built from the saved config; with it, the weights are
 * loaded into that model after checking every shape (a clear `bad_input` error on any mismatch). The optimiser
 * is rebuilt with the saved hyper-parameters and state when the checkpoint has one.
 */
export async function loadCheckpoint(dir: string, opts: { model?: GPT } = {}): Promise<LoadedCheckpoint> {
  checkEndianness();
  const manifest = readCheckpointManifest(dir);
  const config = resolveGPTConfig(manifest.model);
  const expected = paramSpecs(opts.model?.config ?? config).map((s) => ({ name: s.name, shape: s.shape }));
  validateTensors(join(dir, MANIFEST), manifest.weights.tensors, expected);
  const total = manifest.weights.tensors.reduce((a, e) => a + e.length, 0);
  const data = readBin(dir, manifest.weights.file, manifest.weights.sha256, total);

  const model = opts.model ?? createModel(config);
  const index = new Map(manifest.weights.tensors.map((e) => [e.name, e]));
  for (const [name, v] of model.params) {
    const e = index.get(name)!;
    tf.tidy(() => v.assign(tf.tensor(data.subarray(e.offset, e.offset + e.length), v.shape, 'float32')));
  }

  let optimizer: AdamW | null = null;
  const o = manifest.optimizer;
  if (o) {
    validateTensors(`${join(dir, MANIFEST)} (optimizer)`, o.tensors, expected, 'm/');
    validateTensors(`${join(dir, MANIFEST)} (optimizer)`, o.tensors, expected, 'v/');
    const odata = readBin(dir, o.file, o.sha256, o.tensors.reduce((a, e) => a + e.length, 0));
    const oindex = new Map(o.tensors.map((e) => [e.name, e]));
    const decayed = new Set(o.decayed);
    optimizer = new AdamW(model.params, { beta1: o.beta1, beta2: o.beta2, eps: o.eps, weightDecay: o.weightDecay, decay: (name) => decayed.has(name) });
    const m = new Map<string, Float32Array>();
    const v = new Map<string, Float32Array>();
    for (const name of model.params.keys()) {
      const em = oindex.get(`m/${name}`)!;
      const ev = oindex.get(`v/${name}`)!;
      m.set(name, odata.subarray(em.offset, em.offset + em.length));
      v.set(name, odata.subarray(ev.offset, ev.offset + ev.length));
    }
    optimizer.setState({ step: o.step, m, v });
  }

  const tokenizer = manifest.tokenizer ? Tokenizer.fromJSON(readJsonFile(join(dir, manifest.tokenizer))) : null;
  return {
    manifest,
    model,
    optimizer,
    tokenizer,
    step: manifest.step,
    train: manifest.train ? resolveTrainConfig(manifest.train) : null,
    rngState: manifest.rng ? manifest.rng.state : null,
  };
}
