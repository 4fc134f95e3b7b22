// Which section is open, kept in the URL hash so reloads and links land in the same place; plus an
// optional one-shot focus target so one view can open another on a given thing (a QA's answer node).
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';

export const SECTIONS = [
  { id: 'graph', label: 'Graph' },
  { id: 'datasets', label: 'Datasets' },
  { id: 'runs', label: 'Runs' },
  { id: 'trajectories', label: 'Trajectories' },
  { id: 'compare', label: 'Compare' },
  { id: 'jobs', label: 'Jobs' },
  { id: 'about', label: 'About' },
] as const;
export type SectionId = (typeof SECTIONS)[number]['id'];

/** Where the Graph explorer should land: a graph and, in it, a node to centre and select. */
export interface GraphFocus {
  section: 'graph';
  graphId: string;
  nodeId: string;
}
/**
 * Where the Trajectories section should land: a set and, in it, optionally one trajectory. Runs' sets are
 * addressed like stored ones: `eval:<run>:<step>` (an evaluation), `rl:<run>:<step>` (an RL step's rollouts).
 */
export interface TrajFocus {
  section: 'trajectories';
  setId: string;
  trajId?: string;
}
/** What the Compare section should prefill its new-comparison form with ("compare these checkpoints"). */
export interface CompareFocus {
  section: 'compare';
  /** Checkpoint references, `<run>/<step>` or `<run>/last`, in column order (the first two are A and B). */
  checkpoints: string[];
  /** The questions to answer; by default the first checkpoint's run's held-out set. */
  datasetId?: string;
}
export type FocusTarget = GraphFocus | TrajFocus | CompareFocus;

/**
 * The section with no address: Runs, whose first screen on an empty data directory starts the quick preset
 * (and, once runs exist, lists them). The graph builder stays one click away in the sections.
 */
export const FIRST_SECTION: SectionId = 'runs';

function fromHash(): SectionId {
  const id = window.location.hash.replace(/^#\/?/, '');
  return (SECTIONS.find((s) => s.id === id)?.id ?? FIRST_SECTION) as SectionId;
}

export const useNav = defineStore('nav', () => {
  const section = ref<SectionId>(fromHash());
  const focus = shallowRef<FocusTarget | null>(null);
  window.addEventListener('hashchange', () => (section.value = fromHash()));

  function go(id: SectionId, target?: FocusTarget): void {
    if (target) focus.value = target;
    section.value = id;
    if (fromHash() !== id || window.location.hash === '') window.location.hash = `/${id}`;
  }

  /** Hands the pending focus for a section to the view that shows it, once. */
  function takeFocus<S extends FocusTarget['section']>(s: S): Extract<FocusTarget, { section: S }> | null {
    const f = focus.value;
    if (!f || f.section !== s) return null;
    focus.value = null;
    return f as Extract<FocusTarget, { section: S }>;
  }
  return { section, focus, go, takeFocus };
});
