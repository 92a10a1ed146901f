// Dashboards subscribed to a session: first the stored backlog (seq > since) read back
// from the log, then the live stream, with no gap and no duplicate. The switch from
// backlog to live happens in the same synchronous step that finds the backlog reader at
// the log's end, so no append can fall between the two.
//
// Memory per subscriber is bounded: the backlog is read in pieces, each sent only when
// the socket has drained below a high-water mark; a live subscriber whose unsent bytes
// exceed its limit is told why (`bye`) and closed with code 4008, never buffered for.
import type { WebSocket } from 'ws';
import { readChunks, type SessionLogStore } from './store.ts';

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
  constructor(
    readonly ws: WebSocket,
    readonly sessionId: string,
    readonly since: number,
  ) {}
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
  /** by session id; a session that does not exist yet can already have subscribers */
  private readonly subs = new Map<string, Set<Subscriber>>();
  private cutSlow = 0;

  constructor(
    private readonly store: SessionLogStore,
    private readonly options: FanoutOptions,
  ) {}

  count(): number {
    let n = 0;
    for (const set of this.subs.values()) n += set.size;
    return n;
  }

  stats(): FanoutStats {
    const s: FanoutStats = { subscribers: 0, live: 0, backlog: 0, bufferedBytes: 0, maxBufferedBytes: this.options.maxBufferedBytes, cutSlow: this.cutSlow };
    for (const set of this.subs.values()) {
      for (const sub of set) {
        s.subscribers++;
        if (sub.state === 'live') s.live++;
        else if (sub.state === 'backlog') s.backlog++;
        s.bufferedBytes += sub.ws.bufferedAmount;
      }
    }
    return s;
  }

  subscribe(ws: WebSocket, sessionId: string, since: number): Subscriber {
    const sub = new Subscriber(ws, sessionId, since);
    let set = this.subs.get(sessionId);
    if (set === undefined) this.subs.set(sessionId, (set = new Set()));
    set.add(sub);
    ws.on('close', () => this.remove(sub));
    const session = this.store.get(sessionId);
    const lastSeq = session?.lastSeq ?? 0;
    if (since > lastSeq) {
      this.close(
        sub,
        CLOSE_BAD_SINCE,
        `since=${since} is past the last seq of session ${JSON.stringify(sessionId)} (${lastSeq}): this relay's data is not the one you saw; subscribe again with since=0`,
      );
      return sub;
    }
    ws.send(JSON.stringify({ type: 'hello', session_id: sessionId, since, last_seq: lastSeq }));
    void this.pumpBacklog(sub).catch((e: unknown) => {
      if (sub.state !== 'closed') this.close(sub, 1011, `the relay could not read the session's log: ${(e as Error).message}`);
    });
    return sub;
  }

  /** A message was just stored as `seq` of `sessionId`. */
  publish(sessionId: string, seq: number, raw: Buffer): void {
    const set = this.subs.get(sessionId);
    if (set === undefined || set.size === 0) return;
    let frame: Buffer | null = null;
    for (const sub of set) {
      if (sub.state !== 'live') continue;
      frame ??= msgFrame(seq, raw);
      if (sub.ws.bufferedAmount + frame.length > this.options.maxBufferedBytes) {
        this.cutSlow++;
        this.close(sub, CLOSE_SLOW, tooSlow(this.options.maxBufferedBytes));
        continue;
      }
      sub.ws.send(frame, { binary: false });
      sub.sent = seq;
    }
  }

  /** Closes every subscriber of a session (it was deleted) or all of them (shutdown). */
  closeAll(code: number, reason: string, sessionId?: string): void {
    for (const [sid, set] of this.subs) {
      if (sessionId !== undefined && sid !== sessionId) continue;
      for (const sub of set) this.close(sub, code, reason);
    }
  }

  private async pumpBacklog(sub: Subscriber): Promise<void> {
    let next = sub.since + 1;
    for (;;) {
      const session = this.store.get(sub.sessionId);
      // checked synchronously with the switch to live below: nothing can be appended between
      if (session === undefined || session.lastSeq < next) {
        if (sub.state !== 'backlog') return;
        sub.state = 'live';
        sub.sent = next - 1;
        sub.ws.send(JSON.stringify({ type: 'caught_up', seq: next - 1 }));
        return;
      }
      const target = session.lastSeq;
      const end = session.size;
      const start = await this.store.offsetOf(session, next);
      let carry: Buffer | null = null;
      for await (const chunk of readChunks(session.file, start, end)) {
        if (sub.state !== 'backlog') return;
        const data: Buffer = carry === null ? chunk : Buffer.concat([carry, chunk]);
        let i = 0;
        let lastFrame: Buffer | null = null;
        for (;;) {
          const nl = data.indexOf(0x0a, i);
          if (nl === -1) break;
          if (lastFrame !== null) sub.ws.send(lastFrame, { binary: false });
          lastFrame = msgFrame(next, data.subarray(i, nl));
          next++;
          i = nl + 1;
        }
        carry = i < data.length ? data.subarray(i) : null;
        if (lastFrame !== null) await this.sendAndDrain(sub, lastFrame);
      }
      if (sub.state !== 'backlog') return;
      if (next !== target + 1) throw new Error(`expected to reach seq ${target}, reached ${next - 1}`);
      sub.sent = target;
    }
  }

  /**
   * Sends `frame`; when the socket then holds more than the high-water mark, resolves
   * only once that frame has been handed to the kernel (so the backlog never piles up in
   * memory), or cuts the subscriber off when that takes longer than `stallMs`.
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
      if (sub.ws.bufferedAmount < BACKLOG_HIGH_WATER) finish();
    });
  }

  private close(sub: Subscriber, code: number, reason: string): void {
    if (sub.state === 'closed') return;
    sub.state = 'closed';
    this.remove(sub);
    const ws = sub.ws;
    if (ws.readyState === ws.OPEN) {
      ws.send(JSON.stringify({ type: 'bye', reason }));
      ws.close(code, truncateUtf8(reason, 123));
      // a peer that reads nothing never completes the closing handshake
      setTimeout(() => ws.terminate(), TERMINATE_AFTER_MS).unref();
    } else {
      ws.terminate();
    }
  }

  private remove(sub: Subscriber): void {
    if (sub.state !== 'closed') sub.state = 'closed';
    const set = this.subs.get(sub.sessionId);
    if (set === undefined) return;
    set.delete(sub);
    if (set.size === 0) this.subs.delete(sub.sessionId);
  }
}

/** A close reason is at most 123 bytes of UTF-8. */
function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let s = text;
  while (Buffer.byteLength(s + '…') > maxBytes) s = s.slice(0, -1);
  return s + '…';
}

/** Why a subscriber that fell more than `maxBufferedBytes` behind is cut off (both stores' fan-outs). */
export function tooSlow(maxBufferedBytes: number): string {
  return `too slow: more than ${maxBufferedBytes} bytes of messages were waiting to be sent to this subscriber; reconnect with since=<the last seq you processed>`;
}
