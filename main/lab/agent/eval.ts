// Evaluation (docs/pipeline.md, 'Evaluation') over n sampled trajectories per question: pass@1 (mean
// accuracy), pass@k with the unbiased estimator of Chen et al. (2021), avg@k (ASearcher), cons@k (majority
// answer, WebDancer), and the behaviour statistics people compare (tool calls per type, turns, tokens,
// terminations), for all questions and restricted to the solved ones (at least one correct sample). Pure functions.
import type { TrajBehaviour, TrajEval } from '../contract';
import { isInfrastructureFailure, type Termination, type Trajectory } from '../formats/index';
import type { AgentStep } from './react';
import { normalizeAnswer } from './text';
import { toolCallsByName } from './runtime';
import { passAtK, passAtKCurve, type PassAtKPoint } from '../contract/stats';
import { isCorrect } from '../contract/correct';

export interface EvalSample {
  qa_id: string;
  correct: boolean;
  prediction: string | null;
  termination: Termination;
  tool_calls: Record<string, number>; // per tool name
  turns: number;
  tokens: number; // generated tokens
}

/** Unbiased pass@k (Chen et al. 2021): the contract's, shared with the renderer's headroom curve. */
export { passAtK } from '../contract/stats';

/** The most frequent normalised prediction among samples (nulls ignored); ties go to the earliest. */
export function majority(samples: readonly Pick<EvalSample, 'prediction'>[]): number {
  const counts = new Map<string, { n: number; first: number }>();
  samples.forEach((s, i) => {
    if (s.prediction === null) return;
    const key = normalizeAnswer(s.prediction);
    if (key === '') return;
    const c = counts.get(key);
    if (c) c.n++;
    else counts.set(key, { n: 1, first: i });
  });
  let best: { n: number; first: number } | null = null;
  for (const c of counts.values()) if (!best || c.n > best.n || (c.n === best.n && c.first < best.first)) best = c;
  return best ? best.first : -1;
}

/** Behaviour of a set of trajectories: the contract's type, since clients read the report as it is made here. */
export type BehaviourStats = TrajBehaviour;
/** What `evaluate` reports (the contract's TrajEval: a trajectory set's header and `trajectories.get` carry it). */
export type EvalReport = TrajEval;

const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

export function behaviour(samples: readonly EvalSample[]): BehaviourStats {
  const types = new Set(samples.flatMap((s) => Object.keys(s.tool_calls)));
  const byType: Record<string, number> = {};
  for (const t of [...types].sort()) byType[t] = mean(samples.map((s) => s.tool_calls[t] ?? 0));
  const term: Partial<Record<Termination, number>> = {};
  for (const s of samples) term[s.termination] = (term[s.termination] ?? 0) + 1;
  for (const key of Object.keys(term) as Termination[]) term[key] = term[key]! / samples.length;
  return {
    trajectories: samples.length,
    tool_calls_mean: mean(samples.map((s) => Object.values(s.tool_calls).reduce((a, b) => a + b, 0))),
    tool_calls_by_type: byType,
    turns_mean: mean(samples.map((s) => s.turns)),
    tokens_mean: mean(samples.map((s) => s.tokens)),
    termination: term,
  };
}

/** Groups samples by question, keeping their order (the order sampled = the order for avg@k, cons@k). */
export function groupByQuestion(samples: readonly EvalSample[]): Map<string, EvalSample[]> {
  const groups = new Map<string, EvalSample[]>();
  for (const s of samples) (groups.get(s.qa_id) ?? groups.set(s.qa_id, []).get(s.qa_id)!).push(s);
  return groups;
}

/**
 * The report over the samples the model answered: an episode that failed on the infrastructure (policy_error,
 * tool_error: a server down, a checkpoint that did not load) says nothing about the model, so it is left out of
 * every rate and counted apart (`infrastructure_failures`); `all` still shows how every sample ended.
 */
export function evaluate(samples: readonly EvalSample[], k: number): EvalReport {
  const scored = samples.filter((s) => !isInfrastructureFailure(s.termination));
  const groups = groupByQuestion(scored);
  const p1: number[] = [];
  const pk: number[] = [];
  const avg: number[] = [];
  const cons: number[] = [];
  const solved: EvalSample[] = [];
  let solvedQuestions = 0;
  for (const g of groups.values()) {
    const c = g.filter((s) => s.correct).length;
    p1.push(c / g.length);
    pk.push(passAtK(g.length, c, k));
    const firstK = g.slice(0, k);
    avg.push(firstK.filter((s) => s.correct).length / firstK.length);
    const m = majority(firstK);
    cons.push(m >= 0 && firstK[m]!.correct ? 1 : 0);
    if (c > 0) {
      solvedQuestions++;
      solved.push(...g);
    }
  }
  return {
    questions: groups.size,
    samples: samples.length,
    k,
    'pass@1': mean(p1),
    'pass@k': mean(pk),
    'avg@k': mean(avg),
    'cons@k': mean(cons),
    all: behaviour(samples),
    solved: { questions: solvedQuestions, ...behaviour(solved) },
    infrastructure_failures: samples.length - scored.length,
  };
}

/**
 * The headroom curve of a sample set: pass@k for k = 1, 2, 4, ... n, each question estimated from its own n
 * samples (how far RL's reweighting of what the policy samples could lift pass@1, docs/learning.md 4b).
 */
export function headroomCurve(samples: readonly EvalSample[]): PassAtKPoint[] {
  return passAtKCurve([...groupByQuestion(samples).values()].map((g) => ({ n: g.length, correct: g.filter((s) => s.correct).length })));
}

/** A trajectory as an eval sample: correct as the contract's `isCorrect` judges its answer reward. */
export function sampleFromTrajectory(t: Trajectory): EvalSample {
  return {
    qa_id: t.qa_id,
    correct: isCorrect(t.reward),
    prediction: t.prediction,
    termination: t.termination,
    tool_calls: toolCallsByName(t.steps as AgentStep[]),
    turns: t.steps.length,
    tokens: t.tokens.generated,
  };
}

/** The Wilson score interval of a success rate (the contract's, shared with the renderer's Compare). */
export { wilsonInterval } from '../contract/stats';
