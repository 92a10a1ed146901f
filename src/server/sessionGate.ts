// What the relay lets into a session's log: the engine's validation (contract §2,
// src/core/validate.ts), the relay's limits, and the ordering rules of
// docs/relay-protocol.md (a header before the first snapshot, turns strictly
// increasing, a message equal to an accepted one is a retry: acknowledged again with its
// original seq, not stored twice). No analysis runs here: the dashboard's Worker does it.
// Written once, on the session-store contract (sessionStore.ts): both stores run these rules.
import { declaresCompact, expandSnapshot, omissionError, omissionsOf, sameSnapshotModuloOmissions, type Omissions } from '../core/compact.ts';
import { notJsonMessage, sessionIdOf } from '../core/inputErrors.ts';
import { jsonEqual } from '../core/equality.ts';
import { mayHoldLoneSurrogate, validateMessage, type Validated } from '../core/validate.ts';
import type { SessionHeader } from '../core/wire.ts';
import { nodeDecoder } from '../node/platform.ts';
import { quoted } from './quoted.ts';
import { parseStored as parse, RETRY_WINDOW, andThen, turnOf, type Append, type Maybe, type SessionState, type SessionStore } from './sessionStore.ts';

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

/** the longest session title accepted (lists and alerts show at most quoted.ts SHOWN_TITLE_CHARS of it) */
export const MAX_TITLE_CHARS = 1024;

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
      /** a snapshot's span ids, in order: what the next compact snapshot may carry texts from (contract §7) */
      spanIds?: string[];
      /** spans that left out their text (contract §7 compact wire), and the version-1 error for them */
      omitted?: { om: Omissions };
      /**
       * The parsed message, when inspected on the main thread (never sent back from a
       * validator thread: cloning it costs more than parsing) and whole (a compact snapshot's
       * value was filled in for validation): the relay's analysis reads it instead of parsing
       * the stored bytes again. `noSurrogateEscape` as for Engine.ingestParsedLine.
       */
      parsed?: ParsedMessage;
      /** the span ids' index validation built, when inspected on the main thread without `parsed` (analysis threads) */
      spanIndex?: ReadonlyMap<string, number>;
    };

export interface ParsedMessage {
  value: unknown;
  noSurrogateEscape: boolean;
  /** the gate's validation of `value` (contract §2): the analysis's engine does not repeat it (Engine.ingestValidated) */
  validated?: Validated & { ok: true };
}

export type Decision =
  | { kind: 'accept'; append: Append; parsed: ParsedMessage | undefined }
  | { kind: 'duplicate'; sessionId: string; seq: number; turn: number | null }
  | { kind: 'error'; message: string; sessionId?: string }
  | { kind: 'blank' };

export function inspect(raw: Uint8Array, limits: RelayLimits, keepValue = false, keepIndex = false): Inspection {
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
  // contract §7 compact wire: whether a left-out text can be carried depends on the session
  // (its header and previous snapshot), which only order() knows; here the rest is checked
  // with the left-out texts as empty strings, and the version-1 error kept for a session
  // that did not declare the compact wire.
  // a line break inside the message would split it across two log lines: the stored form
  // is taken before the left-out texts are filled in below
  const storedForm = raw.includes(0x0a) || raw.includes(0x0d) ? JSON.stringify(value) : null;
  const om = omissionsOf(value);
  const omitted = om === null ? undefined : { om };
  // no string can hold a lone surrogate without a \ud escape in the text: the per-string check is skipped
  const noSurrogateEscape = !mayHoldLoneSurrogate(text);
  const checked = validateMessage(om === null ? value : expandSnapshot(value as object, om, () => ''), noSurrogateEscape);
  // back to the compact form as received, for the analysis's engine to carry the texts
  // itself (contract §7): the value is handed on instead of being parsed a second time
  if (om !== null && keepValue) restoreOmissions(value as { base_turn?: unknown; spans: Record<string, unknown>[] }, om);
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
  // a title is repeated in every list, overview and alert: 30 headers of 8 MiB once made the overview unanswerable
  if (message.type === 'session' && typeof message.title === 'string' && message.title.length > MAX_TITLE_CHARS) {
    return {
      kind: 'error',
      sessionId: sid,
      message: `the session's title is ${message.title.length} characters; this relay accepts at most ${MAX_TITLE_CHARS}`,
    };
  }
  return {
    kind: 'valid',
    sessionId: sid,
    turn: message.type === 'snapshot' ? message.turn : null,
    header: message.type === 'session' ? message : null,
    compact: storedForm,
    ...(checked.spans === undefined ? {} : { spanIds: checked.spans.ids }),
    ...(omitted === undefined ? {} : { omitted }),
    // a compact snapshot's value is back in its compact form (above): the analysis's engine
    // carries the texts (contract §7) without parsing the stored line again
    ...(keepValue ? { parsed: { value, noSurrogateEscape, validated: checked } } : {}),
    ...(!keepValue && keepIndex && checked.spans !== undefined ? { spanIndex: checked.spans.index } : {}),
  };
}

/**
 * Undoes expandSnapshot's filling-in: the left-out texts are removed again and `base_turn`
 * put back. Removing the property added last keeps V8's fast object shape.
 */
function restoreOmissions(value: { base_turn?: unknown; spans: Record<string, unknown>[] }, om: Omissions): void {
  for (const i of om.indices) delete value.spans[i]!.text;
  if (om.baseTurn !== undefined) value.base_turn = om.baseTurn;
}

/**
 * The stateful part, in each session's arrival order: session limits, headers, turn order,
 * retries. `session`: the store's state of it; `count`: the sessions the store holds (read
 * only for a new session). Answers at once unless a retry's stored copy must be read back.
 */
export function order(
  ins: Inspection,
  raw: Buffer,
  session: SessionState | undefined,
  count: () => Maybe<number>,
  store: Pick<SessionStore, 'read'>,
  limits: RelayLimits,
): Maybe<Decision> {
  if (ins.kind !== 'valid') return ins;
  const sid = ins.sessionId;
  const bytes = ins.compact === null ? raw : Buffer.from(ins.compact);
  const accept = (): Decision => ({
    kind: 'accept',
    append: { sessionId: sid, expectedLastSeq: session?.lastSeq ?? 0, bytes, turn: ins.turn, header: ins.header, ...spanIdsOf(ins) },
    parsed: ins.parsed,
  });
  if (session === undefined) {
    return andThen(count(), (n): Decision => {
      const refusal = newSessionRefusal(sid, n, limits);
      if (refusal !== null) return { kind: 'error', sessionId: sid, message: refusal };
      // a new session has no header that could declare the compact wire
      if (ins.omitted !== undefined) return { kind: 'error', sessionId: sid, message: versionOneError(raw) };
      return accept();
    });
  }
  if (ins.header !== null) return judgeHeader(session, ins.header, accept);
  const turn = ins.turn!;
  if (session.lastTurn === null || turn > session.lastTurn) {
    const why = ins.omitted === undefined ? null : compactError(session, turn, ins.omitted, raw);
    return why === null ? accept() : { kind: 'error', sessionId: sid, message: why };
  }
  // a resent copy of a stored turn is judged against the stored line, as it came
  return judgeResent(session, turn, raw, bytes, store);
}

/** Why a message may not create the session `sid` (the relay holds `count` sessions), or null. Shared by both stores. */
export function newSessionRefusal(sid: string, count: number, limits: RelayLimits): string | null {
  if (sid === '.' || sid === '..') {
    // encodeURIComponent keeps dots, and URLs resolve . and .. as path steps: no route could reach it
    return `session_id ${quoted(sid)} cannot be used: a URL treats it as a path step, so the session could not be read back; choose another id`;
  }
  if (Buffer.byteLength(encodeURIComponent(sid)) > MAX_FILE_NAME_BYTES) {
    return `session_id is too long: at most ${MAX_FILE_NAME_BYTES} bytes once percent-encoded (it names the session's log file)`;
  }
  if (count >= limits.maxSessions) {
    return `this relay already holds ${count} sessions, its limit (--max-sessions); delete old sessions (DELETE /api/sessions/<id>) or raise the limit`;
  }
  return null;
}

function spanIdsOf(ins: Inspection): { spanIds?: string[]; spanIndex?: ReadonlyMap<string, number> } {
  if (ins.kind !== 'valid' || ins.spanIds === undefined) return {};
  // the id → index map validation built (when inspected here): the set the next compact snapshot is checked against
  const index = ins.parsed?.validated?.spans?.index ?? ins.spanIndex;
  return index === undefined ? { spanIds: ins.spanIds } : { spanIds: ins.spanIds, spanIndex: index };
}

/**
 * The version-1 error of a message that left out a text in a session that did not declare
 * the compact wire: exactly what validation says of it (contract §7: version 1 unchanged).
 * Computed only then: the schema's full report on 200 missing texts is costly.
 */
export function versionOneError(raw: Buffer): string {
  const v = validateMessage(parse(raw));
  return v.ok ? 'a span text is required but missing' : v.error;
}

/** contract §7 compact wire: why these left-out texts cannot be carried, or null. */
function compactError(session: SessionState, turn: number, omitted: { om: Omissions }, raw: Buffer): string | null {
  if (!declaresCompact(session.header)) return versionOneError(raw);
  const ids = session.lastSpanIds;
  if (session.lastTurn === null || ids === null) return omissionError(session.id, turn, omitted.om, null);
  const set = (session.lastSpanIdSet ??= new Set(ids));
  return omissionError(session.id, turn, omitted.om, { turn: session.lastTurn, has: (id) => set.has(id) });
}

function judgeHeader(session: SessionState, header: SessionHeader, accept: () => Decision): Decision {
  const sid = session.id;
  if (session.header !== null && jsonEqual(session.header, header)) {
    return { kind: 'duplicate', sessionId: sid, seq: session.headerSeq, turn: null };
  }
  if (session.header === null && session.lastTurn === null) return accept();
  const why =
    session.header === null
      ? `a session header for ${quoted(sid)} must come before its first snapshot`
      : `a second, different session header for ${quoted(sid)}: a session has one header`;
  return { kind: 'error', sessionId: sid, message: why };
}

/**
 * A turn that does not increase: a retry of a message among the last RETRY_WINDOW, or an
 * error. Turns increase with seq, so the stored copy, if any, is found by bisecting the
 * window: a few lines read back at most (the files remember their recent turns).
 */
async function judgeResent(session: SessionState, turn: number, raw: Buffer, bytes: Buffer, store: Pick<SessionStore, 'read'>): Promise<Decision> {
  const sid = session.id;
  const lineAt = async (seq: number): Promise<{ bytes: Buffer; turn: number }> => {
    for await (const page of store.read(sid, seq, seq)) {
      const line = page[0];
      if (line === undefined || line.seq !== seq) break;
      const t = line.turn === undefined ? turnOf(parse(line.bytes)) : line.turn;
      return { bytes: line.bytes, turn: t ?? Number.NEGATIVE_INFINITY };
    }
    throw new Error(`seq ${seq} of session ${quoted(sid)} could not be read back`);
  };
  const oldest = Math.max(1, session.lastSeq - RETRY_WINDOW + 1);
  let lo = oldest;
  let hi = session.lastSeq;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = mid === session.headerSeq ? { bytes: null, turn: Number.NEGATIVE_INFINITY } : await lineAt(mid);
    if (at.turn < turn) lo = mid + 1;
    else if (at.turn > turn) hi = mid - 1;
    else {
      const stored = at.bytes!;
      if (stored.equals(raw) || stored.equals(bytes) || sameStored(parse(stored), parse(bytes))) {
        return { kind: 'duplicate', sessionId: sid, seq: mid, turn };
      }
      break;
    }
  }
  const remembered = oldest > 1 ? ` (retries are recognised among the last ${RETRY_WINDOW} messages)` : '';
  return {
    kind: 'error',
    sessionId: sid,
    message: `turn ${turn} of session ${quoted(sid)} does not increase (the last stored snapshot is turn ${session.lastTurn}), and it is not a copy of a stored snapshot${remembered}`,
  };
}

/** A stored message and a resent one are the same: as parsed JSON, or the same snapshot sent compact on one side only (contract §7). */
function sameStored(stored: unknown, sent: unknown): boolean {
  return jsonEqual(stored, sent) || sameSnapshotModuloOmissions(stored, sent, jsonEqual);
}

export function isBlank(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return false;
  }
  return true;
}
