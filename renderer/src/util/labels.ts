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

/**
 * Labels that can be told apart: where several items share a label, each gets the facets that differ among
 * them, in the order given, as few as tell them apart ("· rng 3" vs "· rng 4", else "· graph …", else the date
 * made), and a number ("#2", oldest first) when nothing does. Items with a label of their own keep it.
 */
export function distinctLabels<T>(items: readonly T[], label: (x: T) => string, facets: ReadonlyArray<(x: T) => string | undefined>): string[] {
  const labels = items.map(label);
  const groups = new Map<string, number[]>();
  labels.forEach((l, i) => void (groups.get(l) ?? groups.set(l, []).get(l)!).push(i));
  const out = [...labels];
  for (const [l, idx] of groups) {
    if (idx.length < 2) continue;
    const suffix = (i: number, fs: typeof facets): string => fs.map((f) => f(items[i]!)).filter(Boolean).join(' · ');
    const apart = (fs: typeof facets): boolean => new Set(idx.map((i) => suffix(i, fs))).size === idx.length;
    const used: Array<(x: T) => string | undefined> = [];
    for (const f of facets) {
      if (apart(used)) break;
      if (new Set(idx.map((i) => f(items[i]!))).size > 1) used.push(f);
    }
    const numbered = !apart(used);
    idx.forEach((i, k) => {
      const parts = [suffix(i, used), numbered ? `#${idx.length - k}` : ''].filter(Boolean);
      out[i] = [l, ...parts].join(' · ');
    });
  }
  return out;
}

/** When an artefact was made, to tell two alike apart: "made 28 Nov 15:02" (UTC, the same on every screen). */
export function madeOn(createdAt: string): string | undefined {
  const d = new Date(createdAt);
  if (Number.isNaN(d.getTime())) return undefined;
  return `made ${d.toLocaleString('en-GB', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }).replace(',', '')}`;
}

/**
 * Every dataset's label (datasetLabel) by id, made distinct where two would read alike (the same size, style
 * and role: "300 one-hop lookups · RL" twice) by their synthesis seed, their graph, then when they were made.
 */
export function datasetLabels(list: readonly ArtefactRecord<DatasetInfo>[], runs: readonly RunUse[], graphName?: ((id: string) => string | undefined) | null): Map<string, string> {
  const facets = [
    (d: ArtefactRecord<DatasetInfo>) => (d.info.params?.rng !== undefined ? `rng ${d.info.params.rng}` : undefined),
    (d: ArtefactRecord<DatasetInfo>) => (d.info.graphId ? `graph ${graphName?.(d.info.graphId)?.replace(/^graph\s+/i, '') ?? d.info.graphId}` : undefined),
    (d: ArtefactRecord<DatasetInfo>) => madeOn(d.createdAt),
  ];
  const labels = distinctLabels(list, (d) => datasetLabel(d, runs, graphName), facets);
  return new Map(list.map((d, i) => [d.id, labels[i]!]));
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
  /** A saved endpoint's name by its policy spec (`endpoint:<id>`), where it is known. */
  endpointName?: (spec: string) => string | undefined;
}

/** Text with each `endpoint:<id>` policy spec in it (a comparison's default name) given as the endpoint's name. */
export function withEndpointNames(text: string, endpointName: (spec: string) => string | undefined): string {
  return text.replace(/endpoint:[A-Za-z0-9._:-]+?(?=$|\s|,)/g, (spec) => endpointName(spec) ?? spec);
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
      const policy = a.info.policy ? policyLabel(a.info.policy, ctx.runName, ctx.endpointName) : a.name;
      const comparison = ctx.comparisonName(a.info.comparisonId);
      const named = comparison && ctx.endpointName ? withEndpointNames(comparison, ctx.endpointName) : comparison;
      compared.push({ id: a.id, label: `${policy} · in ${named ?? 'a comparison'}` });
    } else {
      rollouts.push({ id: a.id, label: rolloutLabel(a, ctx) });
    }
  }
  // Each of a run's sets names the run too: a closed picker shows the option alone, not its group
  // ("RL rollouts at step 5" of which run? issue 45, part 2, point 5).
  const groups: SetGroup[] = [...byRun].map(([runId, sets]) => {
    const run = ctx.runName(runId) ?? runId;
    return {
      label: `Run ${run}`,
      sets: [...sets]
        .sort((x, y) => RUN_SET_ORDER[x.info.kind!] - RUN_SET_ORDER[y.info.kind!] || (x.info.step ?? 0) - (y.info.step ?? 0))
        .map((a) => ({ id: a.id, label: `${run} · ${runSetLabel(a)}` })),
    };
  });
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
  return `${policyLabel(policy, ctx.runName, ctx.endpointName)} on ${dataset}${n > 1 ? ` × ${n}` : ''}`;
}

/** The set's label as its group shows it (a run's sets carry the run's name already), for the open set's heading. */
export function trajSetTitle(id: string, groups: readonly SetGroup[]): string | null {
  for (const g of groups) {
    const s = g.sets.find((x) => x.id === id);
    if (s) return s.label;
  }
  return null;
}
