// Which node labels the graph view draws (level of detail). Thousands of labels at once are a hairball; so
// after each pan or zoom the view labels only nodes on screen, most important first (the selection, then its
// neighbours, then nodes by degree), and only where a label does not overlap one already placed. Zoomed out
// until the font would be unreadable, only the selection and its neighbours keep theirs. Pure.

/** A node that could be labelled, in screen pixels (its centre), with its label's width and its priority. */
export interface LabelCandidate {
  id: string;
  x: number;
  y: number;
  width: number;
  priority: number;
}

export interface LabelRules {
  /** The screen's size in pixels: candidates outside it are not labelled. */
  width: number;
  height: number;
  /** The label's height on screen (font size × zoom, plus a gap) and its offset below the node's centre. */
  lineHeight: number;
  offsetY: number;
  /** At most this many labels. */
  cap: number;
  /** Candidates at or above this priority are labelled even where the font is too small for the rest. */
  always: number;
  /** Whether the font is large enough on screen for labels other than the `always` ones. */
  readable: boolean;
}

/** Priority tiers: the selected node, its neighbours, then every other node by degree (below NEIGHBOUR). */
export const SELECTED = 2e9;
export const NEIGHBOUR = 1e9;

/** A label's screen width: characters at about 0.6 em, capped at the stylesheet's text-max-width. */
export function labelWidth(label: string, fontPx: number, maxPx: number): number {
  return Math.min(maxPx, Math.max(1, label.length) * fontPx * 0.6);
}

/** The ids to label: greedily by priority, each label kept off every one placed before it. */
export function pickLabels(candidates: readonly LabelCandidate[], r: LabelRules): Set<string> {
  const out = new Set<string>();
  const cell = 64;
  const grid = new Map<string, Array<[number, number, number, number]>>();
  const sorted = [...candidates].sort((a, b) => b.priority - a.priority || (a.id < b.id ? -1 : 1));
  for (const c of sorted) {
    if (out.size >= r.cap) break;
    if (!r.readable && c.priority < r.always) break;
    if (c.x < 0 || c.y < 0 || c.x > r.width || c.y > r.height) continue;
    const box: [number, number, number, number] = [c.x - c.width / 2, c.y + r.offsetY, c.x + c.width / 2, c.y + r.offsetY + r.lineHeight];
    const cells: string[] = [];
    for (let gx = Math.floor(box[0] / cell); gx <= Math.floor(box[2] / cell); gx++) {
      for (let gy = Math.floor(box[1] / cell); gy <= Math.floor(box[3] / cell); gy++) cells.push(`${gx},${gy}`);
    }
    const hit = cells.some((k) => (grid.get(k) ?? []).some((b) => box[0] < b[2] && b[0] < box[2] && box[1] < b[3] && b[1] < box[3]));
    if (hit) continue;
    out.add(c.id);
    for (const k of cells) {
      const list = grid.get(k);
      if (list) list.push(box);
      else grid.set(k, [box]);
    }
  }
  return out;
}
