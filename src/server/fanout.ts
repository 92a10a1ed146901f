// Dashboards subscribed to a session, whichever store holds it: `hello`, then the stored
// backlog (seq > since) and the live stream, both read from the store's tail
// (sessionStore.ts), in seq order, so there is no gap and no duplicate however the session
// is appended to (this relay, or another on the same Redis).
//
// Memory per subscriber is bounded, by one rule for both stores: the backlog is sent in
// pieces, each only once the socket has drained below a high-water mark, and a subscriber
// that reads nothing for `stallMs` meanwhile is cut off; a live subscriber whose unsent
// bytes would exceed its limit is cut off. Either is told why (`bye`) and closed with code
// 4008, never buffered for.
import type { WebSocket } from 'ws';
import { closeReason } from './closeReason.ts';
import type { SessionStore, TailBatch } from './sessionStore.ts';

export const CLOSE_SLOW = 4008;
export const CLOSE_BAD_SINCE = 4009;
export const CLOSE_GONE = 4010;
export const CLOSE_SHUTDOWN = 1001;

export interface FanoutOptions {
  /** unsent bytes a live subscriber may hold before it is cut off */
  maxBufferedBytes: number;
  /** a subscriber reading nothing for this long during its backlog is cut off */
  stallMs: number;
}

export const DEFAULT_FANOUT: Readonly<FanoutOptions> = Object.freeze({ maxBufferedBytes: 16 * 1024 * 1024, stallMs: 60_000 });

/** The backlog is sent in pieces of about this size, each after the socket drained below it. */
const BACKLOG_HIGH_WATER = 1 << 20;
const MSG_SUFFIX = Buffer.from('}');
const TERMINATE_AFTER_MS = 5000;

type State = 'backlog' | 'live' | 'closed';

export class Subscriber {
  state: State = 'backlog';
  sent = 0;
  readonly stop = new AbortController();
  constructor(
    readonly ws: WebSocket,
    readonly sessionId: string,
    readonly since: number,
  ) {}

  /** (a method, not a narrowed field: it changes across awaits) */
  closed(): boolean {
    return this.state === 'closed';
  }
}

export interface FanoutStats {
  subscribers: number;
  live: number;
  backlog: number;
  bufferedBytes: number;
  maxBufferedBytes: number;
  cutSlow: number;
}

export function msgFrame(seq: number, raw: Buffer): Buffer {
  return Buffer.concat([Buffer.from('{"type":"msg","seq":' + seq + ',"data":'), raw, MSG_SUFFIX]);
}

export class Fanout {
  private readonly subs = new Set<Subscriber>();
  private cutSlow = 0;

  constructor(
    private readonly store: SessionStore,
    private readonly options: FanoutOptions,
  ) {}

  count(): number {
    return this.subs.size;
  }

  stats(): FanoutStats {
    const s: FanoutStats = { subscribers: 0, live: 0, backlog: 0, bufferedBytes: 0, maxBufferedBytes: this.options.maxBufferedBytes, cutSlow: this.cutSlow };
    for (const sub of this.subs) {
      s.subscribers++;
      if (sub.state === 'live') s.live++;
      else if (sub.state === 'backlog') s.backlog++;
      s.bufferedBytes += sub.ws.bufferedAmount;
    }
    return s;
  }

  /** A session that does not exist yet can already have subscribers: they get its messages once it does. */
  subscribe(ws: WebSocket, sessionId: string, since: number): Subscriber {
    const sub = new Subscriber(ws, sessionId, since);
    this.subs.add(sub);
    ws.on('close', () => this.remove(sub));
    const failed = (e: unknown): void => {
      if (sub.state !== 'closed') this.close(sub, 1011, `the relay could not read the session: ${(e as Error).message}`);
    };
    try {
      const state = this.store.state(sessionId, true);
      if (state instanceof Promise) void state.then((s) => this.start(sub, s?.lastSeq ?? 0)).catch(failed);
      else void this.start(sub, state?.lastSeq ?? 0).catch(failed);
    } catch (e) {
      failed(e);
    }
    return sub;
  }

  /** Closes every subscriber of a session (it was deleted) or all of them (shutdown). */
  closeAll(code: number, reason: string, sessionId?: string): void {
    for (const sub of [...this.subs]) if (sessionId === undefined || sub.sessionId === sessionId) this.close(sub, code, reason);
  }

  private async start(sub: Subscriber, lastSeq: number): Promise<void> {
    if (sub.state === 'closed') return;
    const { ws, sessionId, since } = sub;
    if (since > lastSeq) {
      this.close(
        sub,
        CLOSE_BAD_SINCE,
        `since=${since} is past the last seq of session ${JSON.stringify(sessionId)} (${lastSeq}): this relay's data is not the one you saw; subscribe again with since=0`,
      );
      return;
    }
    ws.send(JSON.stringify({ type: 'hello', session_id: sessionId, since, last_seq: lastSeq }));
    sub.sent = since;
    for await (const batch of this.store.tail(sessionId, since, sub.stop.signal)) {
      if (sub.closed()) return;
      if (sub.state === 'backlog') await this.sendBacklog(sub, batch);
      else this.sendLive(sub, batch);
      if (sub.closed()) return;
      if (sub.state === 'backlog' && batch.atEnd) {
        sub.state = 'live';
        ws.send(JSON.stringify({ type: 'caught_up', seq: sub.sent }));
      }
    }
    // the tail ends when the session is deleted (through this relay or another)
    if (!sub.closed()) this.close(sub, CLOSE_GONE, 'the session was deleted');
  }

  /** Backlog lines: sent at once, then, past the high-water mark, waited for until handed to the kernel. */
  private async sendBacklog(sub: Subscriber, batch: TailBatch): Promise<void> {
    for (const line of batch.lines) {
      if (sub.state !== 'backlog') return;
      const frame = msgFrame(line.seq, line.bytes);
      sub.sent = line.seq;
      if (sub.ws.bufferedAmount + frame.length <= BACKLOG_HIGH_WATER) sub.ws.send(frame, { binary: false });
      else await this.sendAndDrain(sub, frame);
    }
  }

  /** Live lines: sent, unless the subscriber would then hold more than its limit unsent. */
  private sendLive(sub: Subscriber, batch: TailBatch): void {
    for (const line of batch.lines) {
      const frame = msgFrame(line.seq, line.bytes);
      if (sub.ws.bufferedAmount + frame.length > this.options.maxBufferedBytes) {
        this.cutSlow++;
        this.close(sub, CLOSE_SLOW, tooSlow(this.options.maxBufferedBytes));
        return;
      }
      sub.ws.send(frame, { binary: false });
      sub.sent = line.seq;
    }
  }

  /**
   * Sends `frame` and resolves once it has been handed to the kernel (so the backlog never
   * piles up in memory), or cuts the subscriber off when that takes longer than `stallMs`.
   */
  private sendAndDrain(sub: Subscriber, frame: Buffer): Promise<void> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.close(sub, CLOSE_SLOW, `stalled: the subscriber read nothing for ${Math.round(this.options.stallMs / 1000)} s while its backlog was being sent`);
        finish();
      }, this.options.stallMs);
      sub.ws.send(frame, { binary: false }, finish);
      if (sub.state === 'closed') finish();
    });
  }

  private close(sub: Subscriber, code: number, reason: string): void {
    if (sub.state === 'closed') return;
    this.remove(sub);
    const ws = sub.ws;
    if (ws.readyState === ws.OPEN) {
      ws.send(JSON.stringify({ type: 'bye', reason }));
      ws.close(code, closeReason(reason));
      // a peer that reads nothing never completes the closing handshake
      setTimeout(() => ws.terminate(), TERMINATE_AFTER_MS).unref();
    } else {
      ws.terminate();
    }
  }

  private remove(sub: Subscriber): void {
    sub.state = 'closed';
    sub.stop.abort();
    this.subs.delete(sub);
  }
}

/** Why a live subscriber that fell more than `maxBufferedBytes` behind is cut off. */
export function tooSlow(maxBufferedBytes: number): string {
  return `too slow: more than ${maxBufferedBytes} bytes of messages were waiting to be sent to this subscriber; reconnect with since=<the last seq you processed>`;
}
