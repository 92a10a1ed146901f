import type { Ingest } from './ingest.ts';
import type { SessionStore } from './store.ts';

export function startDemo(_ingest: Ingest, _store: SessionStore, _options: { intervalMs: number }): { stop: () => void } {
  return { stop: () => {} };
}
