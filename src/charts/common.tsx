import { useEffect, useMemo, useState } from 'react';
import type { SeriesView } from '../results/series.ts';
import { axisAnchor, minBandWidth, niceTicks, sameDomain, sameRanges, shownDomain, type Range } from './rows.ts';
import { C } from './theme.ts';
import { useFixedChart } from './fixedSize.tsx';
import { useChartHost } from './host.tsx';

const CHART_ANCHOR = axisAnchor(0, 1);

/** Following a live session over its whole length (no zoom): the axis may run ahead. */
export function useFollowing(view: SeriesView | null): boolean {
  const followingLive = useChartHost().useFollowingLive();
  const fixed = useFixedChart() !== null;
  return !fixed && followingLive && view !== null;
}

export const CHART_HEIGHT = 210;
/** Axes and margins take about this many pixels of a chart's width. */
export const AXES_PX = 124;
export const CHART_MARGIN = { top: 8, right: 18, bottom: 18, left: 4 };
export const AXIS_TICK = { fontSize: 11, fill: C.muted };
export const turnAxisLabel = { value: 'turn', position: 'insideBottom' as const, offset: -10, style: { fontSize: 11, fill: C.muted } };

/** The turn axis every chart of a session shares: its ticks and domain from useTurnAxis. */
export function turnXAxis(ticks: number[], domain: [number, number]) {
  return { dataKey: 'x', type: 'number' as const, interval: 0, ticks, domain, allowDataOverflow: true, tick: AXIS_TICK, label: turnAxisLabel };
}

/** What every value axis shares: ticks where the chart puts them, data past the domain clipped. */
export const VALUE_Y_AXIS = { interval: 0, type: 'number' as const, allowDataOverflow: true, tick: AXIS_TICK };

const labels = new Map<string, ReturnType<typeof makeLabel>>();

function makeLabel(value: string, side: 'left' | 'right') {
  return {
    value,
    angle: side === 'left' ? -90 : 90,
    position: side === 'left' ? ('insideLeft' as const) : ('insideRight' as const),
    offset: 8,
    style: { fontSize: 11, fill: C.muted, textAnchor: 'middle' as const },
  };
}

/** Axis labels are created once: a new object each render makes Recharts lay the axis out again. */
export function yLabel(value: string, side: 'left' | 'right') {
  const key = `${side}:${value}`;
  let l = labels.get(key);
  if (l === undefined) labels.set(key, (l = makeLabel(value, side)));
  return l;
}

export const thousands = (v: number): string => (v >= 10000 ? `${Math.round(v / 1000)}k` : String(v));
export const twoDecimals = (v: number): string => v.toFixed(2);

/**
 * The shaped view for one chart. Each chart takes a new view in its own task and frame
 * (slot × 40 ms after it arrives; Recharts flushes its own store once per animation frame),
 * so one update is a short main-thread task per chart, not one long one. Each starts in the task
 * right after a frame (requestAnimationFrame, then a task): its render, commit and paint
 * then have a whole frame's time before the next vsync, where a timer firing late in a
 * frame missed it (missed frames under a 200/s stream, docs/perf-log/notebook.md).
 */
export function useChartView(slot: number): SeriesView | null {
  const fixed = useFixedChart();
  const host = useChartHost();
  const [view, setView] = useState<SeriesView | null>(() => host.currentView());
  useEffect(() => {
    let latest: SeriesView | null | undefined;
    // a new view is on its way while either is set
    let timer: ReturnType<typeof setTimeout> | null = null;
    let frame: number | null = null;
    const show = (): void => {
      timer = frame = null;
      setView(latest ?? null);
    };
    const take = (next: SeriesView | null): void => {
      if (next === latest) return;
      latest = next;
      // a new source clears at once; data is staggered
      if (next === null) {
        cancel();
        show();
        return;
      }
      if (timer !== null || frame !== null) return;
      timer = setTimeout(() => {
        timer = null;
        // no frames outside a page (tests): at once
        if (typeof requestAnimationFrame === 'undefined') return show();
        frame = requestAnimationFrame(() => {
          frame = null;
          timer = setTimeout(show, 0);
        });
      }, slot * 40);
    };
    const cancel = (): void => {
      if (timer !== null) clearTimeout(timer);
      if (frame !== null) cancelAnimationFrame(frame);
      timer = frame = null;
    };
    take(host.currentView());
    const unsubscribe = host.subscribeView(take);
    return () => {
      unsubscribe();
      cancel();
    };
  }, [slot, host]);
  return fixed === null ? view : fixed.view;
}

/**
 * A value computed from the data, kept identical while equal: Recharts re-lays out an axis
 * or re-registers a reference area whenever it receives a new object, equal or not.
 */
export function useStable<T>(next: T, equal: (a: T, b: T) => boolean): T {
  const [kept, setKept] = useState(next);
  if (kept !== next && !equal(kept, next)) {
    setKept(next);
    return next;
  }
  return kept;
}

export const useStableDomain = (d: [number, number]): [number, number] => useStable(d, sameDomain);
export const useStableRanges = (r: Range[]): Range[] => useStable(r, sameRanges);

/** A followed session with no new turn for this long is at rest: its axis need not run ahead any more. */
const QUIET_MS = 2500;

/** True once `value` has not changed for `ms`. */
function useQuiet(value: number | undefined, ms: number): boolean {
  const [quietAt, setQuietAt] = useState<number | undefined>(undefined);
  useEffect(() => {
    const timer = setTimeout(() => setQuietAt(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return value !== undefined && quietAt === value;
}

/**
 * The turn axis every chart shares (one axis, one cursor, one zoom window): the chart's
 * series view, its shown domain (held still while following live), the narrowest band
 * worth drawing at this width, and the ticks.
 */
export function useTurnAxis(slot: number) {
  const view = useChartView(slot);
  const fixed = useFixedChart();
  const uiWidth = useChartHost().useChartWidth();
  const width = fixed === null ? uiWidth : Math.max(200, fixed.width - AXES_PX);
  const following = useFollowing(view);
  // a live session that has stopped growing ends its axis at its last turn (issue 24: 300 for 258)
  const quiet = useQuiet(view?.to, QUIET_MS);
  const xd = useStableDomain(shownDomain(view?.from ?? 0, view?.to ?? 1, following && !quiet));
  const minW = minBandWidth(xd[0], xd[1], width);
  // One anchor for every window: each axis is given its domain (allowDataOverflow), so the
  // rows only have to exist. An anchor spanning the window was new data whenever the window
  // moved, and Recharts answers new data by clearing and setting its store's chart data
  // (two actions, every selector of the chart run again, docs/perf-log/notebook.md).
  const anchor = CHART_ANCHOR;
  const xTicks = useMemo(() => niceTicks(xd[0], xd[1]), [xd]);
  return { view, width, following, xd, minW, anchor, xTicks };
}
