// What a newcomer reads to tell artefacts apart: a dataset by its size, question style, role and graph
// ("1600 one-hop lookups · training · graph g12k"), a policy by what it is ("expert (oracle)", "run · step
// 2000"), and every trajectory set grouped by where it came from (a run's evaluations, RL steps and RFT
// data, comparisons, rollout jobs). Pure functions over the lists the stores hold.
import type { ArtefactRecord, DatasetInfo, RunSummary, TrajSetInfo } from '@contract';

/** How runs use datasets: each run's name and its config's data choices. */
export interface RunUse {
  id: string;
  name: string;
  data: { datasetId?: string; heldOutDatasetId?: string; rlDatasetId?: string };
}

export function runUses(runs: readonly RunSummary[]): RunUse[] {
  return runs.map((r) => ({ id: r.artefact.id, name: r.artefact.name, data: (r.artefact.info.config?.data ?? {}) as RunUse['data'] }));
}

export type DatasetRole = 'training' | 'held-out' | 'RL';
const ROLE_FIELDS: Array<[keyof RunUse['data'], DatasetRole]> = [
  ['datasetId', 'training'],
  ['heldOutDatasetId', 'held-out'],
  ['rlDatasetId', 'RL'],
];

/**
 * What a dataset is for: how runs use it (a run's training, held-out or RL questions) or, before any run does,
 * how it was made (kept off one earlier set's edges: held-out; off two, or "as many as are left": RL
 * questions, as the wizard makes them). Empty when nothing says.
 */
export function datasetRoles(d: ArtefactRecord<DatasetInfo>, runs: readonly RunUse[]): DatasetRole[] {
  const used = ROLE_FIELDS.filter(([field]) => runs.some((r) => r.data[field] === d.id)).map(([, role]) => role);
  if (used.length) return used;
  const made = datasetMadeAs(d);
  return made === 'rl' ? ['RL'] : made === 'heldOut' ? ['held-out'] : [];
}

/**
 * A question set's role as its synthesis recorded it (the wizard makes them so): an RL set keeps off two sets
 * (training and held-out) or takes what is left (`allowFewer`); a held-out set keeps off one; a training set off
 * none. Null when the dataset does not say (imported, or made outside the lab's jobs).
 */
export function datasetMadeAs(d: ArtefactRecord): 'train' | 'heldOut' | 'rl' | null {
  const p = (d.info as DatasetInfo).params;
  if (!p) return null;
  const excluded = new Set([...(p.excludeDatasetIds ?? []), ...(p.excludeDatasetId ? [p.excludeDatasetId] : [])]);
  if (p.allowFewer || excluded.size >= 2) return 'rl';
  if (excluded.size === 1) return 'heldOut';
  return 'train';
}

const HOPS = ['', 'one-hop', 'two-hop', 'three-hop'];
const hops = (n: number): string => HOPS[n] ?? `${n}-hop`;

/**
 * The kind of question a dataset asks, as a plural noun phrase: named-entity lookups (no obfuscation, every
 * question names an entity) by their hops, or WebSailor-style obfuscated questions with their levels.
 */
export function questionStyle(d: ArtefactRecord<DatasetInfo>): string {
  const p = d.info.params;
  if (!p) return 'questions';
  if (p.kinds && p.kinds.length === 0 && p.anchorProb === 1) {
    const lo = p.minEdges ?? 1;
    const hi = p.maxEdges;
    if (hi === undefined) return 'lookups';
    return `${lo === hi ? hops(hi) : `${hops(lo)} to ${hops(hi)}`} lookups`;
  }
  // ASearcher's inject/fuzz questions grow from a lookup; they are not subgraph obfuscations.
  const what = p.generator === 'asearcher' ? 'ASearcher questions' : 'obfuscated questions';
  const levels = Object.keys(d.info.stats?.levels ?? {})
    .map(Number)
    .filter((n) => Number.isFinite(n))
    .sort((a, b) => a - b);
  if (!levels.length) return what;
  const span = levels.length === 1 ? `level ${levels[0]}` : `levels ${levels[0]}–${levels.at(-1)}`;
  return `${what} (${span})`;
}

/** Questions in a dataset as synthesis recorded them (published), else as requested or imported. */
export function datasetCount(d: ArtefactRecord<DatasetInfo>): number | null {
  return d.info.stats?.published ?? d.info.params?.count ?? d.info.count ?? null;
}

/**
 * Why a set holds fewer questions than asked, in words ("264 of 300 asked: …"); null when it holds them all.
 * An RL set takes what is left of the graph's facts off the earlier sets' edges (`allowFewer`).
 */
export function datasetShortfall(d: ArtefactRecord<DatasetInfo>): string | null {
  const asked = d.info.params?.count;
  const got = d.info.stats?.published;
  if (asked === undefined || got === undefined || got >= asked) return null;
  const why = d.info.params?.allowFewer
    ? 'the graph has no more facts of this shape off the earlier sets’ edges (an RL set takes what is left)'
    : 'synthesis could verify no more on this graph';
  return `${got} of ${asked} asked: ${why}`;
}

/**
 * "1600 one-hop lookups · training · graph g12k": size and style, role, and graph (by name; left out when
 * `graphName` is null, where the graph is said elsewhere). A set that came out short says so ("264 of 300").
 */
export function datasetLabel(d: ArtefactRecord<DatasetInfo>, runs: readonly RunUse[], graphName?: ((id: string) => string | undefined) | null): string {
  const n = datasetCount(d);
  const short = datasetShortfall(d) ? ` of ${d.info.params!.count}` : '';
  const what = `${n ?? '?'}${short} ${n === 1 ? questionStyle(d).replace(/s( \(|$)/, '$1') : questionStyle(d)}`;
  const roles = datasetRoles(d, runs);
  const gName = d.info.graphId && graphName !== null ? (graphName?.(d.info.graphId) ?? d.info.graphId) : '';
  // A graph's default name already starts with "graph" ("graph rng 7, 300 edges").
  const g = !gName || /^graph\b/i.test(gName) ? gName : `graph ${gName}`;
  const named = d.info.params?.name || !d.info.params ? d.name : '';
  return [named, what, roles.join(', '), g].filter(Boolean).join(' · ');
}

/** A policy spec in words: the expert, the base model, an untrained model, a run's checkpoint by name and step. */
export function policyLabel(spec: string, runName?: (id: string) => string | undefined, endpointName?: (spec: string) => string | undefined): string {
  if (spec.startsWith('endpoint:')) return `endpoint · ${endpointName?.(spec) ?? spec.slice('endpoint:'.length)}`;
  if (spec === 'oracle' || spec === 'expert') return 'expert (oracle)';
  if (spec === 'base') return 'base model';
  if (spec === 'untrained' || spec.startsWith('untrained:')) return 'untrained model';
  const ck = /^ckpt:(.+)\/(\d+|last)$/.exec(spec);
  if (ck) return `${runName?.(ck[1]!) ?? ck[1]} · ${ck[2] === 'last' ? 'last checkpoint' : `step ${ck[2]}`}`;
  return spec;
}

export interface SetOption {
  id: string;
  label: string;
}
export interface SetGroup {
  label: string;
  sets: SetOption[];
}

type SetRecord = ArtefactRecord<TrajSetInfo>;

const RUN_SET_ORDER = { rft: 0, relabel: 1, eval: 2, rl: 3 } as const;

/** A run's own set in its group: "evaluation at step 2000 · held-out questions". */
function runSetLabel(a: SetRecord): string {
  if (a.info.kind === 'rft') return 'RFT data: the expert demonstrations SFT trained on';
  if (a.info.kind === 'rl') return `RL rollouts at step ${a.info.step}`;
  if (a.info.kind === 'relabel') return `relabeling round ${a.info.step}: the expert's label beside each action`;
  return `evaluation at step ${a.info.step} · held-out questions`;
}

export interface SetContext {
  runName: (id: string) => string | undefined;
  datasetName: (id: string) => string | undefined;
  comparisonName: (id: string) => string | undefined;
}

/**
 * Every trajectory set in groups a newcomer can find things in: one group per run (RFT data, relabeling rounds,
 * then its evaluations and RL steps by step), then comparisons (each checkpoint's set), then rollout jobs (policy on
 * dataset). Runs keep the list's order (newest first).
 */
export function groupTrajSets(list: readonly SetRecord[], ctx: SetContext): SetGroup[] {
  const byRun = new Map<string, SetRecord[]>();
  const compared: SetOption[] = [];
  const rollouts: SetOption[] = [];
  for (const a of list) {
    const runId = a.info.runId;
    if (runId && a.info.kind) {
      (byRun.get(runId) ?? byRun.set(runId, []).get(runId)!).push(a);
    } else if (a.info.comparisonId) {
      const policy = a.info.policy ? policyLabel(a.info.policy, ctx.runName) : a.name;
      compared.push({ id: a.id, label: `${policy} · in ${ctx.comparisonName(a.info.comparisonId) ?? 'a comparison'}` });
    } else {
      rollouts.push({ id: a.id, label: rolloutLabel(a, ctx) });
    }
  }
  const groups: SetGroup[] = [...byRun].map(([runId, sets]) => ({
    label: `Run ${ctx.runName(runId) ?? runId}`,
    sets: [...sets]
      .sort((x, y) => RUN_SET_ORDER[x.info.kind!] - RUN_SET_ORDER[y.info.kind!] || (x.info.step ?? 0) - (y.info.step ?? 0))
      .map((a) => ({ id: a.id, label: runSetLabel(a) })),
  }));
  if (compared.length) groups.push({ label: 'Comparisons', sets: compared });
  if (rollouts.length) groups.push({ label: 'Rollouts', sets: rollouts });
  return groups;
}

/** A rollout job's set: its own name when given, else "expert (oracle) on 30 held-out lookups × 2". */
function rolloutLabel(a: SetRecord, ctx: SetContext): string {
  if (a.info.params?.name) return a.info.params.name;
  const policy = a.info.policy ?? a.info.params?.policy;
  const dataset = a.info.datasetId ? (ctx.datasetName(a.info.datasetId) ?? a.info.datasetId) : null;
  if (!policy || !dataset) return a.name;
  const n = a.info.n ?? 1;
  return `${policyLabel(policy, ctx.runName)} on ${dataset}${n > 1 ? ` × ${n}` : ''}`;
}

/** The set's label as its group shows it, with the group's name before it (for the open set's heading). */
export function trajSetTitle(id: string, groups: readonly SetGroup[]): string | null {
  for (const g of groups) {
    const s = g.sets.find((x) => x.id === id);
    if (s) return g.label.startsWith('Run ') ? `${g.label.slice(4)} · ${s.label}` : s.label;
  }
  return null;
}
