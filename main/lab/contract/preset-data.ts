// Which preset a run is, from its config and the question sets it trains and evaluates on: the presets share
// their run config but for a few fields (the curriculum's is the quick preset's with an RL stage), so the data
// tells them apart. A question set's shape is what its synthesis recorded (count, edges per question, style);
// its seed is free, as the presets were measured over several. The wizard picks only sets of the preset's shape;
// the dashboard places a run against its own preset's figures, or none.
import type { SynthParams } from './jobs';
import { WIZARD_PRESETS, presetConfigDifferences, type PresetId, type WizardPreset } from './presets';
import { isFreeConfigPath, presetDifferences, type PresetQuestions } from './quick-preset';
import { QUESTION_STYLES } from './question-styles';
import { checkRunConfig } from './run-config';

export type ShapeDifference = 'count' | 'edges' | 'style';

/** How a question set's recorded synthesis differs in shape from a preset's form ([] when it does not). */
export function questionShapeDifferences(p: Partial<SynthParams>, q: PresetQuestions): ShapeDifference[] {
  const out: ShapeDifference[] = [];
  if (p.count !== q.count) out.push('count');
  if ((p.minEdges ?? 1) !== (q.minEdges ?? 1) || p.maxEdges !== q.maxEdges) out.push('edges');
  const lookup = QUESTION_STYLES.lookup.params;
  const isLookup = Array.isArray(p.kinds) && p.kinds.length === 0 && p.anchorProb === lookup.anchorProb && p.generator !== 'asearcher';
  if (isLookup !== (q.style === 'lookup')) out.push('style');
  return out;
}

/** A run's question sets as their synthesis recorded them; undefined where not known (imported, deleted, none). */
export interface DataParams {
  train?: Partial<SynthParams>;
  heldOut?: Partial<SynthParams>;
}

/** Whether the known question sets could be the preset's (a set not known says nothing against it). */
export function dataFitsPreset(d: DataParams, p: WizardPreset): boolean {
  return (['train', 'heldOut'] as const).every((k) => !d[k] || questionShapeDifferences(d[k], p.data[k]).length === 0);
}

/** The dotted paths of a config's values (an empty section has none). */
const leafPaths = (x: unknown, prefix = ''): string[] =>
  typeof x === 'object' && x !== null && !Array.isArray(x) ? Object.entries(x).flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k)) : [prefix];

/**
 * Whether a run config is the preset's: the quick preset's own rule (presetDifferences) for it; for another,
 * that rule less the fields the preset sets itself, and those set as it sets them (how long it trains, how often
 * it evaluates and saves stay free).
 */
export function configFitsPreset(config: unknown, p: WizardPreset): boolean {
  if (p.id === 'quick') return presetDifferences(config).length === 0;
  // An empty section (the curriculum's `rl: {}`) sets nothing itself: its defaults are compared as the quick preset's.
  const own = new Set(leafPaths(p.config));
  const added = addedSections(config, p);
  const others = presetDifferences(config).filter((path) => !own.has(path) && !added.some((s) => path.startsWith(`${s}.`)));
  return others.length === 0 && presetConfigDifferences(p, config).every(isFreeConfigPath);
}

/**
 * The sections a preset adds that a default config lacks, with fields of its own (the chains preset's `relabel`):
 * the fields it leaves to their defaults are the preset's too, not differences from the quick preset.
 */
function addedSections(config: unknown, p: WizardPreset): string[] {
  const parsed = checkRunConfig(config);
  const defaults = parsed.success ? checkRunConfig({ data: parsed.data.data }) : undefined;
  if (!defaults?.success) return [];
  const preset = p.config as Record<string, unknown>;
  return Object.keys(preset).filter((k) => !(k in defaults.data) && leafPaths(preset[k], k).length > 0);
}

/** The preset a run is (its config and its known data fit it, and fit no other); null when none or several do. */
export function presetOfRun(config: unknown, data: DataParams): PresetId | null {
  const fits = WIZARD_PRESETS.filter((p) => configFitsPreset(config, p) && dataFitsPreset(data, p));
  return fits.length === 1 ? fits[0]!.id : null;
}

/** A run's default name with its preset in front ("curriculum: base model SFT 3000 + DUPO 40 steps, rng 1"); as is for none. */
export function withPreset(name: string, preset: PresetId | null): string {
  return preset ? `${WIZARD_PRESETS.find((p) => p.id === preset)!.shortLabel}: ${name}` : name;
}

/** `name`, or the first of "name #2", "name #3", ... that no run has: two runs of one config are told apart. */
export function uniqueName(name: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(name)) return name;
  let i = 2;
  while (used.has(`${name} #${i}`)) i++;
  return `${name} #${i}`;
}
