// Which section is open, kept in the URL hash so reloads and links land in the same place.
import { defineStore } from 'pinia';
import { ref } from 'vue';

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

function fromHash(): SectionId {
  const id = window.location.hash.replace(/^#\/?/, '');
  return (SECTIONS.find((s) => s.id === id)?.id ?? 'graph') as SectionId;
}

export const useNav = defineStore('nav', () => {
  const section = ref<SectionId>(fromHash());
  window.addEventListener('hashchange', () => (section.value = fromHash()));
  function go(id: SectionId): void {
    section.value = id;
    if (fromHash() !== id || window.location.hash === '') window.location.hash = `/${id}`;
  }
  return { section, go };
});
