// Arrow keys step turns, Home/End jump, Shift+arrows seek faults, +/−/0 zoom, F follows,
// Escape closes, ? shows the keys. Ignored while typing in a field or moving a slider.
import { useEffect } from 'react';
import { resumeFollow, selectSpan, selectTurn } from './analysis.ts';
import { markContinuous } from './features/links/linkStore.ts';
import { useAnalysis } from './stores/analysis.ts';
import { seekSeverity, setUi, stepTurn, useUi, zoomAround } from './stores/ui.ts';

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return true;
  return target.getAttribute('role') === 'slider' || target.closest('dialog[open]') !== null;
}

export function useKeyboard(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
      const view = useAnalysis.getState().view;
      const ui = useUi.getState();
      const turns = view?.turns;
      let handled = true;
      switch (e.key) {
        case 'ArrowLeft':
        case 'ArrowRight': {
          if (turns === undefined) return;
          const dir = e.key === 'ArrowLeft' ? -1 : 1;
          const next = e.shiftKey && view ? seekSeverity(turns, view.severity, ui.selectedTurn, dir) : stepTurn(turns, ui.selectedTurn, dir);
          // a step is one of many (held down, it repeats): it replaces the history entry; a seek to a fault adds one
          if (!e.shiftKey) markContinuous();
          if (next !== null) selectTurn(next);
          break;
        }
        case 'Home':
          if (turns !== undefined && turns.length > 0) selectTurn(turns[0]!);
          break;
        case 'End':
          if (turns !== undefined && turns.length > 0) selectTurn(turns[turns.length - 1]!);
          break;
        case '+':
        case '=':
        case '-':
        case '_':
          if (view)
            setUi({
              zoom: zoomAround(view.firstTurn, view.lastTurn, ui.zoom, ui.selectedTurn ?? (view.from + view.to) / 2, e.key === '+' || e.key === '=' ? 0.5 : 2),
            });
          break;
        case '0':
          setUi({ zoom: null });
          break;
        case 'f':
        case 'F':
          if (useAnalysis.getState().source?.kind !== 'live') return;
          if (ui.follow) setUi({ follow: false });
          else resumeFollow();
          break;
        case 'Escape':
          if (ui.selectedSpan !== null) selectSpan(null);
          else return;
          break;
        case '?':
          setUi({ helpOpen: true });
          break;
        default:
          handled = false;
      }
      if (handled) e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
