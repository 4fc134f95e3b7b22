// A training run's configuration: one object, defaults merged once, validated with messages that name
// the field, saved into run.json and into every checkpoint. The wizard, `sailor train --config` and the
// tests all go through `parseRunConfig`. Defaults are the "quick" preset: it finishes on a 2-core laptop.
// A section left out takes its fields' defaults (`.prefault({})`): each default is written once, on its field.
import { z } from 'zod';
import { LabError } from '../base/errors';
import { fieldIssues } from './field-issues';

const id = z.string().min(1).max(200).regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : - only');
const int = (min: number, max: number) => z.number().int().min(min).max(max);
const weight = z.number().min(0).max(1);

export const BACKEND_CHOICES = ['auto', 'tensorflow-gpu', 'tensorflow', 'wasm', 'cpu'] as const;
export const MODEL_PRESETS = ['tiny', 'small', 'base'] as const;
export const MODEL_BASES = ['bundled', 'none'] as const;
/** The shape fields a base model fixes (a run from it may not set them). */
export const MODEL_SHAPE_FIELDS = ['blockSize', 'nLayer', 'nEmbd', 'nHead', 'bidirectionalObservations', 'positions', 'distanceBias'] as const;

export type ModelPreset = (typeof MODEL_PRESETS)[number];

/** A preset's shape: its value of every field in MODEL_SHAPE_FIELDS. */
export type PresetShape = { blockSize: number; nLayer: number; nHead: number; nEmbd: number; bidirectionalObservations: boolean; positions: 'learned'; distanceBias: boolean } & Record<
  (typeof MODEL_SHAPE_FIELDS)[number],
  unknown
>;

/**
 * The model presets' shapes, in one place: the run config checks a width against the preset's heads, the wizard
 * shows the layers, heads, width and context, and model/gpt.ts GPT_PRESETS adds what only training uses.
 */
export const PRESET_SHAPES: Readonly<Record<ModelPreset, PresetShape>> = {
  // Trains in minutes on 2 CPU cores: ~0.24M parameters at vocab 2048. 256 positions hold the question and a
  // turn with its observation (the compact RFT style); 128 would leave a prompt of 32 tokens after a turn's budget.
  tiny: { blockSize: 256, nLayer: 2, nHead: 4, nEmbd: 64, bidirectionalObservations: false, positions: 'learned', distanceBias: false },
  // ~11M parameters (nanoGPT's shakespeare-char shape with a longer context): meant for a GPU.
  small: { blockSize: 512, nLayer: 6, nHead: 6, nEmbd: 384, bidirectionalObservations: false, positions: 'learned', distanceBias: false },
  // GPT-2 124M's shape (fewer parameters with our vocabulary): GPU only.
  base: { blockSize: 1024, nLayer: 12, nHead: 12, nEmbd: 768, bidirectionalObservations: false, positions: 'learned', distanceBias: false },
};

export const RL_ALGORITHMS = ['dupo', 'dapo', 'grpo'] as const;

/**
 * Agentic RL after SFT or instead of it from `init.checkpoint` (docs/run-config.md). The defaults are the best measured
 * on the quick preset (docs/learning.md): DUPO, 40 steps of 8 questions x 8 rollouts (320 questions; DUPO's
 * too-easy filter plays each 8 times first), leave-one-out advantages, one on-policy update per step, about
 * 10 minutes on a 2-core laptop. The learning rate is constant after `warmupSteps` (`schedule: 'cosine'` decays
 * it to lr/10 over the RL updates). 2e-4: on the 12000-edge quick preset 5e-4 lost 0.05 held-out pass@1 over
 * 40 steps where 2e-4 held it, and 2e-3 collapsed even on 8 fixed questions (docs/learning.md, 4b); the
 * papers' 1e-6 is for 7B+ models.
 */
export const rlConfigSchema = z
  .object({
    algorithm: z.enum(RL_ALGORITHMS).default('dupo'),
    /** RL training steps (each one rollout batch); they continue the run's step counter after SFT. */
    steps: int(1, 100_000).default(40),
    /** G: rollouts per question. */
    groupSize: int(2, 64).default(8),
    /** Questions per step (the batch is batchQuestions groups of G). */
    batchQuestions: int(1, 1024).default(8),
    lr: z.number().positive().max(1).default(2e-4),
    warmupSteps: int(0, 100_000).default(0),
    schedule: z.enum(['constant', 'cosine']).default('constant'),
    weightDecay: z.number().min(0).max(1).default(0),
    /** Clip range of the ratio: [1 - epsLow, 1 + epsHigh] (clip-higher: epsHigh > epsLow). */
    epsLow: z.number().min(0).max(0.99).default(0.2),
    epsHigh: z.number().min(0).max(10).default(0.28),
    gradClip: z.number().min(0).max(1000).default(1),
    /** Sampling of the rollouts (the papers: 1.0 and 1.0). 0 (greedy) would make every group zero-std. */
    temperature: z.number().min(0.05).max(2).default(1),
    topP: z.number().gt(0).max(1).default(1),
    reward: z
      .object({
        format: z.number().min(0).max(1).default(0.1),
        answer: z.number().min(0).max(1).default(0.9),
        /** em: exact match (after normalisation); f1: word-level F1, ASearcher's partial credit for base models. */
        answerMode: z.enum(['em', 'f1']).default('em'),
        /**
         * turns: the format reward is the share of well-formed turns, halved for an episode that never answered
         * (agent/reward.ts turnFormatScore); episode:
         * 1 only for a wholly well-formed episode. A tiny policy's episodes are rarely perfect at first, and with
         * 'episode' every group would be zero-std and no update would happen.
         */
        formatCredit: z.enum(['turns', 'episode']).default('turns'),
      })
      .strict()
      .prefault({}),
    advantage: z.enum(['grpo', 'leave_one_out']).default('leave_one_out'),
    /** WebSailor-V2: rollouts that never answered because they hit a limit, with A < 0, get no loss. */
    excludeTruncatedNegatives: z.boolean().default(true),
    /** Optimiser steps per rollout batch (mini-batches); 1 = strictly on-policy. */
    updatesPerBatch: int(1, 64).default(1),
    /** DAPO: rounds of rollouts (the first included) to fill the batch with groups that have signal. */
    dapoMaxRounds: int(1, 100).default(3),
    /** async (ASearcher): rollouts never wait for the trainer; a step trains on the first finished groups. */
    mode: z.enum(['sync', 'async']).default('sync'),
    /** async: groups started more than this many policy versions ago are dropped. */
    maxStaleness: int(0, 100).default(1),
    /**
     * Rollouts in flight at once. async: the rollout thread decodes their turns as one batch, and they never run
     * further ahead than maxStaleness lets their groups be used (train/rl-stage/async-rollouts.ts); sync plays at
     * least a full batch for each decoding thread anyway.
     */
    workers: int(1, 64).default(2),
    /** Held-out pass@1 every N RL steps (and after the last). */
    evalEvery: int(1, 1_000_000).default(10),
    /** A checkpoint every N RL steps (and after the last). */
    checkpointEvery: int(1, 1_000_000).default(5),
    /** DUPO: before training, drop the questions the starting policy solves in all G rollouts. */
    dropTooEasy: z.boolean().default(true),
    /**
     * Where a step's questions come from. `fixed`: a seeded subset of the RL set, drawn once (less DUPO's too-easy
     * questions). `frontier`, the data-policy loop (WebSailor-V2, rl/frontier.ts): the whole RL set seeds a pool
     * that judges each question by every group played on it (0 < pass rate < 1 stays; too easy and too hard
     * leave) and is refilled, while RL runs, with fresh questions made off the demonstrations' and held-out
     * questions' edges with the RL set's generator settings (train/rl-stage/rl-refill.ts). No too-easy pass before step 1.
     */
    pool: z.enum(['fixed', 'frontier']).default('fixed'),
    /** frontier: the pool's size; below it the loop makes fresh questions. */
    poolSize: int(1, 100_000).default(256),
    /** frontier: all-fail groups in a row before a question leaves the pool as too hard (1: at the first). */
    hardPatience: int(1, 64).default(1),
    /**
     * The headroom before the first update: pass@k, k = 1, 2, 4, ... G, of the starting policy on this many RL
     * questions and as many held-out ones (G rollouts each, at the RL temperature), recorded with RL step 1's
     * metrics (`headroom/rl/pass@k`, `headroom/heldout/pass@k`). 0: not measured.
     */
    headroomQuestions: int(0, 1000).default(16),
    /**
     * Entropy bonus against entropy collapse (0: none): the loss gains the sampled-token estimator of -coef x the
     * policy's entropy (rl/loss.ts). ProRL-style values are about 0.001-0.01.
     */
    entropyCoef: z.number().min(0).max(1).default(0),
    /**
     * Turn rewards from the graph on chained questions (train/policy/turn-rewards.ts): a potential over the chain's bridges,
     * seen (an observation showed one) and hop (a later search or visit named it), and a cost per repeated query.
     * Off (all 0) by default: measured in docs/learning.md, "Turn rewards on chains".
     */
    turnRewards: z
      .object({ seen: weight.default(0), hop: weight.default(0), repeat: weight.default(0), gamma: z.number().gt(0).max(1).default(1) })
      .strict()
      .default({ seen: 0, hop: 0, repeat: 0, gamma: 1 }),
    /** turn: each turn's advantage is its episode's plus its own turn reward; episode: turn rewards join the episode's reward. */
    credit: z.enum(['episode', 'turn']).default('episode'),
    /** Negative-sample reinforcement (W-REINFORCE, arXiv 2506.01347): positive advantages are scaled by this (1: off). */
    positiveWeight: z.number().min(0).max(1).default(1),
  })
  .strict();

export type RlConfig = z.output<typeof rlConfigSchema>;

/**
 * Relabeling (DAgger) after SFT, before RL (train/sft/relabel-stage.ts, docs/run-config.md): each round rolls the policy out on
 * `questions` training questions (`from` the SFT or the RL set, of at least `minEdges` edges), labels every state it
 * visits with the expert's next turn, keeps the states from which the expert reaches the answer, and trains `steps`
 * SFT steps whose batches draw a `mix` share from the labelled states of every round so far, the rest from the RFT
 * rows. `source: 'expert'` is the control: the expert's own episodes on the same questions instead of labels.
 */
export const relabelConfigSchema = z
  .object({
    rounds: int(1, 100).default(3),
    questions: int(1, 100_000).default(200),
    from: z.enum(['train', 'rl']).default('train'),
    minEdges: int(1, 50).default(2),
    steps: int(1, 100_000).default(300),
    mix: z.number().min(0).max(1).default(0.5),
    /** SFT's last rate (sft.minLr's default): 5e-4 cost held-out pass@1 in the first measurement (docs/learning.md). */
    lr: z.number().positive().max(1).default(2e-4),
    temperature: z.number().min(0).max(2).default(0),
    /** An episode's states are labelled up to its n-th disagreement with the expert (0: all of them). */
    mistakes: int(0, 100).default(1),
    source: z.enum(['policy', 'expert']).default('policy'),
  })
  .strict();

export type RelabelConfig = z.output<typeof relabelConfigSchema>;

/** SFT steps the relabeling stage adds after SFT (0 without one). */
export const relabelSteps = (c: { relabel?: RelabelConfig }): number => (c.relabel ? c.relabel.rounds * c.relabel.steps : 0);

/**
 * The model shape's rule between fields, written once: the width must split evenly across the heads. The run
 * config reports it at the field (checkModel) and model/gpt.ts resolveGPTConfig throws it for a shape from
 * anywhere else (a checkpoint, a test). null when the shape holds.
 */
export function modelShapeProblem(m: { nEmbd: number; nHead: number }): string | null {
  return m.nEmbd % m.nHead !== 0 ? `nEmbd ${m.nEmbd} must be divisible by nHead ${m.nHead}` : null;
}

type ModelFields = { base: (typeof MODEL_BASES)[number]; preset: ModelPreset; nEmbd?: number; nHead?: number } & Partial<Record<(typeof MODEL_SHAPE_FIELDS)[number], unknown>>;

/**
 * A base model brings its own shape, so a run from it sets none (the preset stays `tiny`, the default).
 * Otherwise the width must split evenly across the heads: caught here,
 * with the field, rather than when the model is built at step 0. A field left out takes the preset's value.
 */
function checkModel(m: ModelFields, ctx: z.RefinementCtx): void {
  if (m.base === 'bundled') {
    if (m.preset !== 'tiny') ctx.addIssue({ code: 'custom', path: ['preset'], message: `the base model is tiny; set model.base to "none" to train a ${m.preset} model from scratch` });
    for (const field of MODEL_SHAPE_FIELDS) {
      if (m[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: `the base model fixes the model's shape; set model.base to "none" to train with ${field} from scratch` });
    }
    return;
  }
  const { nEmbd, nHead } = { ...PRESET_SHAPES[m.preset], ...definedOnly({ nEmbd: m.nEmbd, nHead: m.nHead }) };
  const problem = modelShapeProblem({ nEmbd, nHead });
  if (problem) ctx.addIssue({ code: 'custom', path: [m.nEmbd !== undefined ? 'nEmbd' : 'nHead'], message: problem });
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * A rule between fields of a run config: what it reads, and the problem it finds, at the field to change. `message`
 * is main's (it names fields by path); `words` is a form's, with other fields as `{path}` mentions the form names
 * by its labels (contract/field-issues.ts nameMentions).
 */
interface CrossFieldRule {
  reads: string[];
  check(c: z.output<typeof runConfigShape>): { path: string; message: string; words: string } | null;
}

/**
 * The run config's rules between fields, one place for all: `parseRunConfig` names the field in its message and
 * the wizard shows the rule's words at that field.
 */
const CROSS_FIELD_RULES: CrossFieldRule[] = [
  {
    reads: ['sft.lr', 'sft.minLr'],
    check: (c) =>
      c.sft.minLr > c.sft.lr ? { path: 'sft.minLr', message: `must not exceed the learning rate (sft.lr = ${c.sft.lr})`, words: `must not exceed the learning rate (${c.sft.lr})` } : null,
  },
  {
    reads: ['data.datasetId', 'data.heldOutDatasetId'],
    check: (c) =>
      c.data.datasetId === c.data.heldOutDatasetId
        ? {
            path: 'data.heldOutDatasetId',
            message: 'must differ from the training dataset (data.datasetId): evaluate on questions the model did not train on',
            words: 'must differ from the {data.datasetId}: evaluate on questions the model did not train on',
          }
        : null,
  },
  {
    reads: ['data.heldOutDatasetId', 'data.rlDatasetId'],
    check: (c) =>
      c.data.rlDatasetId !== undefined && c.data.rlDatasetId === c.data.heldOutDatasetId
        ? {
            path: 'data.rlDatasetId',
            message: 'must differ from the held-out questions (data.heldOutDatasetId): RL on them would train on the test',
            words: 'must differ from the {data.heldOutDatasetId}: RL on them would train on the test',
          }
        : null,
  },
  {
    reads: ['init', 'rl', 'relabel', 'sft.steps'],
    check: (c) =>
      c.init && !c.rl && !c.relabel && c.sft.steps === 0
        ? { path: 'init.checkpoint', message: 'a run that starts from a checkpoint needs sft.steps above 0 or an rl section (or a relabel section)', words: 'a run from a checkpoint needs {sft.steps} above 0 or an RL stage (or relabeling)' }
        : null,
  },
  {
    reads: ['init', 'sft.steps'],
    check: (c) =>
      c.sft.steps === 0 && !c.init
        ? { path: 'sft.steps', message: '0 SFT steps need init.checkpoint (the checkpoint RL starts from)', words: '0 needs a {init.checkpoint} or an RL stage from one' }
        : null,
  },
  {
    reads: ['rl.updatesPerBatch', 'rl.batchQuestions'],
    check: (c) => {
      if (!c.rl || c.rl.updatesPerBatch <= c.rl.batchQuestions) return null;
      const tail = 'each update takes at least one group';
      return {
        path: 'rl.updatesPerBatch',
        message: `${c.rl.updatesPerBatch} updates must not exceed the questions per step (${c.rl.batchQuestions}): ${tail}`,
        words: `${c.rl.updatesPerBatch} updates must not exceed the questions per step (${c.rl.batchQuestions}): ${tail}`,
      };
    },
  },
];

/** Whether one dotted path lies inside the other (`data` and `data.graphId`, or the same path). */
const overlaps = (a: string, b: string): boolean => a === b || a.startsWith(b + '.') || b.startsWith(a + '.');

function checkAcrossFields(c: z.output<typeof runConfigShape>, ctx: z.RefinementCtx<z.output<typeof runConfigShape>>): void {
  const bad = ctx.issues.map((i) => (i.path ?? []).join('.'));
  if (bad.includes('')) return; // not an object at all
  for (const rule of CROSS_FIELD_RULES) {
    if (rule.reads.some((r) => bad.some((b) => overlaps(r, b)))) continue;
    const found = rule.check(c);
    if (found) ctx.addIssue({ code: 'custom', path: found.path.split('.'), message: found.message, params: { words: found.words } });
  }
}

const runConfigShape = z
  .object({
    name: z.string().trim().min(1).max(80).optional(),
    rng: int(0, 2 ** 32 - 1).default(1),
    backend: z.enum(BACKEND_CHOICES).default('auto'),
    /**
     * Threads that share each SFT batch (model/replicas.ts) and decode the evaluation's turns
     * (model/acting-threads.ts): `auto` is every core on the wasm and cpu backends and one on tfjs-node(-gpu),
     * whose kernels use every core or the GPU themselves.
     */
    workers: z.union([z.literal('auto'), int(1, 64)]).default('auto'),
    data: z
      .object({
        graphId: id,
        /** QAs the expert solves to make the RFT data. */
        datasetId: id,
        /** Held-out QAs (same generator, other seed) for evaluation. */
        heldOutDatasetId: id,
        /**
         * The RL stage's questions, when they are not the SFT questions: fresh ones the policy never imitated
         * an answer for, where it succeeds sometimes and fails sometimes (WebSailor-V2's RL data). Default: the
         * training set.
         */
        rlDatasetId: id.optional(),
        /**
         * The RFT data from these trajectories (a sailor.traj/1 set) instead of the expert's attempts: those of
         * the training questions, through the same filters (correct, well-formed, ...). A policy's own samples
         * make rejection fine-tuning (expert iteration), the control of bench/research/rl-controls.ts row (c).
         */
        trajectoriesId: id.optional(),
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
      .prefault({}),
    rft: z
      .object({
        attempts: int(1, 16).default(2),
        minToolCalls: int(0, 50).default(1),
        maxTokens: int(64, 131_072).default(4096),
        /**
         * How the expert writes: `compact` (terse thoughts, bare visit goals) suits a small policy trained from
         * scratch, which must learn every token it writes; `cited` is compact with an answer thought that restates
         * the slot of the last page's goal it fills ("Answer (what it uses currency): Chilean peso."); `full` is
         * the WebSailor-style prose.
         */
        style: z.enum(['compact', 'cited', 'full']).default('compact'),
        /** One more expert attempt per question on a third of the tool budget, ending in the forced answer. */
        forcedAnswers: z.boolean().default(true),
      })
      .strict()
      .prefault({}),
    tokenizer: z.object({ vocabSize: int(300, 32_768).default(1024) }).strict().prefault({}),
    /**
     * Renamed episodes (issue #41, docs/run-config.md): `copies` more expert episodes of every training question,
     * each on a world whose entity names are replaced (another real name of the type, or with probability
     * `generated` a made-up one; never a held-out question's), so a name can only come from the context.
     */
    renamed: z
      .object({ copies: int(0, 16).default(0), generated: z.number().min(0).max(1).default(0.5) })
      .strict()
      .prefault({}),
    /**
     * Token-level unlikelihood in SFT (issue #41, docs/run-config.md): `weight` * -log(1 - p) of each of the last
     * `window` tokens that is not the target, so greedy decoding does not loop on what it just wrote. 0: off.
     * Off in the presets: on the quick preset it paid at 1500 steps and not robustly at 2000-3000 (docs/learning.md).
     */
    unlikelihood: z
      .object({ weight: z.number().min(0).max(10).default(0), window: int(1, 64).default(4) })
      .strict()
      .prefault({}),
    model: z
      .object({
        /**
         * `bundled`: start from the base model in resources/base-model (made by `sailor pretrain`: the papers
         * start from a pretrained LLM); its shape and tokenizer come with it. `none`: a fresh model of the
         * shape below, and a tokenizer trained on this run's data.
         */
        base: z.enum(MODEL_BASES).default('bundled'),
        preset: z.enum(MODEL_PRESETS).default('tiny'),
        blockSize: int(32, 8192).optional(),
        /** Transformer blocks (the preset's when left out). */
        nLayer: int(1, 96).optional(),
        /** Width and attention heads (the preset's when left out); the width must divide by the heads. */
        nEmbd: int(8, 8192).optional(),
        nHead: int(1, 128).optional(),
        /** Bidirectional attention within tool responses (model/gpt GPTConfig); off in the presets; on the reference path only (slower). */
        bidirectionalObservations: z.boolean().optional(),
        /** `learned` position embeddings, the only mode: `rotary` was retired (model/gpt GPTConfig). */
        positions: z.literal('learned', { error: 'rotary positions were retired (no preset or base model used them; docs/learning.md has their measurement): learned is the only mode' }).optional(),
        /** ALiBi-style distance penalties per head (model/gpt GPTConfig); off in the presets. */
        distanceBias: z.boolean().optional(),
      })
      .strict()
      .superRefine(checkModel)
      .prefault({}),
    sft: z
      .object({
        /**
         * 0 only with `init.checkpoint` (then SFT is skipped and the other sft fields are unused); with
         * `init.checkpoint` it defaults to 0, and more steps continue SFT from the checkpoint's weights.
         */
        steps: int(0, 1_000_000).default(3000),
        batchSize: int(1, 512).default(8),
        lr: z.number().positive().max(1).default(2e-3),
        minLr: z.number().min(0).max(1).default(2e-4),
        warmupSteps: int(0, 100_000).default(30),
        weightDecay: z.number().min(0).max(1).default(0.1),
        gradClip: z.number().min(0).max(1000).default(1),
        /**
         * How many times each training row whose loss holds the answer turn is drawn, against once for every
         * other row. The answer is a few of a trajectory's tokens and the ones the reward checks.
         */
        answerRepeat: int(1, 64).default(1),
      })
      .strict()
      .prefault({}),
    eval: z
      .object({
        every: int(1, 1_000_000).default(1000),
        questions: int(1, 10_000).default(300),
        samples: int(1, 16).default(1),
        /** 0: greedy, as pass@1 is reported (and as `sailor eval` runs a checkpoint). */
        temperature: z.number().min(0).max(2).default(0),
      })
      .strict()
      .prefault({}),
    checkpoint: z.object({ every: int(1, 1_000_000).default(1000) }).strict().prefault({}),
    /**
     * Start from an existing checkpoint: its model (shape and weights) and tokenizer replace the fresh ones,
     * so `model` and `tokenizer` are unused. With `sft.steps` 0 (the default here) the run is RL only; with
     * more it makes this run's RFT data and continues SFT on it (fresh AdamW and schedule), then RL if asked.
     */
    init: z
      .object({ checkpoint: z.string().regex(/^[A-Za-z0-9._:-]+\/(\d+|last)$/, 'expected <run>/<step> or <run>/last') })
      .strict()
      .optional(),
    relabel: relabelConfigSchema.optional(),
    rl: rlConfigSchema.optional(),
  })
  .strict();

// Checked even when other fields are bad (each rule waits only for the fields it reads), so the wizard shows
// every problem at once.
export const runConfigSchema = runConfigShape.superRefine(checkAcrossFields, { when: () => true });

export type RunConfigInput = z.input<typeof runConfigSchema>;
export type RunConfig = z.output<typeof runConfigSchema>;

/** A starting checkpoint in words, for a run's default name: its run's name and step, never the run's id. */
export const checkpointInWords = (runName: string, step: number): string => `${runName} (step ${step})`;

/**
 * A run's name when its config gives none: `base model SFT 3000 steps, rng 1`, `tiny SFT 2000 + DUPO 20 steps, rng 1`,
 * `DUPO 20 steps from tiny SFT 2000 (step 2000), rng 1`. `from`: the starting checkpoint in words (checkpointInWords),
 * where the caller knows its run; else the checkpoint reference.
 */
export function defaultRunName(c: Pick<RunConfig, 'model' | 'sft' | 'rng' | 'rl' | 'init'>, from?: string): string {
  const stages = [c.sft.steps > 0 ? `SFT ${c.sft.steps}` : null, c.rl ? `${c.rl.algorithm.toUpperCase()} ${c.rl.steps}` : null].filter(Boolean).join(' + ');
  const start = c.model.base === 'bundled' ? 'base model' : c.model.preset;
  return c.init ? `${stages} steps from ${from ?? c.init.checkpoint}, rng ${c.rng}` : `${start} ${stages} steps, rng ${c.rng}`;
}

/** A run from a checkpoint trains no SFT unless its config asks (`sft.steps`): RL-only configs stay short. */
function withInitDefaults(raw: unknown): unknown {
  if (!isRecord(raw) || raw.init === undefined) return raw;
  const sft = isRecord(raw.sft) ? raw.sft : raw.sft === undefined ? {} : null;
  return sft && sft.steps === undefined ? { ...raw, sft: { ...sft, steps: 0 } } : raw;
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Checks a raw run config as main does (a run from a checkpoint defaults to no SFT steps): every problem at its field's path. */
export function checkRunConfig(raw: unknown): z.ZodSafeParseResult<RunConfig> {
  return runConfigSchema.safeParse(withInitDefaults(raw));
}

/** Parses and validates a run config; errors name every bad field, e.g. `sft.lr: Too big: expected number to be <=1`. */
export function parseRunConfig(raw: unknown, where = 'run config'): RunConfig {
  const parsed = checkRunConfig(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`);
  // The same issues in words, by path, for a form to show at its fields (WireError.issues).
  throw new LabError('bad_request', `${where}: ${issues.join('; ')}`, { issues: fieldIssues(parsed.error) });
}
