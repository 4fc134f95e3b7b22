// The graph canvas's labels, by level of detail (labelLod.ts picks them): after each pan or zoom settles, the
// nodes on screen get the `lbl` class most important first and never overlapping; the selection and its
// neighbours first of all. While the view moves the labels stay as they were (no work per frame).
import type { Core, NodeSingular } from 'cytoscape';
import { LABEL_FONT } from './graphCanvas';
import { labelWidth, NEIGHBOUR, pickLabels, SELECTED, type LabelCandidate } from './labelLod';

/** How long the view must be still before the labels are picked again. */
const SETTLE_MS = 120;
/** At most this many labels on screen at once. */
const MAX_LABELS = 160;
/** Below this font size on screen only the selection's labels are drawn. */
const MIN_SCREEN_FONT = 7;

export interface LabelLayer {
  /** The selection and its neighbours, labelled first; picks again at once. */
  focus(selected: string | null, neighbours: ReadonlySet<string>): void;
  /** Picks again at once (after visibility or positions changed). */
  refresh(): void;
  /** How many nodes are labelled now. */
  count(): number;
  dispose(): void;
}

/**
 * `onChange`: how many nodes are labelled, and the labels' font size on screen (px; under the stylesheet's
 * min-zoomed-font-size cytoscape draws none). `enabled` false: every node labelled, as before level of detail
 * (bench/speed/graph-view.ts compares the two).
 */
export function attachLabelLayer(cy: Core, fontPx: number, onChange: (labelled: number, screenFontPx: number) => void, enabled = true): LabelLayer {
  let selected: string | null = null;
  let neighbours: ReadonlySet<string> = new Set();
  let shown = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const degree = new Map<string, number>();
  cy.nodes().forEach((n) => void degree.set(n.id(), n.degree(false)));

  function pick(): void {
    if (!enabled) {
      cy.nodes().addClass('lbl');
      onChange(cy.nodes().length, fontPx * cy.zoom());
      return;
    }
    const zoom = cy.zoom();
    const pan = cy.pan();
    const font = fontPx * zoom;
    const candidates: LabelCandidate[] = [];
    cy.nodes().forEach((n: NodeSingular) => {
      if (n.hasClass('hidden')) return;
      const p = n.position();
      const id = n.id();
      const priority = id === selected ? SELECTED : neighbours.has(id) ? NEIGHBOUR + (degree.get(id) ?? 0) : (degree.get(id) ?? 0);
      const label = String(n.data('label') ?? '');
      candidates.push({ id, x: p.x * zoom + pan.x, y: p.y * zoom + pan.y, width: labelWidth(label, font, LABEL_FONT.maxWidth * zoom), priority });
    });
    const next = pickLabels(candidates, {
      width: cy.width(),
      height: cy.height(),
      lineHeight: font * 1.3 + 6,
      offsetY: 7 * zoom,
      cap: MAX_LABELS,
      always: NEIGHBOUR,
      readable: font >= MIN_SCREEN_FONT,
    });
    cy.batch(() => {
      for (const id of shown) if (!next.has(id)) cy.getElementById(id).removeClass('lbl');
      for (const id of next) if (!shown.has(id)) cy.getElementById(id).addClass('lbl');
    });
    shown = next;
    onChange(shown.size, font);
  }

  const settle = (): void => {
    clearTimeout(timer);
    timer = setTimeout(pick, SETTLE_MS);
  };
  cy.on('viewport resize', settle);
  pick();
  return {
    focus(sel, nb) {
      selected = sel;
      neighbours = nb;
      pick();
    },
    refresh: pick,
    count: () => shown.size,
    dispose() {
      clearTimeout(timer);
      cy.off('viewport resize', settle);
    },
  };
}
