// A harness client for the relay of `context-health serve` (docs/relay-protocol.md):
// one WebSocket to /api/ingest, every message acknowledged with its seq.
//
// Delivery: each message is kept until the relay acknowledges it. When the connection
// drops, the client reconnects with exponential backoff and resends, in order, only the
// messages it holds no ack for; the relay recognises any of those it had already stored
// and acknowledges them again with `duplicate: true` and their original seq, so a turn is
// never recorded twice. A message the relay rejects (a schema error, a turn that does
// not increase) is not retried: its promise rejects with RelayRejected.
//
// Usable from any Node ≥ 20 harness (Node 20 has no global WebSocket, so this uses `ws`).
import crypto from 'node:crypto';
import WebSocket from 'ws';
import { COMPACT_WIRE, declaresCompact, TextOmitter } from '../core/compact.ts';
import { validateMessage } from '../core/validate.ts';
import type { AckVerdict } from '../protocol/relay.ts';
import type { Message, SessionHeader, Snapshot, Span, ThresholdOverrides } from '../core/wire.ts';

/**
 * contract §2 `text_sha256`: 64 lowercase hex of sha256 of the span's text as UTF-8.
 * Compute it when you compute the score, on the text you scored, and keep it with the
 * score: a hash taken at send time would hide exactly the stale scores the dashboard is
 * there to find.
 */
export function textSha256(text: string): string {
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A score bound to the text it was computed on. */
export function scored(text: string, score: number): { score: number; text_sha256: string } {
  return { score, text_sha256: textSha256(text) };
}

const NON_ASCII = /[\u0080-\uffff]/g;

function isAscii(text: string): boolean {
  NON_ASCII.lastIndex = 0;
  return !NON_ASCII.test(text);
}

/**
 * JSON with every non-ASCII character escaped (\uXXXX), as Python's json.dumps writes by
 * default: the relay and the dashboard decode ASCII lines about three times faster than
 * raw UTF-8 (docs/perf-log/notebook.md), for a few percent more bytes. The hashes are of the text itself,
 * so escaping changes nothing they bind.
 */
export function asciiJson(json: string): string {
  if (isAscii(json)) return json;
  return json.replace(NON_ASCII, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

export interface Ack {
  sessionId: string;
  seq: number;
  turn: number | null;
  /** the relay already had this message (a resend after a dropped connection) */
  duplicate: boolean;
  /**
   * contract §7: the turn's verdict as the relay's analysis gave it (what to do before the
   * next prune: `freeze` = stop pruning, `recompute` = rescore these spans, `drop` = drop
   * these). null for a session header, or a retried message older than the relay
   * remembers; undefined when the relay runs with --no-analysis.
   */
  verdict?: AckVerdict | null;
}

export class RelayRejected extends Error {
  constructor(readonly reason: string) {
    super(`the relay rejected the message: ${reason}`);
    this.name = 'RelayRejected';
  }
}

export class RelayUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RelayUnavailable';
  }
}

export interface HarnessClientOptions {
  /** the relay: `http://127.0.0.1:8787` (the client connects to ws://…/api/ingest) */
  url: string;
  /** when the relay was started with --token (default: env CONTEXT_HEALTH_TOKEN) */
  token?: string | null;
  /** messages sent but not yet acknowledged at any time (default 64) */
  maxInFlight?: number;
  /** first reconnect delay; doubles up to maxBackoffMs, with jitter (default 250 ms) */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** give up (reject what is pending with RelayUnavailable) after this long without a connection (default 5 min) */
  giveUpAfterMs?: number;
  /** with messages in flight and nothing heard from the relay for this long, reconnect (default 60 s) */
  silenceTimeoutMs?: number;
  /**
   * contract §7 compact wire (default true): headers sent with `session()` declare
   * `"wire": "1.1"`, and a snapshot of a declared session leaves out every text equal to
   * the one this client sent for the same span in the session's previous snapshot. The
   * first new snapshot after each (re)connection, and after a rejected snapshot, is whole.
   * Set false for a relay older than version 1.1.
   */
  compact?: boolean;
  /** every ack carrying a verdict, in order (for a harness that does not await each send) */
  onVerdict?: (verdict: AckVerdict, ack: Ack) => void;
  /** connection changes, for a harness's log */
  onStatus?: (status: 'open' | 'retrying' | 'closed', detail: string) => void;
}

interface Pending {
  text: string;
  resolve: (ack: Ack) => void;
  reject: (e: Error) => void;
  /** frame number on the current connection, 0 = not sent on it */
  frame: number;
  /** the snapshot's session, when its texts are compared for the compact wire */
  compactSession?: string;
  /** a compact session's snapshot, until pump() encodes it (then `text` is set) */
  whole?: Snapshot;
}

type WireInput = Message | (Omit<Snapshot, 'type'> & { type?: 'snapshot' }) | string;

export class HarnessClient {
  private readonly wsUrl: string;
  private readonly token: string | null;
  private readonly maxInFlight: number;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly giveUpAfterMs: number;
  private readonly onStatus: HarnessClientOptions['onStatus'];
  private readonly onVerdict: HarnessClientOptions['onVerdict'];
  /** unacknowledged messages, in the order they were given */
  private readonly pending: Pending[] = [];
  private ws: WebSocket | null = null;
  private open = false;
  private frame = 0;
  private nextToSend = 0;
  private attempt = 0;
  private downSince: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private fatal: Error | null = null;
  private idle: (() => void)[] = [];
  private readonly silenceTimeoutMs: number;
  private readonly compact: boolean;
  /** sessions whose header declared the compact wire, and the texts last sent for each */
  private readonly compactSessions = new Set<string>();
  private readonly omitter = new TextOmitter();
  /** connections opened so far */
  private opened = 0;
  private lastHeard = 0;
  private watchdog: NodeJS.Timeout | null = null;

  constructor(options: HarnessClientOptions) {
    const base = new URL(options.url);
    base.protocol = base.protocol === 'https:' || base.protocol === 'wss:' ? 'wss:' : 'ws:';
    base.pathname = base.pathname.replace(/\/?(api\/ingest)?\/?$/, '') + '/api/ingest';
    this.wsUrl = base.toString();
    this.token = options.token === undefined ? process.env.CONTEXT_HEALTH_TOKEN || null : options.token;
    this.maxInFlight = options.maxInFlight ?? 64;
    this.initialBackoffMs = options.initialBackoffMs ?? 250;
    this.maxBackoffMs = options.maxBackoffMs ?? 10_000;
    this.giveUpAfterMs = options.giveUpAfterMs ?? 5 * 60_000;
    this.onStatus = options.onStatus;
    this.onVerdict = options.onVerdict;
    this.silenceTimeoutMs = options.silenceTimeoutMs ?? 60_000;
    this.compact = options.compact ?? true;
  }

  /** Messages given and not yet acknowledged or rejected. */
  get unacknowledged(): number {
    return this.pending.length;
  }

  /**
   * A session this client will send no more of: what it keeps for the compact wire (the texts
   * last sent) is let go, so a long-lived client of many sessions stays bounded. A later
   * snapshot of it is sent whole.
   */
  forgetSession(sessionId: string): void {
    this.compactSessions.delete(sessionId);
    this.omitter.forget(sessionId);
  }

  /** The session header (optional; before the session's first snapshot). */
  session(sessionId: string, header: { title?: string; started_at?: string; config?: ThresholdOverrides } = {}): Promise<Ack> {
    const message: SessionHeader = { type: 'session', session_id: sessionId, ...(this.compact ? { wire: COMPACT_WIRE } : {}), ...header };
    return this.send(message);
  }

  /** One snapshot: the live buffer at the end of a turn (contract §2). */
  snapshot(snapshot: Omit<Snapshot, 'type'> & { type?: 'snapshot' }): Promise<Ack> {
    return this.send({ ...snapshot, type: 'snapshot' });
  }

  /**
   * Any wire message, or one already serialised line. It is checked here first (the
   * engine's own validation), so a NaN score or a duplicate span id fails at the call
   * that made it rather than at the relay.
   */
  send(message: WireInput): Promise<Ack> {
    if (this.closed) return Promise.reject(new Error('the client is closed'));
    if (this.fatal !== null) return Promise.reject(this.fatal);
    let text: string;
    let value: unknown;
    try {
      text = typeof message === 'string' ? message : JSON.stringify(message);
      value = typeof message === 'string' ? JSON.parse(message) : message;
    } catch (e) {
      return Promise.reject(new RelayRejected(`not valid JSON: ${(e as Error).message}`));
    }
    const checked = validateMessage(value);
    if (!checked.ok) return Promise.reject(new RelayRejected(checked.error));
    const m = checked.message;
    if (this.compact && m.type === 'session' && declaresCompact(m)) this.compactSessions.add(m.session_id);
    // contract §7: a snapshot of a compact session is encoded when it is first put on the
    // wire (pump), against the texts last put on the wire: so the first one sent on a new
    // connection is whole. Once sent, its text is fixed: a resend is the same bytes.
    const whole = this.compact && m.type === 'snapshot' && this.compactSessions.has(m.session_id) ? m : undefined;
    // non-ASCII occurs only inside JSON strings, so escaping it keeps the message as it is
    if (whole === undefined) text = asciiJson(text.includes('\n') ? JSON.stringify(value) : text);
    return new Promise<Ack>((resolve, reject) => {
      this.pending.push({
        text: whole === undefined ? text : '',
        resolve,
        reject,
        frame: 0,
        ...(whole === undefined ? {} : { whole, compactSession: whole.session_id }),
      });
      this.pump();
    });
  }

  /** Resolves once every message given so far is acknowledged or rejected. */
  flush(): Promise<void> {
    if (this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Waits for the pending messages (up to `timeoutMs`), then closes the connection. */
  async close(timeoutMs = 10_000): Promise<void> {
    if (this.pending.length > 0) {
      await Promise.race([this.flush(), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    }
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    if (this.watchdog !== null) clearInterval(this.watchdog);
    this.failAll(new RelayUnavailable('the client was closed before the relay acknowledged this message'));
    const ws = this.ws;
    this.ws = null;
    if (ws !== null && ws.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        ws.once('close', () => resolve());
        ws.close(1000);
        setTimeout(() => {
          ws.terminate();
          resolve();
        }, 2000).unref();
      });
    }
    this.onStatus?.('closed', 'closed by the harness');
  }

  private pump(): void {
    if (this.closed || this.fatal !== null) return;
    if (this.ws === null) return this.connect();
    if (!this.open) return;
    while (this.nextToSend < this.pending.length && this.nextToSend < this.maxInFlight) {
      const p = this.pending[this.nextToSend++]!;
      if (p.whole !== undefined) {
        // the strings themselves are compared, never a hash: every real rewrite is sent
        p.text = asciiJson(JSON.stringify(this.omitter.compact(p.whole)));
        delete p.whole;
      }
      p.frame = ++this.frame;
      this.ws.send(p.text);
    }
  }

  private connect(): void {
    if (this.timer !== null) return;
    const headers: Record<string, string> = {};
    if (this.token !== null) headers.authorization = `Bearer ${this.token}`;
    const ws = new WebSocket(this.wsUrl, { headers, perMessageDeflate: false, handshakeTimeout: 10_000 });
    this.ws = ws;
    this.open = false;
    ws.on('open', () => {
      this.open = true;
      this.frame = 0;
      this.nextToSend = 0;
      this.attempt = 0;
      this.downSince = null;
      for (const p of this.pending) p.frame = 0;
      // contract §7: the next new snapshot of every session is whole, whatever the relay kept
      if (this.opened++ > 0) this.omitter.reset();
      this.lastHeard = Date.now();
      this.onStatus?.('open', this.wsUrl);
      this.pump();
      this.watch(ws);
    });
    ws.on('message', (data) => {
      this.lastHeard = Date.now();
      this.onReply(String(data));
    });
    // the relay pings every socket: a relay that is busy but alive is not given up on
    ws.on('ping', () => (this.lastHeard = Date.now()));
    ws.on('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => {
        const detail = `${status} ${(/"error":"([^"]*)"/.exec(body) ?? [])[1] ?? res.statusMessage ?? ''}`.trim();
        // refusals that a retry cannot fix
        if (status === 401 || status === 403 || status === 404) this.fail(new RelayUnavailable(`the relay at ${this.wsUrl} refused the connection: ${detail}`));
        ws.terminate();
      });
    });
    ws.on('error', () => {
      // 'close' follows and schedules the retry
    });
    ws.on('close', (code, reason) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.open = false;
      if (this.closed || this.fatal !== null) return;
      if (code === 1009) {
        // The relay refuses a frame over its hard cap by closing at once (the acks of the
        // frames before it may be lost with the connection). The largest message in flight
        // is over the cap too, whichever frame tripped it: fail that one, resend the rest.
        let tooBig: Pending | undefined;
        for (const p of this.pending) if (p.frame !== 0 && (tooBig === undefined || p.text.length > tooBig.text.length)) tooBig = p;
        if (tooBig !== undefined) {
          this.pending.splice(this.pending.indexOf(tooBig), 1);
          if (tooBig.compactSession !== undefined) this.omitter.forget(tooBig.compactSession);
          tooBig.reject(new RelayRejected(`the message (${Buffer.byteLength(tooBig.text)} bytes) is larger than the relay accepts (--max-message-bytes)`));
          if (this.pending.length === 0) for (const done of this.idle.splice(0)) done();
        }
      }
      this.scheduleReconnect(`connection closed (${code}${reason.length > 0 ? ` ${reason.toString()}` : ''})`);
    });
  }

  /** A connection that went silent with messages in flight (a vanished peer) is dropped and retried. */
  private watch(ws: WebSocket): void {
    if (this.watchdog !== null) clearInterval(this.watchdog);
    this.watchdog = setInterval(
      () => {
        if (this.ws !== ws) {
          clearInterval(this.watchdog!);
          this.watchdog = null;
          return;
        }
        if (this.nextToSend > 0 && Date.now() - this.lastHeard > this.silenceTimeoutMs) ws.terminate();
      },
      Math.min(5000, this.silenceTimeoutMs / 2),
    );
    this.watchdog.unref();
  }

  private scheduleReconnect(why: string): void {
    const now = Date.now();
    this.downSince ??= now;
    if (now - this.downSince > this.giveUpAfterMs) {
      this.fail(new RelayUnavailable(`no connection to the relay at ${this.wsUrl} for ${Math.round((now - this.downSince) / 1000)} s (last: ${why})`));
      return;
    }
    const delay = Math.min(this.maxBackoffMs, this.initialBackoffMs * 2 ** this.attempt++) * (0.5 + Math.random() / 2);
    this.onStatus?.('retrying', `${why}; retrying in ${Math.round(delay)} ms`);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.pending.length > 0) this.connect();
    }, delay);
  }

  private onReply(text: string): void {
    let reply: {
      type?: string;
      frame?: number;
      session_id?: string;
      seq?: number;
      turn?: number | null;
      duplicate?: boolean;
      message?: string;
      verdict?: AckVerdict | null;
    };
    try {
      reply = JSON.parse(text) as typeof reply;
    } catch {
      return;
    }
    // replies come in frame order; the oldest unanswered message is the one answered
    const p = this.pending[0];
    if (p === undefined || p.frame === 0 || p.frame !== reply.frame) return;
    this.pending.shift();
    this.nextToSend--;
    if (reply.type === 'ack') {
      const ack: Ack = { sessionId: reply.session_id ?? '', seq: reply.seq ?? 0, turn: reply.turn ?? null, duplicate: reply.duplicate === true };
      if (reply.verdict !== undefined) ack.verdict = reply.verdict;
      if (reply.verdict != null) {
        try {
          this.onVerdict?.(reply.verdict, ack);
        } catch {
          // the harness's callback failing must not lose the ack
        }
      }
      p.resolve(ack);
    } else {
      // the relay's previous snapshot is not the one the next compact snapshot would name
      if (p.compactSession !== undefined) this.omitter.forget(p.compactSession);
      p.reject(new RelayRejected(reply.message ?? 'no reason given'));
    }
    this.pump();
    if (this.pending.length === 0) for (const done of this.idle.splice(0)) done();
  }

  private fail(e: Error): void {
    this.fatal = e;
    this.failAll(e);
    this.onStatus?.('closed', e.message);
  }

  private failAll(e: Error): void {
    for (const p of this.pending.splice(0)) p.reject(e);
    this.nextToSend = 0;
    for (const done of this.idle.splice(0)) done();
  }
}

/** One session of a harness: the header once, then a snapshot per turn. */
export class HarnessSession {
  private turn: number;

  constructor(
    private readonly client: HarnessClient,
    readonly sessionId: string,
    firstTurn = 1,
  ) {
    this.turn = firstTurn;
  }

  start(header: { title?: string; started_at?: string; config?: ThresholdOverrides } = {}): Promise<Ack> {
    return this.client.session(this.sessionId, { started_at: new Date().toISOString(), ...header });
  }

  /** The buffer at the end of the next turn (turns number from `firstTurn`, one by one). */
  snapshot(body: { spans: Span[]; rewrite?: Snapshot['rewrite']; pruned?: string[]; ts?: string; turn?: number }): Promise<Ack> {
    const turn = body.turn ?? this.turn;
    this.turn = turn + 1;
    return this.client.snapshot({ session_id: this.sessionId, ts: new Date().toISOString(), ...body, turn });
  }
}
