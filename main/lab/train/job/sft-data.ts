// What the SFT phase trains on (train-job.ts): the tokenizer, made once per run (a run from a checkpoint or
// the base model keeps that model's), and the windows: one per generated turn of the RFT data, every 10th
// question's windows held out for val/loss, answer windows repeated (sft.answerRepeat).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LabError } from '../../base/errors';
import { ANSWER_IN_WINDOW_MIN } from '../../contract';
import { readJsonFile, writeJsonAtomic } from '../../store/files';
import { Tokenizer, trainTokenizer } from '../../model/tokenizer';
import { resolveGPTConfig, type GPTConfig } from '../../model/gpt';
import { buildMaskedTokens, type MaskedTokens } from '../../model/mask';
import type { LoadedCheckpoint } from '../../model/checkpoint';
import { dataDir } from '../../runs/layout';
import { policyView, promptBudget, repeatAnswerTurns, turnWindows, validationQuestions } from '../policy/view';
import { answerInWindow, TURN_TOKENS } from '../policy/policy';
import { freshModelConfig, type ModelStart } from '../policy/base-model';
import { baseQaId, renamedText } from '../sft/renamed-episodes';
import type { RunData, RunInputs } from './data-phase';
import type { RftData } from './rft-phase';

export interface SftData {
  tok: Tokenizer;
  /** The tokenizer's padding id. */
  pad: number;
  /** The model's shape: the fresh model's, or the starting checkpoint's as saved. */
  gptConfig: GPTConfig;
  trainWindows: MaskedTokens[];
  valWindows: MaskedTokens[];
  /** What a run's first metrics record (step 0) says of its data: the RFT filter's report and the windows. */
  startMetrics: Record<string, number>;
}

/** Trajectories the answer-in-window share is measured on: an even spread of at most this many. */
const ANSWER_IN_WINDOW_SAMPLE = 2000;

/** The tokenizer and the windows of a run's RFT data. `start`: the starting checkpoint's weights and tokenizer, when not resuming. */
export function sftData(run: RunInputs, data: RunData, rft: RftData, origin: ModelStart, start: LoadedCheckpoint | null): SftData {
  const { ctx, config } = run;
  const qaOf = new Map(data.trainQas.map((q) => [q.id, q]));
  const views = rft.trajs.map((t) => policyView(renamedText(t)?.question ?? qaOf.get(t.qa_id)?.question ?? '', t.steps));
  const tok = tokenizerPhase(run, data, views.map((v) => v.text), start, origin);

  const gptConfig = origin.kind === 'scratch' ? freshModelConfig(config.model, tok.vocabSize) : resolveGPTConfig(origin.model);
  const turnRows: MaskedTokens[] = [];
  const valWindows: MaskedTokens[] = [];
  // A renamed episode goes where its question goes, so validation stays off the training questions' facts.
  const valQuestions = validationQuestions(rft.trajs.map((t) => baseQaId(t.qa_id)));
  views.forEach((v, i) => {
    const windows = turnWindows(buildMaskedTokens(tok, v.text, v.spans), gptConfig.blockSize, TURN_TOKENS);
    (valQuestions.has(baseQaId(rft.trajs[i]!.qa_id)) ? valWindows : turnRows).push(...windows);
  });
  const trainWindows = repeatAnswerTurns(turnRows, tok.special('<answer>'), config.sft.answerRepeat);
  if (trainWindows.length === 0) throw new LabError('conflict', 'no training windows: the RFT data is empty');
  // Measured on an even spread of the trajectories: enough for the share, cheap on large RFT sets.
  const spread = rft.trajs.filter((_, i) => i % Math.ceil(rft.trajs.length / ANSWER_IN_WINDOW_SAMPLE) === 0);
  const answerSeen = answerInWindow(
    tok,
    spread.map((t) => {
      const qa = qaOf.get(t.qa_id);
      const renamed = renamedText(t);
      if (renamed) return { ...renamed, steps: t.steps };
      return { question: qa?.question ?? '', steps: t.steps, answers: qa ? [qa.answer, ...(qa.aliases ?? [])] : [] };
    }),
    gptConfig.blockSize,
  );
  if (answerSeen < ANSWER_IN_WINDOW_MIN) {
    ctx.log(
      `warning: in ${(100 * (1 - answerSeen)).toFixed(1)}% of the RFT answer turns the answer is outside the policy's ${promptBudget(gptConfig.blockSize, TURN_TOKENS)}-token prompt window ` +
        `(model.blockSize ${gptConfig.blockSize}); a larger model.blockSize lets the policy see the evidence it must answer from`,
    );
  }
  const startMetrics = {
    'rft/kept': rft.report.kept,
    'rft/questions_kept': rft.report.questions_kept,
    ...Object.fromEntries(Object.entries(rft.report.removed).map(([k, v]) => [`rft/removed_${k}`, v])),
    'sft/train_windows': turnRows.length,
    'sft/val_windows': valWindows.length,
    'sft/answer_in_window': answerSeen,
  };
  return { tok, pad: tok.special('<|pad|>'), gptConfig, trainWindows, valWindows, startMetrics };
}

/** data/tokenizer.json: the starting checkpoint's, or BPE on the RFT text and the web's pages; a resumed run's as it is. */
function tokenizerPhase(run: RunInputs, data: RunData, rftTexts: readonly string[], start: LoadedCheckpoint | null, origin: ModelStart): Tokenizer {
  const { ctx, runId, config, clock } = run;
  const tokFile = join(dataDir(ctx.home, runId), 'tokenizer.json');
  if (!existsSync(tokFile) && start) {
    if (!start.tokenizer) throw new LabError('corrupt', `checkpoint ${origin.kind === 'scratch' ? null : origin.ref} has no tokenizer`);
    writeJsonAtomic(tokFile, start.tokenizer.toJSON());
  } else if (!existsSync(tokFile)) {
    ctx.progress({ fraction: 0, message: `training a ${config.tokenizer.vocabSize}-token BPE tokenizer` });
    clock?.begin('tokenizer');
    const corpus = [...rftTexts, ...data.web.pages.map((p) => `${p.title}\n${p.sentences.join(' ')}`)];
    writeJsonAtomic(tokFile, trainTokenizer(corpus, { vocabSize: config.tokenizer.vocabSize }).toJSON());
    clock?.soFar('tokenizer', 1);
  } else clock?.skip('tokenizer');
  return Tokenizer.fromJSON(readJsonFile(tokFile));
}
