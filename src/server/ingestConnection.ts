// One harness WebSocket on /api/ingest: each text frame is a message, answered in frame
// order by an `ack` or an `error` frame (docs/relay-protocol.md). Flow control: a harness
// far ahead of the relay, one not reading its acks, or a relay with too much received and
// not yet stored, is not read from until that clears (TCP slows the harness down).
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import { closeReason } from './closeReason.ts';
import type { Ingest } from './ingest.ts';
import type { IngestResult } from './ingest.ts';
import { echoedId } from './quoted.ts';
import { overdraftReason, type UnfinishedHolder } from './unfinishedBudget.ts';

/** ack frames waiting to be sent before an ingest socket stops being read */
const ACK_HIGH_WATER = 1 << 20;
/** frames of one connection received and not yet answered before it stops being read */
const MAX_WAITING_FRAMES = 256;
/** 1013 Try Again Later: the relay's budget for unfinished messages is spent */
export const CLOSE_OVER_BUDGET = 1013;
/** 1008 Policy Violation: a message took longer than --body-timeout to arrive */
export const CLOSE_TOO_SLOW = 1008;
/** after closing a socket on purpose, how long the peer has to answer the close */
const CLOSE_GRACE_MS = 1000;

export function serveIngestSocket(ws: WebSocket, socket: Duplex, unfinished: UnfinishedHolder, ingest: Ingest, log: (line: string) => void): void {
  let messageEnded = false;
  // ws reads each chunk (and emits the messages it completes) before this listener runs:
  // after a chunk that completed a message, at most that chunk's tail is unfinished
  socket.on('data', (chunk: Buffer) => {
    const held = messageEnded ? chunk.length : unfinished.bytes + chunk.length;
    messageEnded = false;
    const over = unfinished.hold(held);
    if (over !== null) closeOnPurpose(ws, CLOSE_OVER_BUDGET, overdraftReason(over));
  });
  ws.on('close', () => unfinished.release());
  let frame = 0;
  let waiting = 0;
  let paused = false;
  // replies leave in frame order: each waits for the one before
  let previous: Promise<void> = Promise.resolve();
  let stopListening: (() => void) | null = null;
  ws.on('error', () => ws.terminate());
  const flowControl = (): void => {
    if (ws.readyState !== ws.OPEN) return;
    const behind = waiting > MAX_WAITING_FRAMES || ws.bufferedAmount > ACK_HIGH_WATER || ingest.saturated;
    if (behind && !paused) ws.pause();
    else if (!behind && paused) ws.resume();
    paused = behind;
    if (paused) stopListening ??= ingest.onRelieved(flowControl);
    else {
      stopListening?.();
      stopListening = null;
    }
  };
  ws.on('close', () => stopListening?.());
  ws.on('message', (data: RawData, isBinary: boolean) => {
    messageEnded = true;
    const f = ++frame;
    const result: IngestResult | Promise<IngestResult> = isBinary
      ? { ok: false, message: 'a binary frame is not a message: send each message as a text frame' }
      : ingest.message(toBuffer(data));
    waiting++;
    flowControl();
    previous = previous
      .then(async () => {
        const r = await result;
        waiting--;
        if (ws.readyState !== ws.OPEN) return;
        ws.send(replyFrame(f, r), () => flowControl());
        flowControl();
      })
      .catch((e: unknown) => log(`ingest connection: ${(e as Error).message}`));
  });
}

/**
 * Closes with a reason the peer can read, and stops reading at once: what it goes on
 * sending is not buffered. A peer that does not answer the close is cut off.
 */
export function closeOnPurpose(ws: WebSocket, code: number, reason: string): void {
  if (ws.readyState !== ws.OPEN) return;
  ws.close(code, closeReason(reason));
  ws.pause();
  setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
}

function replyFrame(frame: number, r: IngestResult): string {
  if (r.ok === 'blank') return JSON.stringify({ type: 'error', frame, message: 'an empty frame is not a message' });
  if (r.ok) {
    const verdict = r.verdict === undefined ? {} : { verdict: r.verdict };
    return JSON.stringify({ type: 'ack', frame, session_id: r.sessionId, seq: r.seq, turn: r.turn, duplicate: r.duplicate, ...verdict });
  }
  return JSON.stringify({ type: 'error', frame, message: r.message, ...(r.sessionId === undefined ? {} : { session_id: echoedId(r.sessionId) }) });
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
