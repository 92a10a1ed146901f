import type { ConnectionState } from '../../../src/worker/client.ts';

/**
 * A live session whose relay is gone: its last verdict is history, not the current turn's.
 * Retrying cycles between 'reconnecting' (waiting out the backoff) and 'connecting' (the
 * attempt itself), so an attempt counts as gone too: the banner must not flip back to
 * "pruning may proceed" for the moment a retry is in flight. The first connect has no turn
 * on screen yet, so the banner is pending then and this is never asked.
 */
export function isDisconnected(c: ConnectionState | null): boolean {
  return c !== null && (c.state === 'connecting' || c.state === 'reconnecting' || c.state === 'closed' || c.state === 'failed');
}
