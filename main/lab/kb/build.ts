// Assembles the bundled knowledge base from the raw package records. Pure given its inputs: the same
// sources always give the same graph (extractors run in a fixed order and the result is sorted by id).
import type { Graph } from '../formats/index';
import { KbBuilder } from './builder';
import { createContext } from './context';
import { addElements } from './elements';
import { addGeography } from './geo';
import { addPlaces } from './places';
import type { KbSources } from './sources';
import { addWordNet } from './wordnet';

export type ProgressFn = (fraction: number, message: string) => void;

/** Bump when the extraction logic changes, so cached KBs built by older code are rebuilt. */
export const KB_SCHEMA_VERSION = 1;

export function buildKnowledgeBase(src: KbSources, version: string, onProgress: ProgressFn = () => {}): Graph {
  const b = new KbBuilder();
  const ctx = createContext();
  onProgress(0.3, 'countries, regions, languages, currencies, time zones');
  addGeography(b, ctx, src);
  onProgress(0.45, 'cities, capitals, airports');
  const places = addPlaces(b, ctx, src);
  onProgress(0.6, 'WordNet people, rivers, mountains, battles');
  const wordnet = addWordNet(b, ctx, src);
  onProgress(0.75, 'chemical elements and discoverers');
  addElements(b, ctx, src);
  const isolated = b.pruneIsolated();
  onProgress(0.8, 'sorting');
  return b.toGraph({
    kind: 'sailor-kb',
    kb_version: version,
    schema: KB_SCHEMA_VERSION,
    packages: src.versions,
    report: {
      unmatched_capitals: places.unmatchedCapitals,
      wordnet_persons: wordnet.persons,
      wordnet_entities: wordnet.natives,
      wordnet_places_resolved: wordnet.resolvedPlaces,
      isolated_dropped: isolated,
    },
  });
}
