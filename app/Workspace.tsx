// The view of an open session: charts, findings, the turn panel and the span inspector.
// App loads this module lazily: it carries Recharts, React Flow and the PNG exporter,
// which the welcome screen does not need (docs/dashboard.md, "What loads when").
// React Flow's CSS (the lineage graph): in this lazy chunk, so it stays out of the first load
import '@xyflow/react/dist/style.css';
import { Charts } from './features/charts/Charts.tsx';
import { CompactionPanel } from './features/compactions/CompactionPanel.tsx';
import { ComparePanel } from './features/compare/ComparePanel.tsx';
import { CompareVerdicts } from './features/compare/CompareVerdicts.tsx';
import { FindingsList } from './features/findings/FindingsList.tsx';
import { SignalSummary } from './features/findings/SignalSummary.tsx';
import { SpanInspector } from './features/inspector/SpanInspector.tsx';
import { PrintIncidents } from './features/print/PrintSummary.tsx';
import { TurnPanel } from './features/turn/TurnPanel.tsx';
import { VerdictBanner } from './features/turn/VerdictBanner.tsx';
import { ReportDialog } from './features/report/ReportDialog.tsx';
import { useUi } from './stores/ui.ts';
import { outOfScopeOnScreen, useAnalysis } from './stores/analysis.ts';
import { ChartHostContext } from '../src/charts/host.tsx';
// the page as the charts see it: here, in the lazy chunk, since it brings the lineage graph
// (React Flow) and the PNG exporter, which the welcome screen does not load
import { PAGE_CHART_HOST } from './chartHost.tsx';

export function Workspace() {
  const selectedSpan = useUi((s) => s.selectedSpan);
  const turn = useUi((s) => s.selectedTurn);
  // an imported agent's session shows the compaction panel in its Compactions section (Charts.tsx)
  const outOfScope = useAnalysis(outOfScopeOnScreen);
  return (
    <ChartHostContext.Provider value={PAGE_CHART_HOST}>
      <main className={outOfScope ? 'workspace agent' : 'workspace'}>
        <section className="main-col" aria-label="Charts">
          <VerdictBanner />
          <ReportDialog />
          <CompareVerdicts />
          <ComparePanel />
          <Charts />
          {!outOfScope && <CompactionPanel />}
          <PrintIncidents />
        </section>
        <aside className="side-col" aria-label="Findings and details">
          <SignalSummary />
          <FindingsList />
          {selectedSpan !== null ? (
            <SpanInspector />
          ) : (
            <section className="panel turn" aria-label="Selected turn">
              <header className="panel-head">
                <h2>Turn {turn ?? '—'}</h2>
              </header>
              <TurnPanel />
            </section>
          )}
        </aside>
      </main>
    </ChartHostContext.Provider>
  );
}
