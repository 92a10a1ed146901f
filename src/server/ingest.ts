// The one path every message takes into the relay (harness WebSocket, NDJSON POST, the
// built-in demo): inspect (decode, parse, validate: on a worker thread for large
// messages), then, strictly in arrival order, apply the session's ordering rules, append
// to its log, and fan out. Results resolve in arrival order, so a connection's acks go
// back in frame order.
import { Backpressure } from './backpressure.ts';
import type { AckVerdict } from '../protocol/relay.ts';
import type { Fanout } from './fanout.ts';
import { order, type Inspection, type ParsedMessage, type RelayLimits } from './sessionGate.ts';
import type { SessionLogStore } from './store.ts';
import type { Validator } from './validator.ts';

export type IngestResult =
  | { ok: true; sessionId: string; seq: number; turn: number | null; duplicate: boolean; verdict?: AckVerdict | null }
  | { ok: false; message: string; sessionId?: string }
  | { ok: 'blank' };

/** contract §7 verdict in the acknowledgement: the relay's analysis (src/server/analysis), when on. */
export interface IngestAnalysis {
  /** `parsed`: the message as inspection parsed it, when it did so on the main thread */
  stored(sessionId: string, seq: number, bytes: Buffer, parsed?: ParsedMessage): AckVerdict | null | Promise<AckVerdict | null>;
  duplicate(sessionId: string, seq: number): AckVerdict | null | Promise<AckVerdict | null>;
}

export interface IngestCounters {
  accepted: number;
  duplicates: number;
  rejected: number;
  bytes: number;
  /** messages received and not yet answered, and their bytes */
  waiting: number;
  waitingBytes: number;
}

interface Arrival {
  raw: Buffer;
  inspection: Inspection | null;
  resolve: (r: IngestResult | Promise<IngestResult>) => void;
}

export class Ingest {
  readonly counters: IngestCounters = { accepted: 0, duplicates: 0, rejected: 0, bytes: 0, waiting: 0, waitingBytes: 0 };
  private readonly backpressure = new Backpressure(this.counters);
  private queue: Arrival[] = [];
  private head = 0;
  /** set by the relay unless --no-analysis: acks then carry the turn's verdict */
  analysis: IngestAnalysis | null = null;

  constructor(
    private readonly store: SessionLogStore,
    private readonly fanout: Fanout,
    private readonly limits: RelayLimits,
    private readonly validator: Validator,
  ) {}

  /** too much received and not yet stored: harness sockets should stop being read */
  get saturated(): boolean {
    return this.backpressure.saturated;
  }

  onRelieved(listener: () => void): () => void {
    return this.backpressure.onRelieved(listener);
  }

  relieved(): Promise<void> {
    return this.backpressure.relieved();
  }

  message(raw: Buffer): Promise<IngestResult> {
    return new Promise((resolve) => {
      const arrival: Arrival = { raw, inspection: null, resolve };
      this.queue.push(arrival);
      this.backpressure.arrived(raw.length);
      const ins = this.validator.inspect(raw);
      if (ins instanceof Promise) {
        void ins.then((i) => {
          arrival.inspection = i;
          this.drain();
        });
      } else {
        arrival.inspection = ins;
        this.drain();
      }
    });
  }

  /** Applies every inspected message at the head of the queue, in arrival order. */
  private drain(): void {
    while (this.head < this.queue.length) {
      const a = this.queue[this.head]!;
      if (a.inspection === null) break;
      this.head++;
      let result: IngestResult | Promise<IngestResult>;
      try {
        result = this.apply(a.raw, a.inspection);
      } catch (e) {
        // e.g. the log could not be read back to compare a retry: refuse, keep going
        this.counters.rejected++;
        result = { ok: false, message: `the relay could not process the message: ${(e as Error).message}` };
      }
      // a message waits until its ack is ready: one waiting for its verdict from the analysis
      // threads counts too, so a lagging analysis stops the harness sockets being read
      // instead of queuing their messages without bound
      if (result instanceof Promise) {
        const done = this.backpressure.answered.bind(this.backpressure, a.raw.length);
        result.then(done, done);
      } else this.backpressure.answered(a.raw.length);
      a.resolve(result);
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 1024) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  private apply(raw: Buffer, inspection: Inspection): IngestResult | Promise<IngestResult> {
    const d = order(inspection, raw, this.store, this.limits);
    switch (d.kind) {
      case 'blank':
        return { ok: 'blank' };
      case 'error':
        this.counters.rejected++;
        return { ok: false, message: d.message, ...(d.sessionId === undefined ? {} : { sessionId: d.sessionId }) };
      case 'duplicate':
        this.counters.duplicates++;
        return withVerdict({ ok: true, sessionId: d.sessionId, seq: d.seq, turn: d.turn, duplicate: true }, this.analysis?.duplicate(d.sessionId, d.seq));
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
        if (d.spanIds !== undefined) session.noteSpanIds(d.spanIds, d.spanIndex);
        this.counters.accepted++;
        this.counters.bytes += d.bytes.length;
        this.fanout.publish(d.sessionId, seq, d.bytes);
        return withVerdict(
          { ok: true, sessionId: d.sessionId, seq, turn: d.turn, duplicate: false },
          this.analysis?.stored(d.sessionId, seq, d.bytes, d.parsed),
        );
      }
    }
  }
}

/** The ack with the analysis's verdict; it waits only when the analysis does (a session re-read after a restart). */
function withVerdict(
  ack: IngestResult & { ok: true },
  verdict: AckVerdict | null | Promise<AckVerdict | null> | undefined,
): IngestResult | Promise<IngestResult> {
  if (verdict === undefined) return ack;
  if (verdict instanceof Promise) return verdict.then((v) => ({ ...ack, verdict: v }));
  return { ...ack, verdict };
}
