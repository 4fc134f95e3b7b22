// Graph algorithms of the synthesis pipeline (PIPELINE 2-3): adjacency index, Weisfeiler-Leman hashing,
// exact automorphism orbits, random-walk subgraph sampling and topology labels. Node-only (node:crypto).
export { GraphIndex, buildIndex, type Subgraph } from './graph-index';
export { wlHash } from './wl';
export { orbits, DEFAULT_ORBIT_BUDGET, type OrbitOptions } from './orbits';
export { topologyOf, TOPOLOGIES, type Topology } from './topology';
export {
  sampleSubgraph,
  sampleDistinct,
  type SampleOptions,
  type DistinctOptions,
  type DistinctStats,
  type SampledSubgraph,
} from './sample';
