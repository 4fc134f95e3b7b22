// Axis tick labels: uPlot's default writes a learning rate of 2e-4 as "0" (a few decimals). Ticks of small
// values get their significant digits instead. Pure: unit-tested, no DOM.

/** One tick's label: thousands grouped, values from 0.01 up to 6 significant digits, smaller ones as 2e-4. */
export function tickLabel(v: number): string {
  if (v === 0 || !Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 1e4) return v.toLocaleString('en-US', { maximumFractionDigits: 0 });
  if (a >= 0.01) return String(Number(v.toPrecision(6)));
  return Number(v.toPrecision(3)).toExponential();
}

/** A legend's read-out of a value: 4 significant digits, small ones as 1e-6 (uPlot's default shows them as 0). */
export function legendValue(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e4) return v.toLocaleString('en-US', { maximumFractionDigits: 0 });
  if (a >= 0.001) return String(Number(v.toPrecision(4)));
  return Number(v.toPrecision(3)).toExponential();
}
