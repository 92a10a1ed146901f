// Opening a local session: one followed live opens its relay session; any other is fetched
// from the relay as bytes and opened exactly as a dropped file is (the same Worker path, so
// the same result as dragging that file onto the page).
import type { LocalSessionRow } from '../../../src/protocol/localSessions.ts';
import { openFile, openLive } from '../../analysis.ts';

export async function openLocal(row: LocalSessionRow): Promise<void> {
  if (row.live_session !== null) return openLive(row.live_session);
  const res = await fetch(`/api/local/${encodeURIComponent(row.id)}/file`);
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: string } | null;
    throw new Error(body?.error ?? `the relay answered HTTP ${res.status}`);
  }
  const blob = await res.blob();
  openFile(new File([blob], row.file_name, { lastModified: row.modified_ms }));
}
