// `POST /api/ingest`: an NDJSON body, any sessions, answered once with the per-line
// results (docs/relay-protocol.md). Whatever the body, the answer and the memory it takes
// are bounded (docs/security.md): at most --max-request-lines lines and
// --max-request-bytes decompressed bytes are read, blank lines are counted, not listed,
// errors are listed up to LISTED_ERRORS, and an unfinished line counts against the
// relay's budget for unfinished messages. The body is read no faster than it is stored.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { AckVerdict } from '../protocol/relay.ts';
import type { ConnectionLimits } from './connectionLimits.ts';
import type { Ingest } from './ingest.ts';
import type { IngestResult } from './ingest.ts';
import { json } from './httpReply.ts';
import { LineCutter } from './lineCutter.ts';
import { echoedId } from './quoted.ts';
import { isBlank, type RelayLimits } from './sessionGate.ts';
import { overdraftMessage, type UnfinishedBudget } from './unfinishedBudget.ts';

/** Errors listed in one answer; the rest are counted (`errors_not_listed`). */
export const LISTED_ERRORS = 1000;
/** Lines read ahead of the ones stored before the body stops being read. */
const READ_AHEAD_LINES = 64;

interface Accepted {
  line: number;
  session_id: string;
  seq: number;
  turn: number | null;
  duplicate: boolean;
  /** contract §7: the turn's verdict, when the relay analyses */
  verdict?: AckVerdict | null;
}

interface LineError {
  line: number;
  message: string;
  session_id?: string;
}

/** The answer, built as results arrive, in line order; bounded by the line limit and LISTED_ERRORS. */
class IngestReport {
  readonly accepted: Accepted[] = [];
  readonly errors: LineError[] = [];
  blankLines = 0;
  private unlisted = 0;

  add(line: number, r: IngestResult): void {
    if (r.ok === 'blank') this.blankLines++;
    else if (r.ok)
      this.accepted.push({
        line,
        session_id: r.sessionId,
        seq: r.seq,
        turn: r.turn,
        duplicate: r.duplicate,
        ...(r.verdict === undefined ? {} : { verdict: r.verdict }),
      });
    else this.error({ line, message: r.message, ...(r.sessionId === undefined ? {} : { session_id: echoedId(r.sessionId) }) });
  }

  error(e: LineError): void {
    if (this.errors.length < LISTED_ERRORS) this.errors.push(e);
    else this.unlisted++;
  }

  body(): Record<string, unknown> {
    return { accepted: this.accepted, errors: this.errors, blank_lines: this.blankLines, ...(this.unlisted > 0 ? { errors_not_listed: this.unlisted } : {}) };
  }

  get failed(): boolean {
    return this.errors.length > 0;
  }
}

/** Why the relay stopped reading a body before its end: the status and the error to answer with. */
class StopReading extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function postIngest(
  req: IncomingMessage,
  res: ServerResponse,
  deps: { ingest: Ingest; limits: RelayLimits; connection: ConnectionLimits; unfinished: UnfinishedBudget },
): Promise<void> {
  const { ingest, limits, connection } = deps;
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  let body: Readable = req;
  if (encoding === 'gzip') body = req.pipe(zlib.createGunzip());
  else if (encoding !== 'identity') return json(res, 415, { error: `Content-Encoding ${encoding} is not supported (use gzip or none)` });

  const report = new IngestReport();
  let pending: { line: number; result: IngestResult | Promise<IngestResult> }[] = [];
  const settle = async (): Promise<void> => {
    const batch = pending;
    pending = [];
    for (const { line, result } of batch) report.add(line, await result);
  };
  const lines = new LineCutter(limits.maxMessageBytes, (raw, line, tooLong) => {
    if (line > connection.maxRequestLines) return;
    if (tooLong) {
      pending.push({
        line,
        result: {
          ok: false,
          message: `the line is longer than ${limits.maxMessageBytes} bytes, the most this relay accepts per message (--max-message-bytes)`,
        },
      });
    } else if (isBlank(raw)) report.blankLines++;
    else pending.push({ line, result: ingest.message(raw) });
  });
  const holder = deps.unfinished.holder(req.socket.remoteAddress ?? '');
  let stopped: StopReading | null = null;
  let bytesRead = 0;
  try {
    for await (const chunk of body) {
      bytesRead += (chunk as Buffer).length;
      if (bytesRead > connection.maxRequestBytes) {
        throw new StopReading(
          413,
          `the request body is longer than ${connection.maxRequestBytes} bytes (decompressed), the most this relay reads per request (--max-request-bytes); send the rest in another request`,
        );
      }
      lines.push(chunk as Buffer);
      if (lines.lineNo > connection.maxRequestLines) {
        throw new StopReading(
          413,
          `the request has more than ${connection.maxRequestLines} lines, the most this relay reads per request (--max-request-lines); send the rest in another request`,
        );
      }
      const over = holder.hold(lines.held);
      if (over !== null) throw new StopReading(over.scope === 'relay' ? 503 : 429, overdraftMessage(over));
      if (pending.length > READ_AHEAD_LINES) await settle();
      await ingest.relieved();
    }
    lines.end();
  } catch (e) {
    // what was read is stored; the harness resends and gets `duplicate: true` for it
    stopped = e instanceof StopReading ? e : new StopReading(400, `the request body could not be read: ${(e as Error).message}`);
  } finally {
    holder.release();
  }
  await settle();
  if (stopped !== null) {
    report.error({ line: Math.min(lines.lineNo, connection.maxRequestLines) + 1, message: stopped.message });
    body.destroy();
    // the rest of the body is not read: close the connection rather than drain it
    return json(res, stopped.status, report.body(), { connection: 'close' });
  }
  json(res, report.failed ? 400 : 200, report.body());
}
