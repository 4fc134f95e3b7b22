// Runs a large graph's force layout off the window's thread (a single iteration at tens of thousands of
// nodes takes longer than a frame, so slices between frames would still stutter). Posts progress about
// every 100 ms, then the positions.
import { createForceLayout, type LayoutInput, type Position } from './forceLayout';

export type LayoutMessage = { kind: 'progress'; fraction: number } | { kind: 'done'; positions: Map<string, Position> };

/** The worker's global scope (the renderer's types know only a window's). */
const scope = globalThis as unknown as { onmessage: ((e: { data: LayoutInput }) => void) | null; postMessage(m: LayoutMessage): void };

scope.onmessage = (e) => {
  const layout = createForceLayout(e.data);
  let last = performance.now();
  while (layout.step()) {
    if (performance.now() - last > 100) {
      last = performance.now();
      scope.postMessage({ kind: 'progress', fraction: layout.progress });
    }
  }
  scope.postMessage({ kind: 'done', positions: layout.positions() });
};
