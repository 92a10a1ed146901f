// contract §8.7 what the composition chart and the turn panel's breakdown draw, beyond the
// Worker's arrays: the stacked bands, the y domain, and one colour per kind that never
// changes while a session grows (known kinds have their own; tool results take the tool
// palette in the order the tools first appeared). Pure and tested.
import type { CompositionSeries } from '../results/series.ts';
import { niceCeil } from './rows.ts';

const KIND_COLOR: Readonly<Record<string, string>> = {
  system: '#9aa5b1',
  summary: '#0f766e',
  meta: '#c7b8e0',
  user: '#1d4e89',
  assistant: '#5b9bd5',
  thinking: '#b07cc6',
  tool_use: '#e0a84f',
  tool_result: '#c9a27a',
  'tool_result:(other)': '#b9b1a3',
  context: '#7b8794',
  other: '#d5dae1',
};
/** Results by tool: warm, distinct, print-safe (the first tools to appear, in order). */
const TOOL_COLORS = ['#d9822b', '#2e7d4f', '#ad1457', '#00838f', '#6d4c41'];
/** Roles and kinds the table does not know, in the order they are met. */
const EXTRA_COLORS = ['#33691e', '#7b2cbf', '#546e7a', '#8d6e63', '#00695c'];

export function kindColor(key: string, toolSlot: number): string {
  const known = KIND_COLOR[key];
  if (known !== undefined) return known;
  if (key.startsWith('tool_result:') && toolSlot >= 0) return TOOL_COLORS[toolSlot % TOOL_COLORS.length]!;
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) >>> 0;
  return EXTRA_COLORS[h % EXTRA_COLORS.length]!;
}

export interface StackedBand {
  key: string;
  label: string;
  color: string;
  lo: Float64Array;
  hi: Float64Array;
}

/** Each band from the top of the one below it. */
export function stackBands(s: CompositionSeries): StackedBand[] {
  const n = s.x.length;
  let base = new Float64Array(n);
  return s.bands.map((b) => {
    const hi = new Float64Array(n);
    for (let i = 0; i < n; i++) hi[i] = base[i]! + b.tokens[i]!;
    const band = { key: b.key, label: b.label, color: kindColor(b.key, b.toolSlot), lo: base, hi };
    base = hi;
    return band;
  });
}

/** A fill this high (of the window) puts the window itself on the scale; below it the stack would be a sliver. */
export const WINDOW_ON_SCALE_FILL = 0.4;

export function windowOnScale(s: CompositionSeries): boolean {
  return s.peakFill !== null && s.peakFill >= WINDOW_ON_SCALE_FILL;
}

export function compositionDomain(s: CompositionSeries): [number, number] {
  let max = 0;
  for (const v of s.total) if (v > max) max = v;
  if (windowOnScale(s)) for (const v of s.window) if (v > max) max = v;
  return [0, niceCeil(Math.max(1, max * 1.05))];
}

/** The window × threshold per point: the line context_pressure fires at. */
export function thresholdLine(s: CompositionSeries): Float64Array {
  return s.window.map((w) => w * s.threshold);
}

/** The agent's own auto-compaction point per point (the window less its reserve), NaN where no window is known; null when the agent's point is not known. */
export function autoCompactLine(s: CompositionSeries): Float64Array | null {
  const a = s.autoCompact;
  if (a === null) return null;
  return s.window.map((w) => (w > 0 ? Math.max(0, w - a.reserve) : Number.NaN));
}

/** A share in percent, one decimal where it has one ("82.5%", "80%"), "<0.1%" for a sliver. */
export const pct = (v: number): string => (v > 0 && v < 0.001 ? '<0.1%' : `${String(Math.round(v * 1000) / 10)}%`);
