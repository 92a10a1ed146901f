// `POST /api/ingest`: an NDJSON body, any sessions, answered once with the per-line
// results (docs/relay-protocol.md). The body is read no faster than it is stored.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { Ingest, IngestResult } from './ingest.ts';
import { json } from './httpReply.ts';
import { LineCutter } from './lineCutter.ts';
import type { RelayLimits } from './sessionGate.ts';

export async function postIngest(req: IncomingMessage, res: ServerResponse, ingest: Ingest, limits: RelayLimits): Promise<void> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  let body: Readable = req;
  if (encoding === 'gzip') body = req.pipe(zlib.createGunzip());
  else if (encoding !== 'identity') return json(res, 415, { error: `Content-Encoding ${encoding} is not supported (use gzip or none)` });
  const results: { line: number; result: IngestResult | Promise<IngestResult> }[] = [];
  const lines = new LineCutter(limits.maxMessageBytes, (raw, line, tooLong) => {
    results.push({
      line,
      result: tooLong
        ? { ok: false, message: `the line is longer than ${limits.maxMessageBytes} bytes, the most this relay accepts per message (--max-message-bytes)` }
        : ingest.message(raw),
    });
  });
  let readError: string | null = null;
  let settled = 0;
  try {
    for await (const chunk of body) {
      lines.push(chunk as Buffer);
      // a long body is read no faster than it is stored
      if (results.length - settled > 64) {
        await results[results.length - 1]!.result;
        settled = results.length;
      }
      await ingest.relieved();
    }
    lines.end();
  } catch (e) {
    // what was read is stored; the harness resends and gets `duplicate: true` for it
    readError = `the request body could not be read: ${(e as Error).message}`;
  }
  const accepted: { line: number; session_id: string; seq: number; turn: number | null; duplicate: boolean }[] = [];
  const errors: { line: number; message: string; session_id?: string }[] = [];
  for (const { line, result } of results) {
    const r = await result;
    if (r.ok === 'blank') continue;
    if (r.ok) accepted.push({ line, session_id: r.sessionId, seq: r.seq, turn: r.turn, duplicate: r.duplicate });
    else errors.push({ line, message: r.message, ...(r.sessionId === undefined ? {} : { session_id: r.sessionId }) });
  }
  if (readError !== null) errors.push({ line: lines.lineNo + 1, message: readError });
  json(res, errors.length === 0 ? 200 : 400, { accepted, errors });
}
