// Node positions of the open graph: our own force layout (util/forceLayout.ts), computed in slices off the
// critical path (the window stays responsive even at a few thousand nodes) and cached per graph in the
// graph store, so reopening a graph does not lay it out again. Cytoscape then only draws them (`preset`).
// Measured against cytoscape's cose and fcose on the app's graph sizes, ours is the fastest by far and
// the only one that does not block the window (see util/forceLayout.ts). Large graphs (tens of thousands of
// nodes) take a minute or more; the canvas says so while it runs ("laying out N nodes… %").
import { onBeforeUnmount, ref, shallowRef, watch } from 'vue';
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
      const job = runForceLayout(
        {
          ids: g.view.graph.nodes.map((n) => n.id),
          edges: g.view.graph.edges.map((e): [string, string] => [e.source, e.target]),
          seed: id,
        },
        (f) => (progress.value = f),
      );
      running = job;
      void job.done.then((pos) => {
        graph.positions.set(id, pos);
        if (graph.current === g) positions.value = pos;
      });
    },
    { immediate: true },
  );
  onBeforeUnmount(() => running?.cancel());

  return { positions, progress };
}
