// Node positions of the open graph: our own force layout (util/forceLayout.ts), computed in slices off the
// critical path (the window stays responsive even at a few thousand nodes), kept with the graph in the lab
// (graphs.saveLayout) and cached per graph in the graph store, so a later visit, a reload or another window
// draws at once instead of laying it out again. Cytoscape then only draws them (`preset`).
// Measured against cytoscape's cose and fcose on the app's graph sizes, ours is the fastest by far and
// the only one that does not block the window (see util/forceLayout.ts). Large graphs (tens of thousands of
// nodes) take a minute or more; the canvas says so while it runs ("laying out N nodes… %").
import { onBeforeUnmount, ref, shallowRef, watch } from 'vue';
import { lab } from '../../api/client';
import { useGraph } from '../../stores/graph';
import { runForceLayout, type Position } from '../../util/forceLayout';

export function useGraphLayout() {
  const graph = useGraph();
  const positions = shallowRef<Map<string, Position> | null>(null);
  /** Fraction of the running layout done (the canvas overlay shows it). */
  const progress = ref(0);
  let running: { cancel(): void } | null = null;

  watch(
    () => graph.current,
    (g) => {
      running?.cancel();
      running = null;
      progress.value = 0;
      if (!g) {
        positions.value = null;
        return;
      }
      const id = g.view.artefact.id;
      const cached = graph.positions.get(id);
      if (cached) {
        positions.value = cached;
        return;
      }
      positions.value = null;
      const ids = g.view.graph.nodes.map((n) => n.id);
      void layOut(g, id, ids);
    },
    { immediate: true },
  );

  /** The kept layout when the lab has one for these nodes; else computed here, then kept. */
  async function layOut(g: NonNullable<typeof graph.current>, id: string, ids: string[]): Promise<void> {
    const kept = await lab().call('graphs.layout', { id }).catch(() => null);
    if (graph.current !== g) return;
    if (kept && kept.nodes === ids.length) {
      const pos = new Map(ids.map((n, i): [string, Position] => [n, { x: kept.xy[2 * i]!, y: kept.xy[2 * i + 1]! }]));
      graph.positions.set(id, pos);
      positions.value = pos;
      return;
    }
    const job = runForceLayout(
      { ids, edges: g.view.graph.edges.map((e): [string, string] => [e.source, e.target]), seed: id },
      (f) => (progress.value = f),
    );
    running = job;
    const pos = await job.done;
    graph.positions.set(id, pos);
    if (graph.current === g) positions.value = pos;
    // Keeping it is a convenience: a lab that cannot write it still shows the graph.
    const xy = ids.flatMap((n) => [pos.get(n)?.x ?? 0, pos.get(n)?.y ?? 0]);
    await lab().call('graphs.saveLayout', { id, xy }).catch(() => undefined);
  }
  onBeforeUnmount(() => running?.cancel());

  return { positions, progress };
}
