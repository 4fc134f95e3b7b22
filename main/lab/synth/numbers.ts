// Numbers as a reader expects them (docs/pipeline.md, 'Uncertainty injection'): a range or a bound around a
// true value, rounded to at most two or three significant digits, in the attribute's usual form. UTC offsets
// read in hours ("between UTC-07:00 and UTC-05:00"), coordinates with a hemisphere ("south of 18°N"), counts
// with digit grouping ("290,000") or a scale word ("2.3 million"); never scientific notation or float noise.
// Each amount returns the exact filter its text states, so the prose and the query never drift apart.
import type { Rng } from '../util/rng';
import { unitText } from './lexicon';

/** How a numeric attribute reads: decides the rounding grid, the bounds and the wording. */
export type QuantityKind = 'utc_offset' | 'latitude' | 'longitude' | 'percent' | 'count' | 'measure';

export function quantityKind(attr: string | undefined, unit: string | undefined): QuantityKind {
  const a = (attr ?? '').toLowerCase();
  if (/utc_?offset/.test(a)) return 'utc_offset';
  if (a === 'latitude' || a === 'lat') return 'latitude';
  if (a === 'longitude' || a === 'lon' || a === 'lng') return 'longitude';
  if (unit === '%' || unit === 'percent' || /_(percent|pct)$/.test(a)) return 'percent';
  if (!unit || unit === 'people' || unit === 'inhabitants') return 'count';
  return 'measure';
}

/** Rounds to 12 significant digits, removing float noise from k * step. */
export const clean = (x: number): number => Number(x.toPrecision(12));

/** A round step of two significant digits for magnitude |x|. */
export function stepFor(x: number): number {
  const ax = Math.abs(x);
  if (ax === 0 || !Number.isFinite(ax)) return 1;
  return 10 ** (Math.floor(Math.log10(ax)) - 1);
}

const SCALES: [number, string][] = [
  [1e12, 'trillion'],
  [1e9, 'billion'],
  [1e6, 'million'],
];

/**
 * One number in plain notation: digit grouping below a million ("290,000", "0.42", "-35"), a scale word
 * from a million up ("2.3 million"). Never an exponent; at most `digits` significant digits are shown, so
 * callers pass values already rounded to that grid (the text then states the filter's number exactly).
 */
export function plainNumber(x: number, scale?: [number, string]): string {
  const s = scale ?? scaleOf(x);
  const scaled = clean(x / s[0]);
  return scaled.toLocaleString('en-US', { maximumFractionDigits: 20, useGrouping: true });
}

function scaleOf(x: number): [number, string] {
  for (const s of SCALES) if (Math.abs(x) >= s[0]) return s;
  return [1, ''];
}

/** "between 27,000 and 74,000", "between 0.6 and 1.9 million": one scale word for both ends. */
function betweenText(lo: number, hi: number): string {
  const scale = scaleOf(Math.max(Math.abs(lo), Math.abs(hi)));
  const word = scale[1] ? ` ${scale[1]}` : '';
  return `between ${plainNumber(lo, scale)} and ${plainNumber(hi, scale)}${word}`;
}

function boundText(x: number): string {
  const scale = scaleOf(x);
  return `${plainNumber(x, scale)}${scale[1] ? ` ${scale[1]}` : ''}`;
}

/** "UTC+05:30", "UTC-07:00", "UTC+00:00" (the form the knowledge base writes) for an offset in minutes. */
export function utcText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const m = Math.abs(Math.round(minutes));
  return `UTC${sign}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** "18°N", "35°S", "110°W", "0°" for a coordinate in degrees. */
export function degreesText(x: number, axis: 'latitude' | 'longitude'): string {
  if (x === 0) return '0°';
  const hemi = axis === 'latitude' ? (x > 0 ? 'N' : 'S') : x > 0 ? 'E' : 'W';
  return `${plainNumber(Math.abs(x), [1, ''])}°${hemi}`;
}

export type NumberStyle = 'between' | 'lt' | 'gt';

export interface Amount {
  /** The whole amount with its unit: "between 27,000 and 74,000 people", "south of 18°N". */
  text: string;
  /** The comparison and the numbers without the unit: "between 27,000 and 74,000", "fewer than 2 million". */
  bare: string;
  /** The unit as it reads after a number ('' for none). */
  unit: string;
  kind: QuantityKind;
  filter: { op: 'between'; value: [number, number] } | { op: 'lt' | 'gt'; value: number };
  /** Relative width of the range (hi - lo) / |value|; Infinity when open. */
  width: number;
}

/**
 * A calendar year (an attribute of when: born, founded, year …, a whole number 1000-2100 without a unit). Only its
 * text differs: "between 1928 and 1930", "before 1950", never "between 1,928 and 1,930".
 */
export function isYearValue(attr: string | undefined, unit: string | undefined, value: number): boolean {
  const when = /(^|_)(year|born|birth|died|death|founded|established|inception|opened|built|released|formed|dissolved|launched)(_|$)/i;
  return !unit && Number.isInteger(value) && value >= 1000 && value <= 2100 && when.test(attr ?? '');
}

/** The comparison words of an open bound, by kind. */
function cmpWord(kind: QuantityKind, op: 'lt' | 'gt'): string {
  if (kind === 'latitude') return op === 'lt' ? 'south of' : 'north of';
  if (kind === 'longitude') return op === 'lt' ? 'west of' : 'east of';
  if (kind === 'utc_offset') return op === 'lt' ? 'behind' : 'ahead of';
  if (kind === 'count') return op === 'lt' ? 'fewer than' : 'more than';
  return op === 'lt' ? 'less than' : 'more than';
}

/** The limits a quantity of this kind can take (a range never leaves them). */
function limits(kind: QuantityKind): [number, number] {
  if (kind === 'percent') return [0, 100];
  if (kind === 'latitude') return [-90, 90];
  if (kind === 'longitude') return [-180, 180];
  if (kind === 'utc_offset') return [-12 * 60, 14 * 60];
  return [-Infinity, Infinity];
}

/** How a number of this kind reads alone (no comparison): "UTC-05:00", "18°N", "2.3 million". */
function oneText(kind: QuantityKind, x: number): string {
  if (kind === 'utc_offset') return utcText(x);
  if (kind === 'latitude' || kind === 'longitude') return degreesText(x, kind);
  return boundText(x);
}

function assemble(kind: QuantityKind, unit: string | undefined, bare: string, filter: Amount['filter'], width: number): Amount {
  const plainUnit = kind === 'utc_offset' || kind === 'latitude' || kind === 'longitude' ? '' : unitText(unit);
  return { text: plainUnit ? `${bare} ${plainUnit}` : bare, bare, unit: plainUnit, kind, filter, width };
}

/**
 * A range or bound around `value`: "between 27,000 and 74,000 people", "fewer than 2 million", "between
 * UTC-07:00 and UTC-05:00", "south of 18°N". The true value always satisfies the filter; `maxWidth` caps the
 * relative width of a range (for narrowing), and an open bound is only offered without a cap.
 */
export function amount(value: number, unit: string | undefined, style: NumberStyle, rng: Rng, maxWidth = Infinity, attr?: string): Amount | null {
  if (!Number.isFinite(value)) return null;
  const kind = quantityKind(attr, unit);
  const [min, max] = limits(kind);
  // a zero value has no magnitude of its own: the grid comes from the kind's usual unit instead
  const unitMag = kind === 'utc_offset' ? 60 : kind === 'latitude' || kind === 'longitude' ? 10 : 1;
  const mag = value === 0 ? unitMag : Math.abs(value);
  const grid = (x: number): number => (kind === 'utc_offset' ? 60 : stepFor(x));
  if (style === 'between') {
    const cap = Math.min(maxWidth, 1.6);
    if (cap < 0.02) return null;
    const width = cap * (0.25 + 0.75 * rng.next()); // relative width of the range
    let below = width * (0.15 + 0.7 * rng.next());
    let above = width - below;
    // a positive quantity keeps a positive range (and a negative one a negative range)
    if (value > 0) below = Math.min(below, 0.9);
    if (value < 0) above = Math.min(above, 0.9);
    let lo = value - mag * below;
    let hi = value + mag * above;
    const step = grid(Math.max(Math.abs(lo), Math.abs(hi)));
    lo = Math.max(min, clean(Math.floor(lo / step) * step));
    hi = Math.min(max, clean(Math.ceil(hi / step) * step));
    if (lo === hi) {
      if (hi + step <= max) hi = clean(hi + step);
      else lo = clean(lo - step);
    }
    if (!(lo <= value && value <= hi) || lo === hi) return null;
    const w = (hi - lo) / mag;
    if (w > maxWidth) return null;
    const bare = isYearValue(attr, unit, value)
      ? `between ${lo} and ${hi}`
      : kind === 'count' || kind === 'measure' || kind === 'percent'
        ? betweenText(lo, hi)
        : `between ${oneText(kind, lo)} and ${oneText(kind, hi)}`;
    return assemble(kind, unit, bare, { op: 'between', value: [lo, hi] }, w);
  }
  if (maxWidth !== Infinity) return null;
  const r = 0.1 + 0.8 * rng.next(); // < 1, so a bound never crosses zero
  const step = grid(mag * (1 + r));
  let bound: number;
  if (style === 'lt') {
    bound = clean(Math.ceil((value + mag * r) / step) * step);
    if (bound <= value) bound = clean(bound + step);
  } else {
    bound = clean(Math.floor((value - mag * r) / step) * step);
    if (bound >= value) bound = clean(bound - step);
  }
  // a bound at or past the kind's limit says nothing ("more than -10 percent", "north of 95°S")
  if (bound >= max || bound <= min) return null;
  const bareBound = isYearValue(attr, unit, value) ? `${style === 'lt' ? 'before' : 'after'} ${bound}` : `${cmpWord(kind, style)} ${oneText(kind, bound)}`;
  return assemble(kind, unit, bareBound, { op: style, value: bound }, Infinity);
}
