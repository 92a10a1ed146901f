import { lazy, Suspense, useEffect } from 'react';
import { openFromHash, warmUp } from './analysis.ts';
import { openCompareFromHash } from './features/compare/compare.ts';
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
  useEffect(() => {
    warmUp();
    const openView = (): void => {
      openFromHash();
      openCompareFromHash();
    };
    openView();
    // our own hash updates use replaceState, which fires no hashchange: this is a link
    // pasted or edited in the address bar, or Back/Forward
    window.addEventListener('hashchange', openView);
    return () => window.removeEventListener('hashchange', openView);
  }, []);
  useEffect(() => prefetchWorkspaceWhenIdle(), []);
  return (
    <div className="app">
      <TopBar />
      <LoadBar />
      {source === null ? (
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
