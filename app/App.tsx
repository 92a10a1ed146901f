import { useEffect } from 'react';
import { openFromHash, warmUp } from './analysis.ts';
import { Charts } from './features/charts/Charts.tsx';
import { openCompareFromHash } from './features/compare/compare.ts';
import { ComparePanel } from './features/compare/ComparePanel.tsx';
import { CompareVerdicts } from './features/compare/CompareVerdicts.tsx';
import { FindingsList } from './features/findings/FindingsList.tsx';
import { SignalSummary } from './features/findings/SignalSummary.tsx';
import { SpanInspector } from './features/inspector/SpanInspector.tsx';
import { HelpDialog, SettingsDialog } from './features/settings/SettingsDialog.tsx';
import { LoadBar } from './features/sources/LoadBar.tsx';
import { TopBar } from './features/sources/TopBar.tsx';
import { useFileDrop } from './features/sources/useFileDrop.ts';
import { Welcome } from './features/sources/Welcome.tsx';
import { TurnPanel } from './features/turn/TurnPanel.tsx';
import { VerdictBanner } from './features/turn/VerdictBanner.tsx';
import { useAnalysis } from './stores/analysis.ts';
import { useUi } from './stores/ui.ts';
import { useKeyboard } from './useKeyboard.ts';

export function App() {
  useKeyboard();
  const dragging = useFileDrop();
  const source = useAnalysis((s) => s.source);
  useEffect(() => {
    warmUp();
    openFromHash();
    openCompareFromHash();
  }, []);
  return (
    <div className="app">
      <TopBar />
      <LoadBar />
      {source === null ? <Welcome /> : <Workspace />}
      <SettingsDialog />
      <HelpDialog />
      {dragging && (
        <div className="drop-overlay" aria-hidden="true">
          <div>Drop the transcript to analyse it</div>
        </div>
      )}
      <footer className="keys-hint" aria-hidden="true">
        ← → turn · Shift+← → fault · Home/End · +/− zoom · ? keys
      </footer>
    </div>
  );
}

function Workspace() {
  const selectedSpan = useUi((s) => s.selectedSpan);
  const turn = useUi((s) => s.selectedTurn);
  return (
    <main className="workspace">
      <section className="main-col" aria-label="Charts">
        <VerdictBanner />
        <CompareVerdicts />
        <ComparePanel />
        <Charts />
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
  );
}
