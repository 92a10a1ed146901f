// What the relay lets into a session's log: the engine's validation (contract §2,
// src/core/validate.ts), the relay's limits, and the ordering rules of
// docs/relay-protocol.md (a header before the first snapshot, turns strictly
// increasing, a message equal to an accepted one is a retry: acknowledged again with its
// original seq, not stored twice). No analysis runs here: the dashboard's Worker does it.
import { notJsonMessage, sessionIdOf } from '../core/inputErrors.ts';
import { jsonEqual } from '../core/equality.ts';
import { mayHoldLoneSurrogate, validateMessage } from '../core/validate.ts';
import type { SessionHeader } from '../core/wire.ts';
import { nodeDecoder } from '../node/platform.ts';
import { quoted } from './quoted.ts';
import { turnOf, type SessionLog, type SessionLogStore } from './store.ts';

export interface RelayLimits {
  /** bytes of one message (a WebSocket frame or an NDJSON line) */
  maxMessageBytes: number;
  maxSpansPerSnapshot: number;
  maxSessions: number;
}

export const DEFAULT_RELAY_LIMITS: Readonly<RelayLimits> = Object.freeze({
  maxMessageBytes: 16 * 1024 * 1024,
  maxSpansPerSnapshot: 10_000,
  maxSessions: 1000,
});

/** A session id becomes a file name; this keeps it under the usual 255-byte limit. */
const MAX_FILE_NAME_BYTES = 240;

/**
 * What a message is, decided from its bytes alone: the costly, stateless part (decoding,
 * JSON.parse, the engine's validation), which may run on a worker thread.
 */
export type Inspection =
  | { kind: 'blank' }
  | { kind: 'error'; message: string; sessionId?: string }
  | {
      kind: 'valid';
      sessionId: string;
      turn: number | null;
      header: SessionHeader | null;
      /** the compact form, when the message held a line break (a pretty-printed frame) */
      compact: string | null;
      /**
       * The parsed message, when inspected on the main thread (never sent back from a
       * validator thread: cloning it costs more than parsing): the relay's analysis reads it
       * instead of parsing the stored bytes again. `noSurrogateEscape` as for
       * Engine.ingestParsedLine.
       */
      parsed?: ParsedMessage;
    };

export interface ParsedMessage {
  value: unknown;
  noSurrogateEscape: boolean;
}

export type Decision =
  | {
      kind: 'accept';
      sessionId: string;
      session: SessionLog | undefined;
      turn: number | null;
      header: SessionHeader | null;
      bytes: Buffer;
      parsed: ParsedMessage | undefined;
    }
  | { kind: 'duplicate'; sessionId: string; seq: number; turn: number | null }
  | { kind: 'error'; message: string; sessionId?: string }
  | { kind: 'blank' };

export function inspect(raw: Uint8Array, limits: RelayLimits, keepValue = false): Inspection {
  if (raw.length > limits.maxMessageBytes) {
    return {
      kind: 'error',
      message: `the message is ${raw.length} bytes; this relay accepts at most ${limits.maxMessageBytes} bytes per message (--max-message-bytes)`,
    };
  }
  if (isBlank(raw)) return { kind: 'blank' };
  let text: string;
  try {
    text = nodeDecoder(raw, 0, raw.length);
  } catch {
    return { kind: 'error', message: 'not valid UTF-8: the message holds bytes that are not a UTF-8 encoding' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { kind: 'error', message: notJsonMessage(text, e) };
  }
  const checked = validateMessage(value);
  if (!checked.ok) {
    const sid = sessionIdOf(value);
    return { kind: 'error', message: checked.error, ...(sid === undefined ? {} : { sessionId: sid }) };
  }
  const message = checked.message;
  const sid = message.session_id;
  if (message.type === 'snapshot' && message.spans.length > limits.maxSpansPerSnapshot) {
    return {
      kind: 'error',
      sessionId: sid,
      message: `the snapshot has ${message.spans.length} spans; this relay accepts at most ${limits.maxSpansPerSnapshot} per snapshot (--max-spans)`,
    };
  }
  return {
    kind: 'valid',
    sessionId: sid,
    turn: message.type === 'snapshot' ? message.turn : null,
    header: message.type === 'session' ? message : null,
    // a line break inside the message would split it across two log lines
    compact: raw.includes(0x0a) || raw.includes(0x0d) ? JSON.stringify(value) : null,
    ...(keepValue ? { parsed: { value, noSurrogateEscape: !mayHoldLoneSurrogate(text) } } : {}),
  };
}

/** The stateful part, in arrival order: session limits, headers, turn order, retries. */
export function order(ins: Inspection, raw: Buffer, store: SessionLogStore, limits: RelayLimits): Decision {
  if (ins.kind !== 'valid') return ins;
  const sid = ins.sessionId;
  const bytes = ins.compact === null ? raw : Buffer.from(ins.compact);
  const session = store.get(sid);
  if (session === undefined) {
    if (sid === '.' || sid === '..') {
      // encodeURIComponent keeps dots, and URLs resolve . and .. as path steps: no route could reach it
      return {
        kind: 'error',
        sessionId: sid,
        message: `session_id ${quoted(sid)} cannot be used: a URL treats it as a path step, so the session could not be read back; choose another id`,
      };
    }
    if (Buffer.byteLength(encodeURIComponent(sid)) > MAX_FILE_NAME_BYTES) {
      return {
        kind: 'error',
        sessionId: sid,
        message: `session_id is too long: at most ${MAX_FILE_NAME_BYTES} bytes once percent-encoded (it names the session's log file)`,
      };
    }
    if (store.count() >= limits.maxSessions) {
      return {
        kind: 'error',
        sessionId: sid,
        message: `this relay already holds ${store.count()} sessions, its limit (--max-sessions); delete old sessions (DELETE /api/sessions/<id>) or raise the limit`,
      };
    }
    return { kind: 'accept', sessionId: sid, session: undefined, turn: ins.turn, header: ins.header, bytes, parsed: ins.parsed };
  }
  if (ins.header !== null) return judgeHeader(session, ins.header, bytes, ins.parsed);
  return judgeSnapshot(session, ins.turn!, raw, bytes, store, ins.parsed);
}

function judgeHeader(session: SessionLog, header: SessionHeader, bytes: Buffer, parsed: ParsedMessage | undefined): Decision {
  const sid = session.id;
  if (session.header !== null && jsonEqual(session.header, header)) {
    return { kind: 'duplicate', sessionId: sid, seq: session.headerSeq, turn: null };
  }
  if (session.header === null && session.lastTurn === null) return { kind: 'accept', sessionId: sid, session, turn: null, header, bytes, parsed };
  const why =
    session.header === null
      ? `a session header for ${quoted(sid)} must come before its first snapshot`
      : `a second, different session header for ${quoted(sid)}: a session has one header`;
  return { kind: 'error', sessionId: sid, message: why };
}

function judgeSnapshot(session: SessionLog, turn: number, raw: Buffer, bytes: Buffer, store: SessionLogStore, parsed: ParsedMessage | undefined): Decision {
  const sid = session.id;
  if (session.lastTurn === null || turn > session.lastTurn) return { kind: 'accept', sessionId: sid, session, turn, header: null, bytes, parsed };
  // A turn that does not increase is either a retry of a stored message or an error.
  // Turns increase with seq, so the stored copy, if any, is found by bisecting the recent
  // ring: a few lines read back at most, however many turns a confused harness resends.
  const oldest = session.oldestRecent();
  const turnAt = (seq: number): number => {
    if (seq === session.headerSeq) return Number.NEGATIVE_INFINITY;
    let t = session.recentTurnOf(seq);
    if (Number.isNaN(t)) {
      // not known since a restart: read it back
      t = turnOf(parse(store.readRecentLine(session, seq))) ?? Number.NEGATIVE_INFINITY;
      session.setRecentTurn(seq, t);
    }
    return t;
  };
  let lo = oldest;
  let hi = session.lastSeq;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const t = turnAt(mid);
    if (t < turn) lo = mid + 1;
    else if (t > turn) hi = mid - 1;
    else {
      const stored = store.readRecentLine(session, mid);
      if (stored.equals(raw) || stored.equals(bytes) || jsonEqual(parse(stored), parse(bytes))) {
        return { kind: 'duplicate', sessionId: sid, seq: mid, turn };
      }
      break;
    }
  }
  const remembered = oldest > 1 ? ` (retries are recognised among the last ${session.lastSeq - oldest + 1} messages)` : '';
  return {
    kind: 'error',
    sessionId: sid,
    message: `turn ${turn} of session ${quoted(sid)} does not increase (the last stored snapshot is turn ${session.lastTurn}), and it is not a copy of a stored snapshot${remembered}`,
  };
}

function parse(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

export function isBlank(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return false;
  }
  return true;
}
