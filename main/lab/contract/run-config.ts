// A training run's configuration: one object, defaults merged once, validated with messages that name
// the field, saved into run.json and into every checkpoint. The wizard, `sailor train --config` and the
// tests all go through `parseRunConfig`. Defaults are the "quick" preset: it finishes on a 2-core laptop.
import { z } from 'zod';
import { LabError } from '../errors';

const id = z.string().min(1).max(200).regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : - only');
const int = (min: number, max: number) => z.number().int().min(min).max(max);

export const BACKEND_CHOICES = ['auto', 'tensorflow-gpu', 'tensorflow', 'wasm', 'cpu'] as const;
export const MODEL_PRESETS = ['tiny', 'small', 'base'] as const;

export const runConfigSchema = z
  .object({
    name: z.string().trim().min(1).max(80).optional(),
    rng: int(0, 2 ** 32 - 1).default(1),
    backend: z.enum(BACKEND_CHOICES).default('auto'),
    data: z
      .object({
        graphId: id,
        /** QAs the expert solves to make the RFT data. */
        datasetId: id,
        /** Held-out QAs (same generator, other seed) for evaluation. */
        heldOutDatasetId: id,
      })
      .strict(),
    /** The simulated web the policy acts in, for RFT data and evaluation alike: compact, for a small context. */
    env: z
      .object({
        topK: int(1, 10).default(3),
        snippetChars: int(40, 1000).default(160),
        maxEvidence: int(1, 20).default(3),
        maxToolCalls: int(1, 200).default(12),
      })
      .strict()
      .default({ topK: 3, snippetChars: 160, maxEvidence: 3, maxToolCalls: 12 }),
    rft: z
      .object({
        attempts: int(1, 16).default(2),
        minToolCalls: int(0, 50).default(1),
        maxTokens: int(64, 131_072).default(4096),
      })
      .strict()
      .default({ attempts: 2, minToolCalls: 1, maxTokens: 4096 }),
    tokenizer: z.object({ vocabSize: int(300, 32_768).default(1024) }).strict().default({ vocabSize: 1024 }),
    model: z
      .object({
        preset: z.enum(MODEL_PRESETS).default('tiny'),
        blockSize: int(32, 8192).optional(),
      })
      .strict()
      .default({ preset: 'tiny' }),
    sft: z
      .object({
        steps: int(1, 1_000_000).default(400),
        batchSize: int(1, 512).default(8),
        lr: z.number().positive().max(1).default(2e-3),
        minLr: z.number().min(0).max(1).default(2e-4),
        warmupSteps: int(0, 100_000).default(30),
        weightDecay: z.number().min(0).max(1).default(0.1),
        gradClip: z.number().min(0).max(1000).default(1),
      })
      .strict()
      .default({ steps: 400, batchSize: 8, lr: 2e-3, minLr: 2e-4, warmupSteps: 30, weightDecay: 0.1, gradClip: 1 }),
    eval: z
      .object({
        every: int(1, 1_000_000).default(100),
        questions: int(1, 10_000).default(30),
        samples: int(1, 16).default(1),
        temperature: z.number().min(0).max(2).default(0.7),
      })
      .strict()
      .default({ every: 100, questions: 30, samples: 1, temperature: 0.7 }),
    checkpoint: z.object({ every: int(1, 1_000_000).default(100) }).strict().default({ every: 100 }),
  })
  .strict();

export type RunConfigInput = z.input<typeof runConfigSchema>;
export type RunConfig = z.output<typeof runConfigSchema>;

/** Parses and validates a run config; errors name every bad field, e.g. `sft.lr: Too big: expected number to be <=1`. */
export function parseRunConfig(raw: unknown, where = 'run config'): RunConfig {
  const parsed = runConfigSchema.safeParse(raw);
  if (parsed.success) {
    const c = parsed.data;
    if (c.sft.minLr > c.sft.lr) throw new LabError('bad_request', `${where}: sft.minLr (${c.sft.minLr}) must not exceed sft.lr (${c.sft.lr})`);
    if (c.data.datasetId === c.data.heldOutDatasetId) {
      throw new LabError('bad_request', `${where}: data.heldOutDatasetId must differ from data.datasetId (evaluate on questions not trained on)`);
    }
    return c;
  }
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`);
  throw new LabError('bad_request', `${where}: ${issues.join('; ')}`);
}
