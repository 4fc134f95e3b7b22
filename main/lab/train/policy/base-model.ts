// The bundled base model (`resources/base-model/`, made by `sailor pretrain`): runs start from it unless their
// config says `model.base: "none"`. `SAILOR_BASE_MODEL` points at another checkpoint directory, for trying
// a base model of one's own with the same configs.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LabError } from '../../base/errors';
import { resourcesDir } from '../../base/paths';
import { readCheckpointManifest } from '../../model/checkpoint';
import { resolveGPTConfig, type GPTConfig } from '../../model/gpt';
import type { RunConfig } from '../../contract/run-config';
import { checkpointRef, resolveCheckpoint } from '../../runs/layout';

export const BASE_MODEL_ENV = 'SAILOR_BASE_MODEL';

/** How lineage and logs name the base model. */
export const BASE_MODEL_REF = 'base-model';

/** Where the base model is read from. */
function baseModelDir(): string {
  return process.env[BASE_MODEL_ENV] || join(resourcesDir(), 'base-model');
}

/** The base model's directory, or an error that says how to make it or do without. */
export function requireBaseModel(): string {
  const dir = baseModelDir();
  if (!existsSync(join(dir, 'manifest.json'))) {
    throw new LabError(
      'not_found',
      `model.base: no base model in ${dir}; make one with \`sailor pretrain --out ${dir}\`, or set model.base to "none" to train from scratch`,
    );
  }
  return dir;
}

/** A run trains a fresh model (and its own tokenizer) only when it names no checkpoint and no base model. Pure. */
export function startsFresh(config: Pick<RunConfig, 'init' | 'model'>): boolean {
  return !config.init && config.model.base === 'none';
}

/**
 * Where a run's model comes from: a run's checkpoint (`init`) or the base model, with its shape as saved,
 * or a fresh model.
 */
export type ModelStart = { kind: 'checkpoint' | 'base'; dir: string; ref: string; model: GPTConfig } | { kind: 'scratch' };

/** A run's starting point; a missing or unreadable base model or checkpoint fails here, before any data is made. */
export function modelStart(config: Pick<RunConfig, 'init' | 'model'>, home: string): ModelStart {
  if (config.init) {
    const c = resolveCheckpoint(config.init.checkpoint, home);
    return { kind: 'checkpoint', dir: c.dir, ref: checkpointRef(c.runId, c.step), model: readCheckpointManifest(c.dir).model };
  }
  if (startsFresh(config)) return { kind: 'scratch' };
  const dir = requireBaseModel();
  return { kind: 'base', dir, ref: BASE_MODEL_REF, model: readCheckpointManifest(dir).model };
}

/** The shape of a run's fresh model: its preset with the run's overrides, and the tokenizer's vocabulary. */
export function freshModelConfig(model: RunConfig['model'], vocabSize: number): GPTConfig {
  const { preset, base: _base, ...overrides } = model;
  const set = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return resolveGPTConfig({ preset, vocabSize, ...set });
}
