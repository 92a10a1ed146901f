import { lazy, Suspense, useEffect } from 'react';
import { warmUp } from './analysis.ts';
import { FileCheckPanel, LinkNotice } from './features/links/LinkNotice.tsx';
import { startLinks } from './features/links/links.ts';
import { PrintHeader } from './features/print/PrintSummary.tsx';
import { watchPrint } from './features/print/printScale.ts';
import { useLinks } from './features/links/linkStore.ts';
import { AlertToasts } from './features/overview/AlertToasts.tsx';
import { HelpDialog, SettingsDialog } from './features/settings/SettingsDialog.tsx';
import { LoadBar } from './features/sources/LoadBar.tsx';
import { TopBar } from './features/sources/TopBar.tsx';
import { useFileDrop } from './features/sources/useFileDrop.ts';
import { Welcome } from './features/sources/Welcome.tsx';
import { loadWorkspace, prefetchWorkspaceWhenIdle } from './prefetch.ts';
import { useAnalysis } from './stores/analysis.ts';
import { useKeyboard } from './useKeyboard.ts';

const Workspace = lazy(() => loadWorkspace().then((m) => ({ default: m.Workspace })));

export function App() {
  useKeyboard();
  const dragging = useFileDrop();
  const source = useAnalysis((s) => s.source);
  const checking = useLinks((s) => s.check !== null);
  useEffect(() => {
    warmUp();
    // the URL is the view: applied now, on a pasted link and on Back/Forward (docs/dashboard.md "Links")
    startLinks();
  }, []);
  useEffect(() => prefetchWorkspaceWhenIdle(), []);
  useEffect(() => watchPrint(), []);
  return (
    <div className="app">
      <TopBar />
      <PrintHeader />
      <LoadBar />
      <LinkNotice />
      {checking ? (
        <FileCheckPanel />
      ) : source === null ? (
        <Welcome />
      ) : (
        <Suspense
          fallback={
            <main className="workspace-loading" aria-busy="true">
              Loading the session view…
            </main>
          }
        >
          <Workspace />
        </Suspense>
      )}
      <SettingsDialog />
      <HelpDialog />
      <AlertToasts />
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
