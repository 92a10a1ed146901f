// The session view's code (app/Workspace.tsx: Recharts, React Flow, html-to-image) is not
// part of the first load; it is fetched when a session opens, or earlier, once the
// welcome screen has loaded and the main thread is idle, so opening a session rarely waits.
export const loadWorkspace = () => import('./Workspace.tsx');

/** Marked just before the idle prefetch starts: the e2e tests tell first-load requests from it. */
export const PREFETCH_MARK = 'context-health:prefetch';

/** Fetches the session view when the page is idle; returns the cancel. */
export function prefetchWorkspaceWhenIdle(): () => void {
  const start = (): void => {
    performance.mark(PREFETCH_MARK);
    void loadWorkspace();
  };
  // Safari has no requestIdleCallback
  if (typeof requestIdleCallback !== 'function') {
    const t = setTimeout(start, 1000);
    return () => clearTimeout(t);
  }
  const id = requestIdleCallback(start, { timeout: 5000 });
  return () => cancelIdleCallback(id);
}
