// What the person is looking at: the selected turn (the shared cursor), the zoom window,
// follow-live / pause, findings filters, the selected span, and thresholds they set.
// Pure transforms first (tested), then a thin create().
import { indexAtOrBefore } from '../../src/core/bisect.ts';
import { create } from 'zustand';
import type { ScorerMode, Severity, Signal, Thresholds } from '../../src/worker/client.ts';

export interface TurnWindow {
  from: number;
  to: number;
}

export interface UiState {
  selectedTurn: number | null;
  /** null = the whole session */
  zoom: TurnWindow | null;
  /** live: the cursor and the view track the newest turn */
  follow: boolean;
  severities: Record<Severity, boolean>;
  /** null = every signal */
  signalFilter: Signal | null;
  collapsed: ReadonlySet<number>;
  selectedSpan: string | null;
  /** the turn of the compaction whose panel is open (contract §8.3), or null */
  selectedCompaction: number | null;
  userThresholds: Partial<Thresholds>;
  /** whose scores the Worker's engine sees, as `check --scorer` (contract §7) */
  scorer: ScorerMode;
  settingsOpen: boolean;
  helpOpen: boolean;
  /** pixel width of the chart plot area, sets how many points the Worker sends */
  chartWidth: number;
}

export const initialUiState: UiState = {
  selectedTurn: null,
  zoom: null,
  follow: true,
  severities: { fault: true, warning: true, info: true },
  signalFilter: null,
  collapsed: new Set(),
  selectedSpan: null,
  selectedCompaction: null,
  userThresholds: {},
  scorer: 'auto',
  settingsOpen: false,
  helpOpen: false,
  chartWidth: 800,
};

/** The turn `delta` steps from `current` in the session's turn order (turns may have gaps). */
export function stepTurn(turns: ArrayLike<number>, current: number | null, delta: number): number | null {
  const n = turns.length;
  if (n === 0) return null;
  if (current === null) return delta < 0 ? turns[n - 1]! : turns[0]!;
  let i = indexAtOrBefore(turns, current);
  if (i < 0) i = delta > 0 ? -1 : 0;
  else if (turns[i] !== current && delta < 0) i += 1; // between two turns: the one before counts as one step back
  const j = Math.max(0, Math.min(n - 1, i + delta));
  return turns[j]!;
}

/** The next (dir 1) or previous (dir -1) turn whose worst finding has at least `level`. */
export function seekSeverity(turns: ArrayLike<number>, severity: ArrayLike<number>, current: number | null, dir: 1 | -1, level = 3): number | null {
  const n = turns.length;
  if (n === 0) return null;
  let i = current === null ? (dir > 0 ? -1 : n) : indexAtOrBefore(turns, current);
  if (current !== null && dir < 0 && i >= 0 && turns[i] !== current) i += 1;
  for (let k = i + dir; k >= 0 && k < n; k += dir) if (severity[k]! >= level) return turns[k]!;
  return null;
}

/** Snap any turn value (a click on the axis) to the nearest existing turn. */
export function nearestTurn(turns: ArrayLike<number>, value: number): number | null {
  const n = turns.length;
  if (n === 0) return null;
  const i = indexAtOrBefore(turns, value);
  if (i < 0) return turns[0]!;
  if (i >= n - 1) return turns[n - 1]!;
  return value - turns[i]! <= turns[i + 1]! - value ? turns[i]! : turns[i + 1]!;
}

/** Zoom by `factor` (<1 in, >1 out) around `center`, kept inside [first, last]. */
export function zoomAround(first: number, last: number, current: TurnWindow | null, center: number, factor: number): TurnWindow | null {
  const from = current?.from ?? first;
  const to = current?.to ?? last;
  const width = Math.max(4, (to - from) * factor);
  if (width >= last - first) return null;
  let a = center - width / 2;
  let b = center + width / 2;
  if (a < first) [a, b] = [first, first + width];
  if (b > last) [a, b] = [last - width, last];
  return { from: Math.round(a), to: Math.round(b) };
}

/** In follow mode a zoom window slides so its right edge stays on the newest turn. */
export function followWindow(zoom: TurnWindow | null, lastTurn: number): TurnWindow | null {
  if (zoom === null) return null;
  const width = zoom.to - zoom.from;
  return { from: lastTurn - width, to: lastTurn };
}

export const useUi = create<UiState>()(() => ({ ...initialUiState }));

export const setUi = (patch: Partial<UiState> | ((s: UiState) => Partial<UiState>)): void => useUi.setState(patch);
