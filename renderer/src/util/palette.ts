// Colours for categorical data (node types, orbits) that read well on the dark theme. Cytoscape needs
// literal colours, so the theme's few fixed colours are repeated here too.
export const PALETTE = [
  '#4fb3ff', '#4cc38a', '#e8b04b', '#ef6461', '#b48ead', '#56c7c7', '#f08c4a', '#9fd356',
  '#e67eb9', '#8f9cf7', '#d4c46a', '#6fb0a0', '#c98f6b', '#7ad0ff', '#ff9f9f', '#a0a8b5',
] as const;

export const THEME = {
  bg: '#0f1419',
  panel: '#161d25',
  line: '#2a3541',
  text: '#d8e0e8',
  muted: '#8494a5',
  accent: '#4fb3ff',
  warn: '#e8b04b',
  hot: '#ffcf4d',
} as const;

/** The i-th categorical colour; past the palette, hues spaced by the golden angle (big graphs have 20+ types). */
export function colorAt(i: number): string {
  if (i < PALETTE.length) return PALETTE[i]!;
  return `hsl(${Math.round((i * 137.508 + 20) % 360)}, 62%, ${i % 2 ? 72 : 60}%)`;
}

/** Assigns colours to keys in the given order (callers pass the most frequent first). */
export function colorMap(keys: readonly string[]): Map<string, string> {
  return new Map(keys.map((k, i) => [k, colorAt(i)]));
}
