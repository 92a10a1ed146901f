// The one path every message takes into the relay (harness WebSocket, NDJSON POST, the
// built-in demo), whichever store holds the sessions: inspect (decode, parse, validate: on a
// worker thread for large messages), then, in arrival order for each session, apply the
// gate's rules (sessionGate.ts) to the session's state and append with the seq the gate saw
// (sessionStore.ts). A store that refuses the append (another relay on the same Redis
// appended first) gets the message decided again on its new state. Results resolve in
// arrival order per session, so a connection's acks go back in frame order; dashboards read
// what was stored through the store's tail (fanout.ts).
import { Backpressure } from './backpressure.ts';
import type { AckVerdict } from '../protocol/relay.ts';
import { quoted } from './quoted.ts';
import { order, type Decision, type Inspection, type ParsedMessage, type RelayLimits } from './sessionGate.ts';
import { andThen, type Maybe, type SessionStore } from './sessionStore.ts';
import type { Validator } from './validator.ts';

/** decisions made again before a message is refused (only under heavy contention on one session across relays) */
const MAX_ATTEMPTS = 50;

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

type VerdictAnswer = AckVerdict | null | Promise<AckVerdict | null> | undefined;

/** A message applied: what its ack says, and (stored or a retry) how to ask for its verdict. */
type Applied = { result: IngestResult; verdict?: undefined } | { result: IngestResult & { ok: true }; verdict: () => VerdictAnswer };

interface Arrival {
  raw: Buffer;
  inspection: Inspection | null;
  resolve: (r: Maybe<IngestResult>) => void;
}

export class Ingest {
  readonly counters: IngestCounters = { accepted: 0, duplicates: 0, rejected: 0, bytes: 0, waiting: 0, waitingBytes: 0 };
  private readonly backpressure = new Backpressure(this.counters);
  private queue: Arrival[] = [];
  private head = 0;
  /** per session: the last message still being applied (a retry read back, a store that answers later) */
  private readonly inFlight = new Map<string, Promise<Applied>>();
  /** set by the relay unless --no-analysis: acks then carry the turn's verdict */
  analysis: IngestAnalysis | null = null;

  constructor(
    private readonly store: SessionStore,
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

  /** Resolves once every message received so far is answered (the store is about to close). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
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
      const result = this.inOrder(a.raw, a.inspection);
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

  /**
   * `apply`, after the session's previous message was stored or refused (different sessions
   * do not wait for each other, and no message waits for an earlier one's verdict).
   */
  private inOrder(raw: Buffer, ins: Inspection): Maybe<IngestResult> {
    const sid = ins.kind === 'valid' ? ins.sessionId : null;
    const before = sid === null ? undefined : this.inFlight.get(sid);
    const step = before === undefined ? this.guarded(raw, ins) : before.then(() => this.guarded(raw, ins));
    if (sid !== null && step instanceof Promise) {
      this.inFlight.set(sid, step);
      void step.then(() => {
        if (this.inFlight.get(sid) === step) this.inFlight.delete(sid);
      });
    }
    // the analysis hears of a stored message before the session's next one is applied
    return andThen(step, (applied) => (applied.verdict === undefined ? applied.result : withVerdict(applied.result, applied.verdict)));
  }

  /** `apply`, with a failure (the store could not be read) answered as a refusal: the next message goes on. */
  private guarded(raw: Buffer, ins: Inspection): Maybe<Applied> {
    const failed = (e: unknown): Applied => {
      this.counters.rejected++;
      return { result: { ok: false, message: `the relay could not process the message: ${(e as Error).message}` } };
    };
    try {
      const r = this.apply(raw, ins, 0, false);
      return r instanceof Promise ? r.catch(failed) : r;
    } catch (e) {
      return failed(e);
    }
  }

  /** The gate's decision on the session's state, then the append it asks for. */
  private apply(raw: Buffer, ins: Inspection, attempt: number, fresh: boolean): Maybe<Applied> {
    if (ins.kind === 'blank') return { result: { ok: 'blank' } };
    if (ins.kind === 'error') return this.refused(ins);
    const sid = ins.sessionId;
    if (attempt === MAX_ATTEMPTS) {
      return this.refused({
        sessionId: sid,
        message: `the relay could not store the message: session ${quoted(sid)} kept changing under it (${MAX_ATTEMPTS} attempts)`,
      });
    }
    return andThen(this.store.state(sid, fresh), (state) =>
      andThen(
        order(ins, raw, state, () => this.store.count(), this.store, this.limits),
        (d) => {
          // a refusal or a retry is decided on the store's own state, never on a cached view alone
          if (d.kind !== 'accept' && state?.cached === true) return this.apply(raw, ins, attempt + 1, true);
          return this.act(raw, ins, d, attempt);
        },
      ),
    );
  }

  private act(raw: Buffer, ins: Inspection, d: Decision, attempt: number): Maybe<Applied> {
    switch (d.kind) {
      case 'blank':
        return { result: { ok: 'blank' } };
      case 'error':
        return this.refused(d);
      case 'duplicate':
        this.counters.duplicates++;
        return {
          result: { ok: true, sessionId: d.sessionId, seq: d.seq, turn: d.turn, duplicate: true },
          verdict: () => this.analysis?.duplicate(d.sessionId, d.seq),
        };
      case 'accept': {
        const a = d.append;
        let stored: Maybe<number | null>;
        try {
          stored = this.store.append(a);
        } catch (e) {
          return this.notStored(a.sessionId, e);
        }
        const next = (seq: number | null): Maybe<Applied> => {
          // another relay appended first (or the session was deleted): decide again on the store's state
          if (seq === null) return this.apply(raw, ins, attempt + 1, true);
          this.counters.accepted++;
          this.counters.bytes += a.bytes.length;
          return {
            result: { ok: true, sessionId: a.sessionId, seq, turn: a.turn, duplicate: false },
            // contract §7: the verdict of this turn, whichever relay stored the session's earlier messages
            verdict: () => this.analysis?.stored(a.sessionId, seq, a.bytes, d.parsed),
          };
        };
        return stored instanceof Promise ? stored.then(next, (e: unknown) => this.notStored(a.sessionId, e)) : next(stored);
      }
    }
  }

  private notStored(sessionId: string, e: unknown): Applied {
    this.counters.rejected++;
    return { result: { ok: false, sessionId, message: `the relay could not store the message: ${(e as Error).message}` } };
  }

  private refused(r: { message: string; sessionId?: string }): Applied {
    this.counters.rejected++;
    return { result: { ok: false, message: r.message, ...(r.sessionId === undefined ? {} : { sessionId: r.sessionId }) } };
  }
}

/** The ack with the analysis's verdict; it waits only when the analysis does. A failing analysis leaves the verdict null, never the stored message unacknowledged. */
function withVerdict(ack: IngestResult & { ok: true }, verdict: () => VerdictAnswer): Maybe<IngestResult> {
  let v: VerdictAnswer;
  try {
    v = verdict();
  } catch {
    return { ...ack, verdict: null };
  }
  if (v === undefined) return ack;
  if (v instanceof Promise)
    return v.then(
      (x) => ({ ...ack, verdict: x }),
      () => ({ ...ack, verdict: null }),
    );
  return { ...ack, verdict: v };
}
