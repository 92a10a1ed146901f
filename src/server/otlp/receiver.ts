// `POST /v1/traces`: the OTLP/HTTP traces receiver (contract §7.4; docs/relay-protocol.md
// "OpenTelemetry"). Any agent instrumented with OpenTelemetry streams to the relay by
// pointing its OTLP exporter here. Per the OTLP/HTTP specification:
// - bodies are `application/x-protobuf` (ExportTraceServiceRequest, decoded by the official
//   definitions' generated code, protobuf.ts) or `application/json` (OTLP/JSON: hex ids,
//   int64 as strings or numbers), `Content-Encoding: gzip` or none;
// - success is 200 with an ExportTraceServiceResponse in the request's encoding, its
//   `partial_success` counting the spans rejected and saying why (or warning, with 0);
// - a body that cannot be used is answered with a google.rpc.Status (400 undecodable, 413
//   too large, 415 unsupported media type, 401/403 as the access policy says), and nothing
//   is stored.
// The spans become contract §2 messages (src/ingest/adapters/otlp/), scored by the reference
// scorer where they carry no score (scoringStage.ts), and take the path of every other
// message (ingest.ts): validated, stored, acknowledged, fanned out.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OtlpAdapter, type OtlpMessage } from '../../ingest/adapters/otlp/adapter.ts';
import type { Rejected } from '../../ingest/adapters/otlp/model.ts';
import type { Snapshot } from '../../core/wire.ts';
import { Bm25Scorer } from '../../core/referenceScorer.ts';
import { nodeSha256 } from '../../node/platform.ts';
import type { AccessPolicy } from '../accessPolicy.ts';
import type { Ingest } from '../ingest.ts';
import { OtlpDecoder } from './decoder.ts';
import { unpack } from './packedEvents.ts';
import { encodeStatus, encodeTraceResponse } from './protobuf.ts';

export const OTLP_TRACES_PATH = '/v1/traces';

/** google.rpc.Code values used in the error bodies */
const INVALID_ARGUMENT = 3;
const PERMISSION_DENIED = 7;
const RESOURCE_EXHAUSTED = 8;
const UNAUTHENTICATED = 16;
const UNIMPLEMENTED = 12;
const UNAVAILABLE = 14;
/** seconds an exporter refused for the decode budget is asked to wait */
const RETRY_AFTER_S = 1;
/** rejections listed in one partial_success message; the rest are counted */
const LISTED_REJECTIONS = 20;
/** sessions whose reference scorer is kept (it holds the last turn's texts); the least recently used beyond are dropped */
const KEPT_SCORERS = 1000;

/**
 * bytes of messages handed to the relay and not yet answered, per release: past it the
 * next snapshot waits (send). Small beside a 16 MiB export, large enough that storing
 * never waits on one message at a time.
 */
const SEND_WINDOW_BYTES = 2 << 20;

type Encoding = 'json' | 'protobuf';

/** what a refusal of a sent message is reported with (the message itself is dropped once sent) */
interface Sent {
  sessionId: string;
  turn: number | undefined;
  spanId: string | undefined;
}

export interface OtlpReceiverOptions {
  ingest: Ingest;
  access: AccessPolicy;
  /** the largest body read, compressed or not (the relay's --max-message-bytes) */
  maxBodyBytes: number;
  /** the most spans in one export (the relay's --max-spans): more would hold the event loop while they are mapped */
  maxSpans: number;
  reorderMs?: number;
  /**
   * request bytes read and decoded at once (the relay's --otlp-decode-budget): each export
   * reserves its Content-Length (the limit when it is gzip or gives none) until it is
   * answered; one that does not fit beside those in progress is answered 503 with
   * Retry-After, which OTLP exporters retry. One export is always taken, whatever its size.
   */
  decodeBudgetBytes?: number;
  /** the last turn the relay holds for a session, null when it has none (after a restart) */
  storedTurn: (sessionId: string) => number | null;
  log: (line: string) => void;
}

export class OtlpReceiver {
  private readonly adapter: OtlpAdapter;
  /** contract §7 reference scorer, one per session without scores of its own */
  private readonly scorers = new Map<string, { scorer: Bm25Scorer; hashes: Map<string, { text: string; hash: string }> }>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly decoder = new OtlpDecoder();
  /** bytes reserved by the exports being read or decoded (decodeBudgetBytes) */
  private reserved = 0;
  /** the release in progress (inTurn) */
  private releasing: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: OtlpReceiverOptions) {
    this.adapter = new OtlpAdapter({ sha256: nodeSha256, reorderMs: options.reorderMs, storedTurn: options.storedTurn });
  }

  /** Spans held in the reorder window. */
  get held(): number {
    return this.adapter.held;
  }

  async serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const media = mediaType(req.headers['content-type']);
    const encoding: Encoding = media === 'application/x-protobuf' ? 'protobuf' : 'json';
    if (req.method !== 'POST') {
      drain(req);
      return reply(res, 405, encoding, status(UNIMPLEMENTED, `${req.method ?? ''} is not answered here; OTLP/HTTP exports with POST ${OTLP_TRACES_PATH}`), {
        allow: 'POST',
      });
    }
    const refused = this.options.access.check(req, url, 'write');
    if (refused !== null) {
      drain(req);
      return reply(res, refused.status, encoding, status(refused.status === 401 ? UNAUTHENTICATED : PERMISSION_DENIED, refused.message), refused.headers);
    }
    if (media !== 'application/x-protobuf' && media !== 'application/json') {
      drain(req);
      const given = media === null ? 'no Content-Type' : `Content-Type ${JSON.stringify(media.slice(0, 100))}`;
      return reply(res, 415, 'json', status(INVALID_ARGUMENT, `${given} is not an OTLP/HTTP body: send application/x-protobuf or application/json`));
    }
    const contentEncoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
    if (contentEncoding !== 'gzip' && contentEncoding !== 'identity') {
      drain(req);
      return reply(
        res,
        415,
        encoding,
        status(INVALID_ARGUMENT, `Content-Encoding ${JSON.stringify(contentEncoding.slice(0, 50))} is not supported: send gzip or none`),
      );
    }
    const limit = this.options.maxBodyBytes;
    const declared = Number(req.headers['content-length']);
    const reserve = contentEncoding === 'identity' && Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, limit) : limit;
    const budget = this.options.decodeBudgetBytes ?? Number.POSITIVE_INFINITY;
    if (this.reserved > 0 && this.reserved + reserve > budget) {
      drain(req);
      return reply(
        res,
        503,
        encoding,
        status(
          UNAVAILABLE,
          `the relay is decoding ${this.reserved} bytes of other exports; it decodes at most ${budget} at once (--otlp-decode-budget): retry after ${RETRY_AFTER_S} s`,
        ),
        { 'retry-after': String(RETRY_AFTER_S) },
      );
    }
    this.reserved += reserve;
    try {
      await this.decodeAndStore(req, res, encoding, contentEncoding, limit);
    } finally {
      this.reserved -= reserve;
    }
  }

  private async decodeAndStore(req: IncomingMessage, res: ServerResponse, encoding: Encoding, contentEncoding: string, limit: number): Promise<void> {
    const tooLarge = (what: string): Promise<void> | void =>
      reply(
        res,
        413,
        encoding,
        status(
          RESOURCE_EXHAUSTED,
          `the ${what} is longer than ${limit} bytes, the most this relay reads per OTLP request (--max-message-bytes): export smaller batches`,
        ),
      );
    const raw = await readBody(req, limit);
    if (raw === null) return tooLarge('request body');
    // decoded on the decode thread (decoder.ts): the event loop keeps answering meanwhile
    const decoded = await this.decoder.decode({
      body: raw,
      encoding,
      gzip: contentEncoding === 'gzip',
      maxBytes: limit,
      maxSpans: this.options.maxSpans,
    });
    if (!decoded.ok) {
      if (decoded.kind === 'too-large') return tooLarge('decompressed request body');
      if (decoded.kind === 'gzip') return reply(res, 400, encoding, status(INVALID_ARGUMENT, `the gzip body could not be decompressed: ${decoded.message}`));
      if (decoded.kind === 'too-many-spans') {
        return reply(
          res,
          413,
          encoding,
          status(
            RESOURCE_EXHAUSTED,
            `the export holds ${decoded.spans ?? 0} spans; this relay accepts at most ${this.options.maxSpans} per OTLP request (--max-spans): export smaller batches`,
          ),
        );
      }
      if (decoded.kind === 'not-a-request') return reply(res, 400, encoding, status(INVALID_ARGUMENT, decoded.message));
      const what =
        encoding === 'protobuf' ? 'the protobuf body is not an ExportTraceServiceRequest (truncated or not protobuf)' : 'the JSON body is not valid JSON';
      return reply(res, 400, encoding, status(INVALID_ARGUMENT, `${what}: ${decoded.message}`));
    }
    let result;
    try {
      result = this.adapter.receivePrepared(unpack(decoded.prepared), Date.now());
    } catch (e) {
      return reply(res, 400, encoding, status(INVALID_ARGUMENT, (e as Error).message));
    }
    // with no window (or nothing to wait for), what is due is stored before the answer
    const refusedLater = await this.release();
    const rejected: Rejected[] = [...result.rejected, ...refusedLater];
    this.schedule();
    const partial =
      rejected.length > 0
        ? { rejectedSpans: rejected.length, errorMessage: describeRejected(rejected) }
        : result.warning !== null
          ? { rejectedSpans: 0, errorMessage: result.warning }
          : null;
    if (rejected.length > 0) this.options.log(`OTLP: ${rejected.length} span(s) rejected: ${describeRejected(rejected)}`);
    reply(
      res,
      200,
      encoding,
      encoding === 'protobuf'
        ? encodeTraceResponse(partial)
        : partial === null
          ? {}
          : { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } },
    );
  }

  /** Stores everything still held (the relay is closing). */
  async close(): Promise<void> {
    this.closed = true;
    await this.decoder.close();
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.inTurn(() => this.send(this.adapter.flushEach()));
  }

  /** Sends the messages whose window has passed; returns the ones the relay refused, as rejections. */
  private async release(): Promise<Rejected[]> {
    return this.inTurn(() => this.send(this.adapter.dueEach(Date.now())));
  }

  /**
   * Runs one release after the one before it has sent everything: a release hands its
   * messages to the relay a window at a time (send), so two at once would interleave one
   * session's turns. (They were all handed over at once before, in one synchronous step.)
   */
  private inTurn<T>(run: () => Promise<T>): Promise<T> {
    const next = this.releasing.then(run);
    this.releasing = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  /**
   * Each message built (the adapter's iterable builds one when asked), stored through the
   * ingest path and dropped: at most SEND_WINDOW_BYTES of them wait for their verdict at
   * once, so an export of 10,000 model calls is never 10,000 snapshots and their JSON at
   * once (docs/security.md "Bounded amplification"). The order they reach the relay in is
   * the adapter's, as before.
   */
  private async send(messages: Iterable<OtlpMessage>): Promise<Rejected[]> {
    const waiting: { about: Sent; bytes: number; result: ReturnType<Ingest['message']> }[] = [];
    let bytes = 0;
    const rejected: Rejected[] = [];
    const settle = async (): Promise<void> => {
      const w = waiting.shift()!;
      bytes -= w.bytes;
      const r = await w.result;
      if (r.ok === false) {
        const v = w.about;
        const where = v.spanId !== undefined ? `span ${v.spanId}` : `the header of session ${JSON.stringify(v.sessionId)}`;
        rejected.push({ where, message: r.message });
        this.options.log(`OTLP: the relay refused ${where} (session ${JSON.stringify(v.sessionId)}, turn ${v.turn ?? '-'}): ${r.message}`);
      }
    };
    for (const m of messages) {
      // contract §7: sessions without scores are scored by the reference, as other adapters' are
      if (m.unscored && m.value.type === 'snapshot') this.score(m.value);
      const raw = Buffer.from(JSON.stringify(m.value));
      const v = m.value as { session_id: string; turn?: number; otlp?: { span_id?: string } };
      waiting.push({ about: { sessionId: v.session_id, turn: v.turn, spanId: v.otlp?.span_id }, bytes: raw.length, result: this.options.ingest.message(raw) });
      bytes += raw.length;
      while (bytes > SEND_WINDOW_BYTES) await settle();
    }
    while (waiting.length > 0) await settle();
    return rejected;
  }

  /**
   * The reference scorer applied as scoringStage.ts applies it to other adapters' sessions
   * (`check --scorer auto`): BM25 against the session's task, each score bound to the hash
   * of the text it was computed on (contract §2.3). Here with bounded memory: the relay runs
   * for days.
   */
  private score(snapshot: Snapshot): void {
    let s = this.scorers.get(snapshot.session_id);
    if (s !== undefined) this.scorers.delete(snapshot.session_id);
    else s = { scorer: new Bm25Scorer(), hashes: new Map() };
    this.scorers.set(snapshot.session_id, s);
    if (this.scorers.size > KEPT_SCORERS) this.scorers.delete(this.scorers.keys().next().value!);
    const scores = s.scorer.scoreTurn(snapshot.spans);
    const hashes = new Map<string, { text: string; hash: string }>();
    snapshot.spans.forEach((span, i) => {
      const known = s.hashes.get(span.span_id);
      const hash = known !== undefined && known.text === span.text ? known.hash : nodeSha256(span.text);
      hashes.set(span.span_id, { text: span.text, hash });
      span.score = scores[i]!;
      span.text_sha256 = hash;
    });
    s.hashes = hashes;
  }

  private schedule(): void {
    if (this.closed) return;
    const next = this.adapter.nextDueMs();
    if (next === null) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = null;
        void this.release().then(() => this.schedule());
      },
      Math.max(0, next - Date.now()),
    );
    this.timer.unref();
  }
}

function mediaType(header: string | undefined): string | null {
  if (header === undefined) return null;
  return header.split(';')[0]!.trim().toLowerCase();
}

function status(code: number, message: string): { code: number; message: string } {
  return { code, message };
}

function describeRejected(rejected: Rejected[]): string {
  const listed = rejected.slice(0, LISTED_REJECTIONS).map((r) => `${r.where}: ${r.message}`);
  const more = rejected.length > LISTED_REJECTIONS ? `; and ${rejected.length - LISTED_REJECTIONS} more` : '';
  return listed.join('; ') + more;
}

/**
 * The body, or null when it is longer than `limit`. A longer body is still read (and
 * thrown away) up to 4 × limit, so the exporter reads the 413 instead of a reset
 * connection; past that the connection is closed. With a Content-Length the body is read
 * into one buffer of that size as it arrives (not gathered, then copied: twice the body at
 * once), a buffer of its own so that it can be handed to the decode thread.
 */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const declared = Number(req.headers['content-length']);
  const into = Number.isSafeInteger(declared) && declared >= 0 && declared <= limit ? Buffer.allocUnsafeSlow(declared) : null;
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of req) {
    const c = chunk as Buffer;
    if (into !== null && length + c.length <= into.length) into.set(c, length);
    else if (into === null && length + c.length <= limit) chunks.push(c);
    length += c.length;
    if (length > 4 * limit) {
      req.destroy();
      return null;
    }
  }
  if (length > limit) return null;
  // Node's parser ends the body at its Content-Length, so a declared length is the length read
  if (into !== null) return length === into.length ? into : into.subarray(0, length);
  return Buffer.concat(chunks);
}

function drain(req: IncomingMessage): void {
  req.resume();
}

function reply(res: ServerResponse, code: number, encoding: Encoding, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  let bytes: Uint8Array;
  if (encoding === 'protobuf') {
    const b = body instanceof Uint8Array ? body : encodeStatus((body as { code: number }).code, (body as { message: string }).message);
    bytes = b;
  } else bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(code, {
    'content-type': encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json',
    'content-length': bytes.length,
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(bytes);
}
