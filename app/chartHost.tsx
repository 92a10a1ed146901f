// The page as the shared charts (src/charts) see it: the session's view from the analysis
// store, the cursor and the plot width from the UI store, the comparison partner, the
// stamped export buttons and the lineage graph below the orphans chart. Provided once by the
// session view (Workspace.tsx, the lazy chunk); a report draws the same charts without it (src/charts/fixedSize.tsx).
import { useMemo } from 'react';
import type { ChartHost, PartnerView } from '../src/charts/host.tsx';
import { selectTurn } from './analysis.ts';
import { ExportButtons } from './components/ExportButtons.tsx';
import { LineageGraph } from './features/charts/LineageGraph.tsx';
import { useCompare } from './features/compare/compareStore.ts';
import { useAnalysis } from './stores/analysis.ts';
import { nearestTurn, useUi } from './stores/ui.ts';

function usePartnerView(): PartnerView {
  const view = useCompare((s) => s.view);
  const align = useCompare((s) => s.align);
  const aTurns = useAnalysis((s) => s.view?.turns);
  return useMemo(() => ({ view, align, aTurns }), [view, align, aTurns]);
}

export const PAGE_CHART_HOST: ChartHost = {
  currentView: () => useAnalysis.getState().view,
  subscribeView: (listener) => useAnalysis.subscribe((s) => listener(s.view)),
  useSelectedTurn: () => useUi((s) => s.selectedTurn),
  useChartWidth: () => useUi((s) => s.chartWidth),
  useFollowingLive: () => {
    const live = useAnalysis((s) => s.source?.kind === 'live');
    const follow = useUi((s) => s.follow);
    const zoom = useUi((s) => s.zoom);
    return live && follow && zoom === null;
  },
  selectTurnNear: (turn) => {
    const turns = useAnalysis.getState().view?.turns;
    if (turns !== undefined) selectTurn(nearestTurn(turns, turn));
  },
  usePartnerView,
  usePartnerOpen: () => useCompare((s) => s.partner !== null),
  ExportButtons,
  OrphansFooter: LineageGraph,
};
