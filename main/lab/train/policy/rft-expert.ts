// The expert that writes RFT data (and the base model's episodes) in one of the RFT styles (`rft.style`).
import type { Graph } from '../../formats';
import type { RunConfig } from '../../contract/run-config';
import { resolvePolicy, type PolicyFactory } from '../../agent/policies';
import { citedReconstructor, ruleReconstructor, terseReconstructor, type Reconstructor } from '../../agent/thoughts';

export type RftStyle = RunConfig['rft']['style'];

/** How the expert's thoughts are written in each RFT style. */
export const RFT_THOUGHTS: Record<RftStyle, Reconstructor> = { compact: terseReconstructor, cited: citedReconstructor, full: ruleReconstructor };

/** The oracle expert in `style`, searching anchors by their names in `graph`. */
export function rftExpert(style: RftStyle, graph: Pick<Graph, 'nodes'>): PolicyFactory {
  const names = new Map(graph.nodes.map((n) => [n.id, n.name]));
  return resolvePolicy('oracle', {
    anchorName: (id) => names.get(id),
    expert: { compact: style !== 'full' },
    reconstructor: RFT_THOUGHTS[style], // style is one of the schema's enum values, never a free name
  });
}
