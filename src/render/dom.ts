// A DOM for rendering the dashboard's chart components under Node. Recharts 3 draws its
// series only after its store is filled by effects, which react-dom/server never runs
// (recharts issue #5997: server rendering gives an empty wrapper), so the charts are
// rendered by react-dom/client into happy-dom's document and their SVG read back.
import { Window } from 'happy-dom';

let installed: Window | null = null;

/** Puts happy-dom's window globals (document, HTMLElement, requestAnimationFrame…) on globalThis, once. */
export function installDom(): Window {
  if (installed !== null) return installed;
  // React's production build: the development one checks and warns on every render, several times slower
  process.env.NODE_ENV ??= 'production';
  const win = new Window({ width: 1280, height: 800, url: 'http://localhost/' });
  const g = globalThis as Record<string, unknown>;
  const w = win as unknown as Record<string, unknown>;
  for (const key of Object.getOwnPropertyNames(win)) {
    if (key in g || key === 'undefined') continue;
    try {
      g[key] = w[key];
    } catch {
      // a getter happy-dom does not implement: not needed by React or Recharts
    }
  }
  g.window = win;
  g.document = win.document;
  installed = win;
  return win;
}
