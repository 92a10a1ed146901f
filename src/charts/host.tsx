// What a chart needs from the page it is drawn in, handed in rather than imported: the
// charts are shared by the dashboard (app/) and `context-health report` (src/render), and
// neither may be a dependency of the other. The page provides its host (app/chartHost.tsx:
// its stores, its cursor, its comparison partner, its export buttons); a report draws in
// fixed-size mode (fixedSize.tsx), where none of them is read.
import { createContext, useContext, type ComponentType } from 'react';
import type { Alignment } from '../core/compare.ts';
import type { SeriesView } from '../results/series.ts';

export interface ExportButtonsProps {
  /** the stamp's figure name, also the file name's first part */
  figure: string;
  label: string;
  target: () => HTMLElement[];
  svgOf?: () => HTMLElement | null;
  disabled?: boolean;
}

/** The comparison partner's (B's) view, drawn dashed on A's axis (CompareLine.tsx). */
export interface PartnerView {
  view: SeriesView | null;
  align: Alignment;
  /** A's turns, which B's are placed on */
  aTurns: Float64Array | undefined;
}

export interface ChartHost {
  /** the session's view as the page holds it now, and a subscription to its changes (the charts take it staggered, common.tsx) */
  currentView: () => SeriesView | null;
  subscribeView: (listener: (view: SeriesView | null) => void) => () => void;
  /** hooks: the selected turn, the charts' plot width, and whether a live session is followed over its whole length */
  useSelectedTurn: () => number | null;
  useChartWidth: () => number;
  useFollowingLive: () => boolean;
  /** a click on a plot, at turn value `turn` (not necessarily a turn of the session) */
  selectTurnNear: (turn: number) => void;
  /** hooks: the comparison partner's view, and whether a partner is open */
  usePartnerView: () => PartnerView;
  usePartnerOpen: () => boolean;
  /** a figure's stamped exports (PNG, SVG, clipboard) */
  ExportButtons: ComponentType<ExportButtonsProps>;
  /** drawn below the orphans chart on the page: the selected turn's lineage graph */
  OrphansFooter: ComponentType;
}

const NO_PARTNER: PartnerView = { view: null, align: 'turn', aTurns: undefined };
const nothing = (): null => null;

/** A page that provides nothing: no view, no cursor, no partner, no exports. */
export const NO_HOST: ChartHost = {
  currentView: () => null,
  subscribeView: () => () => undefined,
  useSelectedTurn: () => null,
  useChartWidth: () => 800,
  useFollowingLive: () => false,
  selectTurnNear: () => undefined,
  usePartnerView: () => NO_PARTNER,
  usePartnerOpen: () => false,
  ExportButtons: nothing,
  OrphansFooter: nothing,
};

export const ChartHostContext = createContext<ChartHost>(NO_HOST);

export const useChartHost = (): ChartHost => useContext(ChartHostContext);
