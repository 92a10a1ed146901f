// The span table's text previews (issue 24): the first characters of each visible row's
// text, asked of the Worker with the inspector's own `span` query, only for the rows on
// screen once scrolling rests, one at a time, and kept per source, session and turn. The
// per-turn rows (SpanRow) carry no text: a row count of thousands must not copy every text.
import { useEffect, useState } from 'react';
import { sourceClient } from '../../analysis.ts';
import { useAnalysis, type SourceInfo } from '../../stores/analysis.ts';

/** Characters of a span's text a row shows. */
export const PREVIEW_CHARS = 80;

/** Rows asked for at most per rest: the visible rows and the overscan. */
const MAX_ASKED = 40;
/** Previews kept at most (then the cache starts again): bounded memory on long live runs. */
const MAX_KEPT = 5000;
/** Scrolling rests this long before the previews are asked. */
const REST_MS = 120;

/** The first `max` characters of a text on one line (whitespace runs as one space). */
export function previewOf(text: string, max = PREVIEW_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** null: the text is no longer held (bounded memory) or the span is gone */
type Preview = string | null;

let cacheSource: SourceInfo | null = null;
const cache = new Map<string, Preview>();
const key = (sessionId: string, turn: number, spanId: string): string => `${sessionId}\u0000${turn}\u0000${spanId}`;

function cached(sessionId: string, turn: number, spanId: string): Preview | undefined {
  const source = useAnalysis.getState().source;
  if (source !== cacheSource) {
    cache.clear();
    cacheSource = source;
  }
  return cache.get(key(sessionId, turn, spanId));
}

/**
 * The previews of `spanIds` at `turn` (undefined while not known yet). `spanIds` are the
 * rows on screen; a new list drops the asks of the old one not yet sent.
 */
export function useSpanPreviews(turn: number, spanIds: readonly string[]): (spanId: string) => Preview | undefined {
  const sessionId = useAnalysis((s) => s.sessionId);
  const [, setVersion] = useState(0);
  const wanted = spanIds.join('\u0000');
  useEffect(() => {
    if (sessionId === null || wanted === '') return;
    let stopped = false;
    const timer = setTimeout(() => {
      void (async () => {
        for (const spanId of wanted.split('\u0000').slice(0, MAX_ASKED)) {
          if (stopped) return;
          if (cached(sessionId, turn, spanId) !== undefined) continue;
          const detail = await sourceClient()
            .query('span', { sessionId, turn, spanId })
            .catch(() => null);
          if (stopped) return;
          if (cache.size >= MAX_KEPT) cache.clear();
          // a span not live at this turn shows another turn's text: no preview then
          cache.set(key(sessionId, turn, spanId), detail === null || detail.text === null || detail.shownTurn !== turn ? null : previewOf(detail.text));
          setVersion((v) => v + 1);
        }
      })();
    }, REST_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [sessionId, turn, wanted]);
  return (spanId) => (sessionId === null ? undefined : cached(sessionId, turn, spanId));
}
