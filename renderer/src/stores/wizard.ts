// What the run wizard remembers between openings in this window: the data the user picked or made (graph and
// question sets), the data step's forms and the preset they came from, so closing and reopening it does not start the choice over.
// Nothing here reaches the lab core; the lists themselves come from the graph and datasets stores.
import { defineStore } from 'pinia';
import { shallowRef } from 'vue';
import type { PresetId } from '@contract';
import type { DataChoice } from '../components/runs/runConfig';
import type { MakeForms } from '../components/runs/wizard/wizardData';

export const useWizardMemory = defineStore('wizardMemory', () => {
  const data = shallowRef<DataChoice | null>(null);
  const make = shallowRef<MakeForms | null>(null);
  const presetId = shallowRef<PresetId>('quick');
  function remember(d: DataChoice, m: MakeForms, preset: PresetId = 'quick'): void {
    data.value = { ...d };
    presetId.value = preset;
    make.value = structuredClone({ ...m, graph: { ...m.graph }, train: { ...m.train }, heldOut: { ...m.heldOut }, rl: { ...m.rl } });
  }
  return { data, make, presetId, remember };
});
