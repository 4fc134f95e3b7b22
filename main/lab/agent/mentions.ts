// Whether a text names an entity, and where in an episode a name was first shown or used: the rules the failure
// breakdown (failures.ts) and the chained-question analysis (train/policy/chain.ts) share. Pure functions.
import type { AgentStep } from './react';

const escape = (x: string): string => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Lowercased, with a URL's underscores as spaces (`sim://Vance_Air_Force_Base` reads as the name). */
const plain = (text: string): string => text.toLowerCase().replace(/_/g, ' ');
/** Whether `text` names `name` as whole words (in prose or in a `sim://` URL), case aside. */
export function mentions(text: string, name: string): boolean {
  if (name.length === 0) return false;
  return new RegExp(`(?<![\\p{L}\\p{N}])${escape(plain(name))}(?![\\p{L}\\p{N}])`, 'u').test(plain(text));
}

/** What a step's action names: its queries, URLs and answer, as one string. */
export function actionText(step: Pick<AgentStep, 'action'>): string {
  const a = step.action.arguments;
  const parts = [a.query, a.url, a.answer].flatMap((v) => (Array.isArray(v) ? v : v === undefined ? [] : [v]));
  return parts.map(String).join('\n');
}

/** The index of the first step whose observation shows one of `names`; -1 when none does. */
export function firstSighting(steps: readonly AgentStep[], names: readonly string[]): number {
  return steps.findIndex((s) => names.some((n) => mentions(s.observation ?? '', n)));
}

/** The index of the first step after `from` whose action names one of `names` exactly; -1 when none does. */
export function firstUse(steps: readonly AgentStep[], names: readonly string[], from: number): number {
  for (let i = from + 1; i < steps.length; i++) if (names.some((n) => mentions(actionText(steps[i]!), n))) return i;
  return -1;
}

/**
 * Whether `text` holds a near copy of `name` that is not the name: a word of it with its first four letters
 * right and the rest wrong (`Hillelel`, `Brusselsel`, `sim://Hille`), or the name cut short (`Andrés Manuel` for
 * `Andrés Manuel del Río`). Only words of four letters or more count, so short common words do not match.
 */
export function nearCopy(text: string, name: string): boolean {
  if (mentions(text, name)) return false;
  const split = (x: string): string[] => plain(x).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const nameWords = split(name);
  // The name cut short: its first words, and not the rest.
  for (let k = nameWords.length - 1; k >= 1; k--) if (nameWords[k - 1]!.length >= 4 && mentions(text, nameWords.slice(0, k).join(' '))) return true;
  const words = split(text).filter((w) => w.length >= 4);
  return nameWords.filter((w) => w.length >= 4).some((t) => words.some((w) => w !== t && w.slice(0, 4) === t.slice(0, 4)));
}
