// The one path every message takes into the relay (harness WebSocket, NDJSON POST, the
// built-in demo): judge, append to the session's log, then fan out. Synchronous from
// the first byte to the seq, so messages are ordered exactly as they arrived.
import { judge, type Limits } from './sessionGate.ts';
import type { Fanout } from './fanout.ts';
import type { SessionStore } from './store.ts';

export type IngestResult =
  | { ok: true; sessionId: string; seq: number; turn: number | null; duplicate: boolean }
  | { ok: false; message: string; sessionId?: string }
  | { ok: 'blank' };

export interface IngestCounters {
  accepted: number;
  duplicates: number;
  rejected: number;
  bytes: number;
}

export class Ingest {
  readonly counters: IngestCounters = { accepted: 0, duplicates: 0, rejected: 0, bytes: 0 };

  constructor(
    private readonly store: SessionStore,
    private readonly fanout: Fanout,
    private readonly limits: Limits,
  ) {}

  message(raw: Buffer): IngestResult {
    const d = judge(raw, this.store, this.limits);
    switch (d.kind) {
      case 'blank':
        return { ok: 'blank' };
      case 'error':
        this.counters.rejected++;
        return { ok: false, message: d.message, ...(d.sessionId === undefined ? {} : { sessionId: d.sessionId }) };
      case 'duplicate':
        this.counters.duplicates++;
        return { ok: true, sessionId: d.sessionId, seq: d.seq, turn: d.turn, duplicate: true };
      case 'accept': {
        const isNew = d.session === undefined;
        const session = d.session ?? this.store.create(d.sessionId);
        let seq: number;
        try {
          seq = this.store.append(session, d.bytes, d.turn);
        } catch (e) {
          if (isNew) this.store.delete(d.sessionId);
          this.counters.rejected++;
          return { ok: false, sessionId: d.sessionId, message: `the relay could not store the message: ${(e as Error).message}` };
        }
        if (d.header !== null) {
          session.header = d.header;
          session.headerSeq = seq;
        }
        this.counters.accepted++;
        this.counters.bytes += d.bytes.length;
        this.fanout.publish(d.sessionId, seq, d.bytes);
        return { ok: true, sessionId: d.sessionId, seq, turn: d.turn, duplicate: false };
      }
    }
  }
}
