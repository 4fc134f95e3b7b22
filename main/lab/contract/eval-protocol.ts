// How a checkpoint is evaluated: which questions (a dataset, its first N), how many samples per question, at
// which temperature and with which seed. A run's in-run evaluation has one (its config's `eval` and held-out
// set); the `compare` job takes the first checkpoint's run's by default, so the same checkpoint scores the same
// pass@1 on the dashboard and in Compare. Where a comparison asks otherwise, `protocolDifferences` says how, in
// the user's words. No imports beyond types: the renderer bundles this file.

export interface EvalProtocol {
  /** The questions: a dataset id (a run's held-out set). */
  datasetId: string;
  /** Its first N questions. */
  questions: number;
  /** Attempts per question (the k of pass@k). */
  samples: number;
  /** 0: greedy. */
  temperature: number;
  /** The seed every attempt's stream derives from (a run's `rng`; each attempt's seed is `eval/<rng>/<qa>/<sample>`). */
  rng: number;
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const num = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

/**
 * The in-run evaluation protocol of a run's config (parsed, defaults in; read loosely so a renderer's copy of an
 * older config also works): its held-out set, `eval.questions`, `eval.samples`, `eval.temperature` and `rng`.
 * Null when the config names no held-out set.
 */
export function runEvalProtocol(config: unknown): EvalProtocol | null {
  if (!isObj(config)) return null;
  const data = isObj(config.data) ? config.data : {};
  const ev = isObj(config.eval) ? config.eval : {};
  if (typeof data.heldOutDatasetId !== 'string') return null;
  return {
    datasetId: data.heldOutDatasetId,
    questions: num(ev.questions, 300),
    samples: num(ev.samples, 1),
    temperature: num(ev.temperature, 0),
    rng: num(config.rng, 0),
  };
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
const temp = (t: number): string => (t === 0 ? 'greedily' : `at T ${t}`);

/**
 * How `used` differs from the dashboard's evaluation `dashboard`, one phrase per difference ("sampled at T 0.7,
 * the dashboard evaluates greedily"); empty when they are the same protocol. `available`: the dataset's size,
 * when known (asking for more questions than it has asks for all of them, as the dashboard does).
 */
export function protocolDifferences(dashboard: EvalProtocol, used: EvalProtocol, names: { dataset?: (id: string) => string; available?: number } = {}): string[] {
  const out: string[] = [];
  const name = names.dataset ?? ((id: string) => id);
  const sameSet = used.datasetId === dashboard.datasetId;
  if (!sameSet) out.push(`questions from ${name(used.datasetId)}, the dashboard evaluates on the run's held-out set ${name(dashboard.datasetId)}`);
  const cap = (q: number): number => (sameSet && names.available ? Math.min(q, names.available) : q);
  if (sameSet && cap(used.questions) !== cap(dashboard.questions)) out.push(`${plural(cap(used.questions), 'question')}, the dashboard asks ${cap(dashboard.questions)}`);
  if (used.temperature !== dashboard.temperature) {
    out.push(used.temperature === 0 ? `greedy, the dashboard samples ${temp(dashboard.temperature)}` : `sampled ${temp(used.temperature)}, the dashboard evaluates ${temp(dashboard.temperature)}`);
  }
  if (used.samples !== dashboard.samples) out.push(`${plural(used.samples, 'sample')} per question, the dashboard draws ${dashboard.samples}`);
  if (used.rng !== dashboard.rng) out.push(`seed ${used.rng}, the dashboard uses the run's seed ${dashboard.rng}`);
  return out;
}
