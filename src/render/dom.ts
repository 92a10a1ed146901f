// A DOM for rendering the dashboard's chart components under Node. Recharts 3 draws its
// series only after its store is filled by effects, which react-dom/server never runs
// (recharts issue #5997: server rendering gives an empty wrapper), so the charts are
// rendered by react-dom/client into happy-dom's document and their SVG read back.
import { register } from 'node:module';
import { Window } from 'happy-dom';

/** Node's module hook for the stylesheets app modules import (React Flow's): an empty module, Vite bundles them for the page. */
const CSS_HOOK = `export async function load(url, context, next) {
  if (new URL(url).pathname.endsWith('.css')) return { format: 'module', source: 'export default "";', shortCircuit: true };
  return next(url, context);
}`;

let installed: Window | null = null;

/** Puts happy-dom's window globals (document, HTMLElement, requestAnimationFrame…) on globalThis, once. */
export function installDom(): Window {
  if (installed !== null) return installed;
  register(`data:text/javascript,${encodeURIComponent(CSS_HOOK)}`);
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
