// Follows one relay session over a WebSocket (docs/relay-protocol.md): the relay sends the
// stored backlog after `since`, then the live stream. On any drop the subscription
// reconnects with exponential backoff and asks for `since=<last seq processed>`, so no
// message is lost or seen twice. Frames are parsed here, in the Worker.
import type { ConnectionState } from './protocol.ts';

export interface SocketLike {
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  close(code?: number, reason?: string): void;
}

export interface LiveOptions {
  /** ws(s)://host/api/sessions/<id>/subscribe, without the query */
  url: string;
  since?: number;
  /** a relay message: its seq and the parsed wire message */
  onMessage: (seq: number, data: unknown) => void;
  /** a frame that is not valid JSON or not a relay frame */
  onBadFrame: (seq: number, message: string) => void;
  onState: (state: ConnectionState) => void;
  createSocket?: (url: string) => SocketLike;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  backoff?: { initialMs: number; maxMs: number };
  random?: () => number;
}

type Frame =
  | { type: 'hello'; session_id: string; since: number; last_seq: number }
  | { type: 'msg'; seq: number; data: unknown }
  | { type: 'caught_up'; seq: number }
  | { type: 'bye'; reason: string };

export class LiveSubscription {
  private socket: SocketLike | null = null;
  private stopped = false;
  private attempt = 0;
  private timer: unknown = null;
  private lastSeq: number;
  private helloLast = 0;
  private received = 0;
  private caughtUp = false;
  private byeReason: string | null = null;

  constructor(private readonly o: LiveOptions) {
    this.lastSeq = o.since ?? 0;
  }

  start(): void {
    this.connect();
  }

  stop(reason = 'closed'): void {
    this.stopped = true;
    if (this.timer !== null) (this.o.clearTimer ?? clearTimeout)(this.timer as ReturnType<typeof setTimeout>);
    this.timer = null;
    const s = this.socket;
    this.socket = null;
    if (s !== null) {
      s.onclose = null;
      s.onmessage = null;
      s.close(1000, reason);
    }
    this.o.onState({ state: 'closed', reason });
  }

  private connect(): void {
    if (this.stopped) return;
    this.attempt++;
    this.caughtUp = false;
    this.byeReason = null;
    this.received = 0;
    this.o.onState({ state: 'connecting', attempt: this.attempt });
    const url = `${this.o.url}?since=${this.lastSeq}`;
    let socket: SocketLike;
    try {
      socket = (this.o.createSocket ?? ((u) => new WebSocket(u) as unknown as SocketLike))(url);
    } catch (e) {
      this.scheduleReconnect(e instanceof Error ? e.message : String(e));
      return;
    }
    this.socket = socket;
    socket.onmessage = (ev) => this.onFrame(ev.data);
    socket.onerror = () => undefined; // a close always follows
    socket.onclose = (ev) => {
      if (this.socket !== socket) return;
      this.socket = null;
      const reason = this.byeReason ?? (ev.code === 4008 ? 'the relay closed a slow subscriber' : ev.reason || `connection closed (code ${ev.code})`);
      // docs/relay-protocol.md: 4009 = `since` is past the relay's last seq (its data was
      // reset), 4010 = the session was deleted. Retrying the same `since` can never work,
      // and starting over from 0 would mix two histories in one analysis: stop and say so.
      if (ev.code === 4009 || ev.code === 4010) {
        this.stopped = true;
        const what =
          ev.code === 4009 ? `the relay no longer has this session up to seq ${this.lastSeq} (was its data reset?)` : 'the session was deleted on the relay';
        this.o.onState({ state: 'closed', reason: `${what}; open the session again to start over` });
        return;
      }
      this.scheduleReconnect(reason);
    };
  }

  private scheduleReconnect(reason: string): void {
    if (this.stopped) return;
    const b = this.o.backoff ?? { initialMs: 250, maxMs: 8000 };
    // a connection that caught up was healthy: start the backoff again from the bottom
    const n = Math.max(1, Math.min(this.attempt, 16));
    const base = Math.min(b.maxMs, b.initialMs * 2 ** (n - 1));
    const delay = Math.round(base * (0.75 + 0.5 * (this.o.random ?? Math.random)()));
    this.o.onState({ state: 'reconnecting', attempt: this.attempt, inMs: delay, reason, lastSeq: this.lastSeq });
    this.timer = (this.o.setTimer ?? setTimeout)(() => {
      this.timer = null;
      this.connect();
    }, delay);
  }

  private onFrame(data: unknown): void {
    if (typeof data !== 'string') return this.o.onBadFrame(this.lastSeq, 'the relay sent a binary frame; expected JSON text');
    let frame: Frame;
    try {
      frame = JSON.parse(data) as Frame;
    } catch {
      return this.o.onBadFrame(this.lastSeq, 'the relay sent a frame that is not JSON');
    }
    switch (frame.type) {
      case 'hello':
        this.helloLast = frame.last_seq;
        if (frame.last_seq <= this.lastSeq) this.markCaughtUp();
        else this.o.onState({ state: 'catching-up', since: this.lastSeq, lastSeq: frame.last_seq, received: 0 });
        return;
      case 'msg': {
        if (typeof frame.seq !== 'number' || frame.seq <= this.lastSeq) return; // already processed
        this.lastSeq = frame.seq;
        this.received++;
        this.o.onMessage(frame.seq, frame.data);
        if (!this.caughtUp && this.received % 200 === 0) {
          this.o.onState({ state: 'catching-up', since: this.lastSeq - this.received, lastSeq: this.helloLast, received: this.received });
        }
        return;
      }
      case 'caught_up':
        this.markCaughtUp();
        return;
      case 'bye':
        this.byeReason = `the relay said goodbye: ${frame.reason}`;
        return;
      default:
        return this.o.onBadFrame(this.lastSeq, `the relay sent an unknown frame type ${JSON.stringify((frame as { type?: unknown }).type)}`);
    }
  }

  private markCaughtUp(): void {
    if (this.caughtUp) return;
    this.caughtUp = true;
    this.attempt = 0;
    this.o.onState({ state: 'live', lastSeq: this.lastSeq });
  }
}
