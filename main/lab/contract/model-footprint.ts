// What a fresh model needs before it trains: its parameters and the memory one training step takes, so that a run
// config no machine here could hold is refused at start, naming the figure, rather than growing until the system
// kills it (96 layers of width 8192 passed validation and reached 1.85 GB in two minutes). Pure: the renderer may
// show the same figures.
import { PRESET_SHAPES, type RunConfig } from './run-config';

export interface ModelShape {
  vocabSize: number;
  blockSize: number;
  nLayer: number;
  nHead: number;
  nEmbd: number;
  /** One gate per head and layer (model/gpt.ts smearKeys); on in every fresh model. */
  smearKeys: boolean;
}

/** The parameters of a GPT of this shape with its head tied to the token embedding (model/gpt.ts paramSpecs). */
export function modelParams(s: ModelShape): number {
  const C = s.nEmbd;
  const perLayer = 12 * C * C + 13 * C + (s.smearKeys ? s.nHead : 0); // attention, MLP, two norms
  return s.vocabSize * C + s.blockSize * C + s.nLayer * perLayer + 2 * C;
}

const FLOAT = 4;

/**
 * A lower bound on the memory a training step holds, in bytes: float32 weights, their gradients and AdamW's two
 * moments (16 bytes a parameter), and what one full window keeps for the backward pass (per layer about 16 values
 * a token and channel and 2 attention maps of T x T per head; the logits). A batch holds more: SFT pads a batch
 * to its longest window, which is often shorter than the context, so only one window is counted.
 */
export function trainingBytes(s: ModelShape): number {
  const T = s.blockSize;
  const activations = s.nLayer * (16 * T * s.nEmbd + 2 * s.nHead * T * T) + 2 * T * s.vocabSize;
  return FLOAT * (4 * modelParams(s) + activations);
}

/** The shape a run trains from scratch (`model.base: none`, no `init`); null when it starts from a saved model. */
export function freshShape(config: Pick<RunConfig, 'init' | 'model' | 'tokenizer'>): ModelShape | null {
  if (config.init || config.model.base !== 'none') return null;
  const preset = PRESET_SHAPES[config.model.preset];
  const m = config.model;
  return {
    vocabSize: config.tokenizer.vocabSize,
    blockSize: m.blockSize ?? preset.blockSize,
    nLayer: m.nLayer ?? preset.nLayer,
    nHead: m.nHead ?? preset.nHead,
    nEmbd: m.nEmbd ?? preset.nEmbd,
    smearKeys: true,
  };
}

const GiB = 2 ** 30;
const inGiB = (bytes: number): string => (bytes >= 10 * GiB ? `${Math.round(bytes / GiB)} GiB` : `${(bytes / GiB).toFixed(2)} GiB`);
const inWords = (n: number): string => (n >= 1e9 ? `${(n / 1e9).toFixed(1)} billion` : n >= 1e6 ? `${(n / 1e6).toFixed(1)} million` : `${Math.round(n / 1e3)} thousand`);

/**
 * Why a fresh model of this run cannot train on a machine with `memoryBytes` of memory, or null when it fits: the
 * step must leave a quarter of the memory to the system, the app and the run's other buffers.
 */
export function tooBigForMachine(config: Pick<RunConfig, 'init' | 'model' | 'tokenizer'>, memoryBytes: number): string | null {
  const shape = freshShape(config);
  if (!shape) return null;
  const need = trainingBytes(shape);
  if (need <= 0.75 * memoryBytes) return null;
  return (
    `model: ${inWords(modelParams(shape))} parameters (nLayer ${shape.nLayer}, nEmbd ${shape.nEmbd}, blockSize ${shape.blockSize}) need at least ` +
    `${inGiB(need)} of memory to train (weights, gradients, AdamW's moments and one window's activations), and this machine has ${inGiB(memoryBytes)}: choose a smaller model`
  );
}
