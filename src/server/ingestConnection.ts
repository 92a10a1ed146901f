// One harness WebSocket on /api/ingest: each text frame is a message, answered in frame
// order by an `ack` or an `error` frame (docs/relay-protocol.md). Flow control: a harness
// far ahead of the relay, one not reading its acks, or a relay with too much received and
// not yet stored, is not read from until that clears (TCP slows the harness down).
import type { RawData, WebSocket } from 'ws';
import type { Ingest, IngestResult } from './ingest.ts';

/** ack frames waiting to be sent before an ingest socket stops being read */
const ACK_HIGH_WATER = 1 << 20;
/** frames of one connection received and not yet answered before it stops being read */
const MAX_WAITING_FRAMES = 256;

export function serveIngestSocket(ws: WebSocket, ingest: Ingest, log: (line: string) => void): void {
  let frame = 0;
  let waiting = 0;
  let paused = false;
  // replies leave in frame order: each waits for the one before
  let previous: Promise<void> = Promise.resolve();
  let stopListening: (() => void) | null = null;
  ws.on('error', () => ws.terminate());
  const flowControl = (): void => {
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

function replyFrame(frame: number, r: IngestResult): string {
  if (r.ok === 'blank') return JSON.stringify({ type: 'error', frame, message: 'an empty frame is not a message' });
  if (r.ok) return JSON.stringify({ type: 'ack', frame, session_id: r.sessionId, seq: r.seq, turn: r.turn, duplicate: r.duplicate });
  return JSON.stringify({ type: 'error', frame, message: r.message, ...(r.sessionId === undefined ? {} : { session_id: r.sessionId }) });
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
