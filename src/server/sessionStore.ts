// The one contract under the relay: what a store of sessions does, and nothing more. The JSONL
// files (store.ts, the default) and Redis Streams (redisStore.ts, `serve --store redis://…`)
// implement it; the gate (sessionGate.ts), the ingest path (ingest.ts) and the fan-out
// (fanout.ts) are written once on it, so each ordering, retry and subscriber rule exists once
// (test/relay/storeContract.test.ts runs the same cases against both stores).
//
// A store answers synchronously when it can (the files: one process owns them) and with a
// Promise when it must ask someone (Redis): `Maybe` keeps the files' path free of promises,
// which bench/relay.ts measures.
import type { SessionHeader } from '../core/wire.ts';
import type { RelaySession } from '../protocol/relay.ts';
import { shownTitle } from './quoted.ts';

export type Maybe<T> = T | Promise<T>;

/** `f(v)`: now when `v` is a value, once it resolves when it is a Promise (named so that no module exports a `then`, which would make it thenable). */
export function andThen<T, U>(v: Maybe<T>, f: (value: T) => Maybe<U>): Maybe<U> {
  return v instanceof Promise ? v.then(f) : f(v);
}

/**
 * docs/relay-protocol.md "Retries": a message equal to one among the session's last
 * RETRY_WINDOW messages is a retry (acknowledged again with its seq); an older copy is
 * refused, on both stores. A harness resends only what it has not seen acknowledged, far
 * fewer than this; the window keeps the files' memory per session bounded.
 */
export const RETRY_WINDOW = 1024;

/** What the gate needs to know of a session, and what the session list shows. */
export interface SessionState {
  readonly id: string;
  lastSeq: number;
  lastTurn: number | null;
  header: SessionHeader | null;
  /** the header's seq (0: none) */
  headerSeq: number;
  /** the span ids of the last stored snapshot: the texts a compact snapshot may carry (contract §7) */
  lastSpanIds: string[] | null;
  /** the same as a set, built once a compact snapshot needs it */
  lastSpanIdSet: { has(id: string): boolean } | null;
  /** bytes of the stored lines, newlines included */
  readonly bytes: number;
  createdAt: number;
  updatedAt: number;
  /**
   * a view that may be stale (another relay may have appended since): nothing is refused or
   * answered as a retry on it; the gate decides again on `state(id, true)`
   */
  readonly cached?: boolean;
}

/** One message to store as the session's next seq. */
export interface Append {
  sessionId: string;
  /** the session's last seq as the gate saw it (0: a new session); the store refuses (null) when it changed */
  expectedLastSeq: number;
  bytes: Buffer;
  turn: number | null;
  header: SessionHeader | null;
  spanIds?: string[];
  /** the id → index map validation built for `spanIds` */
  spanIndex?: ReadonlyMap<string, number>;
}

export interface StoredLine {
  seq: number;
  bytes: Buffer;
  /** the line's turn (null: a header), when the store remembers it without parsing */
  turn?: number | null;
}

export interface TailBatch {
  lines: StoredLine[];
  /** nothing more was stored when the batch was read: a subscriber is caught up after it */
  atEnd: boolean;
}

export interface SessionStore {
  /** what /api/health calls the store */
  readonly name: string;
  /** why nothing more can be stored, or null */
  readonly lost: string | null;
  /** the session's state; `fresh`: not a cached view */
  state(sessionId: string, fresh?: boolean): Maybe<SessionState | undefined>;
  /** sessions held (fresh: the limit --max-sessions is checked on it) */
  count(): Maybe<number>;
  /** sessions held, as last known (for /api/health) */
  knownCount(): number;
  /** Stores `a` as seq expectedLastSeq + 1 and returns that seq; null when the session's last seq is no longer the expected one; throws when it cannot store. */
  append(a: Append): Maybe<number | null>;
  /** Stored lines from..to (inclusive, clipped to what is stored), in pages. */
  read(sessionId: string, from: number, to: number): AsyncIterable<StoredLine[]>;
  /** Every line after `after`, then each one as it is stored, until `signal` aborts or the session is deleted. */
  tail(sessionId: string, after: number, signal: AbortSignal): AsyncIterable<TailBatch>;
  /** most recently updated first */
  list(): Promise<SessionState[]>;
  delete(sessionId: string): Maybe<boolean>;
}

/** A stored line as JSON (undefined: not JSON, which no store holds unless damaged). */
export function parseStored(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The turn of a stored message (null: not a snapshot). */
export function turnOf(v: unknown): number | null {
  if (typeof v !== 'object' || v === null) return null;
  const m = v as { type?: unknown; turn?: unknown };
  return m.type === 'snapshot' && typeof m.turn === 'number' ? m.turn : null;
}

/** One entry of the session list (`GET /api/sessions`). */
export function infoOf(s: SessionState): RelaySession {
  return {
    session_id: s.id,
    title: shownTitle(s.header?.title),
    messages: s.lastSeq,
    last_seq: s.lastSeq,
    last_turn: s.lastTurn,
    created_at: new Date(s.createdAt).toISOString(),
    updated_at: new Date(s.updatedAt).toISOString(),
  };
}

export interface Transcript {
  lastSeq: number;
  /** bytes of the lines */
  bytes: number;
  /** exactly lastSeq lines, each ending in LF */
  chunks(): AsyncIterable<Buffer>;
}

const NEWLINE = Buffer.from('\n');

/** A session's stored lines as one body (`GET /api/sessions/<id>/transcript`). */
export async function transcriptOf(store: SessionStore, sessionId: string): Promise<Transcript | undefined> {
  const s = await store.state(sessionId, true);
  if (s === undefined) return undefined;
  const last = s.lastSeq;
  return {
    lastSeq: last,
    bytes: s.bytes,
    async *chunks() {
      for await (const page of store.read(sessionId, 1, last)) {
        const parts: Buffer[] = [];
        for (const line of page) parts.push(line.bytes, NEWLINE);
        yield Buffer.concat(parts);
      }
    },
  };
}
