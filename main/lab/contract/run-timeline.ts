// A run's progress and time left over every stage, by time rather than by step count: SFT step 3000 of 3000
// with 40 RL steps still to come is not 99 % done when RL takes a third of the run. Each stage's work is
// counted in its own units (expert rollouts, SFT steps, evaluation episodes, filter rollouts, RL steps); a
// stage's rate is what the run itself measured as soon as it has, before that the wizard's estimate (scaled by
// how far the run's measured policy episodes are from the estimate's), before that unknown. Pure.

export const STAGE_KEYS = ['rft', 'tokenizer', 'sft', 'eval', 'filter', 'rl'] as const;
export type StageKey = (typeof STAGE_KEYS)[number];

export const STAGE_LABELS: Record<StageKey, string> = {
  rft: 'RFT data',
  tokenizer: 'tokenizer',
  sft: 'SFT',
  eval: 'evaluations',
  filter: 'too-easy filter',
  rl: 'RL steps',
};

/** One stage's work in its own units. */
export interface StagePlan {
  key: StageKey;
  units: number;
  /** What one unit is, for the detail line ("SFT steps", "episodes"). */
  unit: string;
  /** Policy episodes in one unit (an RL step's rollouts): without an estimate, a unit costs that many evaluation episodes. */
  episodes?: number;
}

/** The counts a plan needs besides the config: the run's actual question sets. */
export interface PlanCounts {
  trainQuestions: number;
  heldOutQuestions: number;
  /** The RL set's questions (the training set's when the run has no RL set). */
  rlQuestions: number;
  /** Whether the run trains its own tokenizer (a fresh model; the base model and checkpoints bring theirs). */
  trainsTokenizer: boolean;
}

/** The parts of a run config a plan reads (RunConfig has them all). */
export interface PlanConfig {
  sft: { steps: number };
  eval: { every: number; questions: number; samples: number };
  rft: { attempts: number; forcedAnswers: boolean };
  rl?: { steps: number; batchQuestions: number; groupSize: number; evalEvery: number; algorithm: string; dropTooEasy: boolean; pool: string };
}

/** Evaluations a stage of `steps` steps runs with an eval every `every` steps and one at the end. */
export function evalCount(steps: number, every: number): number {
  if (steps <= 0) return 0;
  return Math.floor(steps / every) + (steps % every === 0 ? 0 : 1);
}

/** The questions DUPO's too-easy filter passes over: the fixed pool, at most steps × batchQuestions of the RL set. */
export function filterQuestions(c: PlanConfig, rlQuestions: number): number {
  const rl = c.rl;
  if (!rl || rl.algorithm !== 'dupo' || !rl.dropTooEasy || rl.pool !== 'fixed') return 0;
  return Math.min(rlQuestions, rl.steps * rl.batchQuestions);
}

/** Every stage of a run with its work; stages without work are left out. A run from a checkpoint (sft.steps 0) has no RFT data. */
export function planStages(c: PlanConfig, n: PlanCounts): StagePlan[] {
  const episodesPerEval = Math.min(c.eval.questions, n.heldOutQuestions) * c.eval.samples;
  const plan: StagePlan[] = [];
  if (c.sft.steps > 0) {
    plan.push({ key: 'rft', units: n.trainQuestions * (c.rft.attempts + (c.rft.forcedAnswers ? 1 : 0)), unit: 'expert rollouts' });
    if (n.trainsTokenizer) plan.push({ key: 'tokenizer', units: 1, unit: 'tokenizer' });
    plan.push({ key: 'sft', units: c.sft.steps, unit: 'SFT steps' });
  }
  const evals = evalCount(c.sft.steps, c.eval.every) + (c.rl ? evalCount(c.rl.steps, c.rl.evalEvery) : 0);
  plan.push({ key: 'eval', units: evals * episodesPerEval, unit: 'evaluation episodes' });
  if (c.rl) {
    const pool = filterQuestions(c, n.rlQuestions);
    if (pool > 0) plan.push({ key: 'filter', units: pool * c.rl.groupSize, unit: 'filter rollouts' });
    plan.push({ key: 'rl', units: c.rl.steps, unit: 'RL steps', episodes: c.rl.batchQuestions * c.rl.groupSize });
  }
  return plan.filter((s) => s.units > 0);
}

/** Seconds per unit of each stage. */
export type StageRates = Partial<Record<StageKey, number>>;

/** What the run has done of a stage and the seconds it measured doing it. */
export interface StageDone {
  units: number;
  seconds: number;
  /** Of `units`, those done before this job (a resumed run): counted as done, not timed. */
  untimed?: number;
}

/** Units a measured rate needs before it replaces the estimate's (one SFT step or one episode says little). */
export const MIN_MEASURED: Record<StageKey, number> = { rft: 20, tokenizer: 1, sft: 5, eval: 20, filter: 20, rl: 1 };

export interface StageTime {
  key: StageKey;
  label: string;
  units: number;
  done: number;
  /** Seconds per unit used for what is left; null when neither measured nor estimated. */
  rate: number | null;
  basis: 'measured' | 'estimate' | 'unknown';
  /** The stage's whole time: measured seconds for the done part plus the rate times what is left. */
  totalSeconds: number | null;
  leftSeconds: number | null;
}

export interface Timeline {
  stages: StageTime[];
  /** Time done over the whole run's time (0..1); null while a stage with work left has no rate. */
  fraction: number | null;
  secondsLeft: number | null;
}

function measuredRate(d: StageDone | undefined, key: StageKey): number | null {
  const timed = d ? d.units - (d.untimed ?? 0) : 0;
  return d && timed >= MIN_MEASURED[key] && d.seconds > 0 ? d.seconds / timed : null;
}

/**
 * How far the run runs from its estimate over the stages it has measured: their measured seconds over what the
 * estimate's rates said for the same units (1 with none). The warm-up is a few seconds of samples, often taken
 * while other work held the cores; the run's own SFT steps say at once how far off it was for every stage.
 */
export function paceScale(done: Partial<Record<StageKey, StageDone>>, prior: StageRates, keys: readonly StageKey[] = STAGE_KEYS): number {
  let measured = 0;
  let estimated = 0;
  for (const k of keys) {
    const d = done[k];
    const timed = d ? d.units - (d.untimed ?? 0) : 0;
    if (!d || prior[k] === undefined || measuredRate(d, k) === null) continue;
    measured += d.seconds;
    estimated += prior[k]! * timed;
  }
  return measured > 0 && estimated > 0 ? measured / estimated : 1;
}

/**
 * The rate for each stage: the run's own once it has measured enough units; else the estimate's, scaled by how
 * far the run runs from it: policy-episode stages (filter, RL) by measured ÷ estimated evaluation episodes once
 * evaluations are measured (RL steps are mostly rollouts), every stage by the measured stages together before
 * that (paceScale); else, without an estimate, a filter rollout at an evaluation episode's rate and an RL step at
 * its rollouts' (`rlEpisodes` per step). Null: not known yet.
 */
export function stageRates(done: Partial<Record<StageKey, StageDone>>, prior: StageRates, rlEpisodes = 0): Record<StageKey, { rate: number | null; basis: StageTime['basis'] }> {
  const measured = Object.fromEntries(STAGE_KEYS.map((k) => [k, measuredRate(done[k], k)])) as Record<StageKey, number | null>;
  const pace = paceScale(done, prior);
  const episodeScale = measured.eval !== null && prior.eval ? measured.eval / prior.eval : pace;
  const out = {} as Record<StageKey, { rate: number | null; basis: StageTime['basis'] }>;
  for (const k of STAGE_KEYS) {
    const own = measured[k];
    const fromEpisodes = measured.eval === null ? null : k === 'filter' ? measured.eval : k === 'rl' && rlEpisodes > 0 ? rlEpisodes * measured.eval : null;
    const estimate = prior[k] !== undefined ? prior[k]! * (k === 'filter' || k === 'rl' ? episodeScale : pace) : fromEpisodes;
    out[k] = own !== null ? { rate: own, basis: 'measured' } : estimate !== null ? { rate: estimate, basis: 'estimate' } : { rate: null, basis: 'unknown' };
  }
  return out;
}

/** Each stage's time and the run's fraction done and time left, by time. */
export function timeline(plan: readonly StagePlan[], done: Partial<Record<StageKey, StageDone>>, prior: StageRates): Timeline {
  const rates = stageRates(done, prior, plan.find((p) => p.key === 'rl')?.episodes ?? 0);
  const stages: StageTime[] = plan.map((p) => {
    const d = done[p.key] ?? { units: 0, seconds: 0 };
    const units = Math.max(p.units, d.units);
    const left = Math.max(0, units - d.units);
    const { rate, basis } = rates[p.key];
    const leftSeconds = left === 0 ? 0 : rate === null ? null : left * rate;
    const totalSeconds = leftSeconds === null ? null : d.seconds + leftSeconds;
    return { key: p.key, label: STAGE_LABELS[p.key], units, done: Math.min(d.units, units), rate, basis, totalSeconds, leftSeconds };
  });
  if (stages.some((s) => s.leftSeconds === null)) return { stages, fraction: null, secondsLeft: null };
  const total = stages.reduce((a, s) => a + s.totalSeconds!, 0);
  const left = stages.reduce((a, s) => a + s.leftSeconds!, 0);
  return { stages, fraction: total > 0 ? Math.min(1, Math.max(0, 1 - left / total)) : 0, secondsLeft: left };
}

/** Seconds per unit of each stage from an estimate's parts (their seconds over the plan's units). */
export function ratesFromParts(plan: readonly StagePlan[], parts: ReadonlyArray<{ key?: StageKey; seconds: number }>): StageRates {
  const out: StageRates = {};
  for (const p of plan) {
    const seconds = parts.filter((x) => x.key === p.key).reduce((a, x) => a + x.seconds, 0);
    if (p.units > 0 && parts.some((x) => x.key === p.key)) out[p.key] = seconds / p.units;
  }
  return out;
}
