// The stamp of an image exported from the dashboard (src/report/stamp.ts): the session,
// turns, selected turn, signals and thresholds on screen, the source (file name + sha256,
// or relay URL + sequence numbers), the product version and the UTC time of export (the
// dashboard's exports always carry it).
import { nonDefaultThresholds, PRODUCT_VERSION, type Stamp, type StampSource } from '../../src/report/stamp.ts';
import type { Source } from '../../src/worker/client.ts';
import { currentSource } from '../analysis.ts';
import { sessionOnScreen, useAnalysis } from '../stores/analysis.ts';
import { useUi } from '../stores/ui.ts';

const hashes = new WeakMap<Source, Promise<string | null>>();

/** sha256 of the bytes of the source on screen, read once per source (streamed: a file of any size). */
function sourceSha256(source: Source): Promise<string | null> {
  let p = hashes.get(source);
  if (p === undefined) {
    p = (async () => {
      if (source.kind === 'live') return null;
      const { createSHA256 } = await import('hash-wasm');
      const hash = await createSHA256();
      const body = source.kind === 'file' ? source.file.stream() : (await fetch(source.url)).body;
      if (body === null) return null;
      const reader = body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        hash.update(value);
      }
      return hash.digest('hex');
    })().catch(() => null);
    hashes.set(source, p);
  }
  return p;
}

/** The source on screen as a stamp names it (the file's sha256 is read once). */
export async function currentStampSource(): Promise<StampSource> {
  const source = currentSource();
  if (source === null) return { kind: 'file', name: 'unknown', sha256: null };
  if (source.kind === 'live') {
    const c = useAnalysis.getState().connection;
    const last = c !== null && 'lastSeq' in c ? c.lastSeq : null;
    return { kind: 'relay', url: `${location.origin}/api/sessions/${encodeURIComponent(source.sessionId)}`, seq_from: last === null ? null : 1, seq_to: last };
  }
  return { kind: 'file', name: source.name, sha256: await sourceSha256(source) };
}

/** The stamp of a figure showing what is on screen now (or `turns`, when given). */
export async function currentStamp(figure: string, turns?: { from: number; to: number }): Promise<Stamp> {
  const a = useAnalysis.getState();
  const session = sessionOnScreen(a);
  const view = a.view;
  return {
    product: 'context-health',
    version: PRODUCT_VERSION,
    figure,
    session_id: session?.sessionId ?? a.sessionId ?? 'unknown',
    title: session?.title ?? null,
    turns: turns ?? { from: view?.from ?? 0, to: view?.to ?? 0 },
    selected_turn: useUi.getState().selectedTurn,
    signals: view?.signalsInWindow ?? [],
    thresholds: session === null ? {} : nonDefaultThresholds(session.thresholds),
    source: await currentStampSource(),
    exported_at: new Date().toISOString(),
  };
}
