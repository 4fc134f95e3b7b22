// Keeping the context when a neighbour is clicked (issue 45, part 2, point 6): the view moves only as far as it
// must to keep the clicked node inside the visible area (with a margin), never re-centring on it, so the node
// selected before and the neighbourhood around it stay where the eye left them. Pure: model coordinates in.

export interface Extent {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/**
 * The pan (in model units) that brings `p` inside `view` shrunk by `margin` on each side; {0, 0} when it already
 * is. On an axis where the view is narrower than two margins, the point is centred on that axis.
 */
export function panToShow(p: { x: number; y: number }, view: Extent, margin: number): { dx: number; dy: number } {
  const axis = (v: number, lo: number, hi: number): number => {
    if (hi - lo <= 2 * margin) return (lo + hi) / 2 - v;
    if (v < lo + margin) return lo + margin - v;
    if (v > hi - margin) return hi - margin - v;
    return 0;
  };
  return { dx: axis(p.x, view.x1, view.x2), dy: axis(p.y, view.y1, view.y2) };
}
