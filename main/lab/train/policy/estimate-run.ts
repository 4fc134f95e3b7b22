// The wizard's duration estimate as arithmetic: the warm-up's measurements (act/estimate.ts measures them) and
// the config give each part's seconds. Pure, and here below the stages, so a running run re-estimates its own
// remaining stages with it (run-clock.ts) as the wizard does before launch.
import type { RunConfig } from '../../contract/run-config';
import type { EstimatePart, RunEstimate, RunMeasurements } from '../../contract';
import { evalCount, filterQuestions } from '../../contract/run-timeline';
import { startsFresh } from './base-model';
import { EPISODES_IN_FLIGHT } from './eval-setup';

/** The duration of a run from its config and the warm-up's measurements. Pure. */
export function estimateRun(config: RunConfig, m: RunMeasurements): RunEstimate {
  const evalTrajectories = Math.min(config.eval.questions, m.heldOutQuestions) * config.eval.samples;
  const turns = Math.min(m.turnsPerTrajectory, config.env.maxToolCalls + 1);
  const rollout = turns * m.turnSeconds; // one rollout of the policy
  const parts: EstimatePart[] = [];
  if (config.sft.steps > 0) {
    // RFT data and SFT (RL-only runs from a checkpoint have none); the tokenizer unless a checkpoint or the base model brings it.
    const rftRollouts = m.trainQuestions * (config.rft.attempts + (config.rft.forcedAnswers ? 1 : 0));
    const evals = evalCount(config.sft.steps, config.eval.every);
    parts.push(
      { stage: 'sft', key: 'rft', label: 'RFT data', seconds: rftRollouts * m.rolloutSeconds, detail: `${rftRollouts} expert rollouts` },
      ...(!startsFresh(config) ? [] : [{ stage: 'sft' as const, key: 'tokenizer' as const, label: 'tokenizer', seconds: m.tokenizerSeconds, detail: `${config.tokenizer.vocabSize}-token BPE` }]),
      { stage: 'sft', key: 'sft', label: 'SFT', seconds: config.sft.steps * m.stepSeconds, detail: `${config.sft.steps} steps × ${fmt(m.stepSeconds)} s` },
      { stage: 'sft', key: 'eval', label: 'evaluation', seconds: evals * evalTrajectories * rollout, detail: `${evals} × ${evalTrajectories} rollouts × ~${fmt(turns)} turns × ${fmt(m.turnSeconds)} s` },
    );
  }
  if (config.rl) {
    const rl = config.rl;
    const perStep = rl.batchQuestions * rl.groupSize;
    // DUPO filters its question pool (at most steps × batchQuestions questions) once with the starting policy
    // (the data-policy loop's frontier pool judges questions as it plays them instead).
    const pool = filterQuestions(config, m.rlQuestions ?? m.trainQuestions);
    if (pool > 0) {
      parts.push({ stage: 'rl', key: 'filter', label: 'too-easy filter', seconds: pool * rl.groupSize * rollout, detail: `${pool} questions × G ${rl.groupSize}, once` });
    }
    parts.push({ stage: 'rl', key: 'rl', label: 'RL rollouts', seconds: rl.steps * perStep * rollout, detail: `${rl.steps} steps × ${perStep} rollouts × ~${fmt(turns)} turns` });
    // An update trains on one window per generated turn; an SFT step of batchSize windows is the unit.
    const windows = perStep * turns;
    parts.push({
      stage: 'rl',
      key: 'rl',
      label: 'RL updates',
      seconds: rl.steps * rl.updatesPerBatch * (windows / config.sft.batchSize) * m.stepSeconds,
      detail: `${rl.steps} × ${rl.updatesPerBatch} update${rl.updatesPerBatch === 1 ? '' : 's'} of ~${Math.round(windows)} windows`,
    });
    const evals = evalCount(rl.steps, rl.evalEvery);
    parts.push({ stage: 'rl', key: 'eval', label: 'RL evaluation', seconds: evals * evalTrajectories * rollout, detail: `${evals} × ${evalTrajectories} rollouts` });
  }
  const totalSeconds = parts.reduce((a, p) => a + p.seconds, 0);
  const dapo = config.rl?.algorithm === 'dapo' ? '; DAPO refills add rollouts not counted here' : '';
  // A busy machine makes single samples swing: the range is the total at the fastest and the slowest sample.
  const sp = m.spread;
  const at = (i: 0 | 1): number => estimateRun(config, { ...m, stepSeconds: sp!.stepSeconds[i], turnSeconds: sp!.turnSeconds[i], spread: undefined }).totalSeconds;
  return {
    totalSeconds,
    parts,
    measured: m,
    ...(sp ? { range: [at(0), at(1)] as [number, number] } : {}),
    basis: `measured just now on ${m.backend}: medians of SFT steps and of batches of ${EPISODES_IN_FLIGHT} policy turns, expert rollouts; turns per trajectory from the expert${dapo}`,
  };
}

function fmt(x: number): string {
  return x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(1) : x.toFixed(2);
}
