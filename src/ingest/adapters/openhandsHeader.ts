// docs/adapters.md "OpenHands" session: the header of an OpenHands session, V1 (the SDK's
// conversation) and V0 (the app's events) alike.
import type { SessionHeader } from '../../core/wire.ts';
import { firstWords } from './spanLabels.ts';

/** The session header: titled by the first prompt's first words, the window when the usage gave one. */
export function openHandsHeader(sessionId: string, firstPrompt: string | null, contextWindow: number | null): SessionHeader {
  const prompt = firstPrompt === null ? null : firstWords(firstPrompt, 80);
  const header: SessionHeader = {
    type: 'session',
    session_id: sessionId,
    title: prompt ?? `OpenHands conversation ${sessionId}`,
    source: 'openhands',
  };
  if (contextWindow !== null) header.context_window = contextWindow;
  return header;
}
