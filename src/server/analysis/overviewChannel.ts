// `WS /api/overview/subscribe` (docs/relay-protocol.md "Overview"): every dashboard on the
// sessions overview gets the summaries of all sessions once (`hello`), then only what
// changed, batched: at most one `summaries` frame per FLUSH_MS, however many messages
// arrive (a person cannot read faster), and alert firings as they happen.
import type { WebSocket } from 'ws';
import type { AlertFiring, OverviewFrame } from '../../protocol/relay.ts';
import type { RelayAnalysis } from './relayAnalysis.ts';

/** least time between two `summaries` frames: at most four a second */
export const FLUSH_MS = 250;
/** how often statuses are looked at (live → idle → ended happens with no message) */
const STATUS_TICK_MS = 5000;
/** unsent bytes an overview client may fall behind before it is cut off (it reconnects and gets a fresh hello) */
const MAX_BUFFERED = 8 * 1024 * 1024;
/** 4008, as for a slow subscriber of a session */
const CLOSE_SLOW = 4008;

export class OverviewChannel {
  private readonly clients = new Set<WebSocket>();
  private readonly dirty = new Set<string>();
  private readonly removed = new Set<string>();
  private readonly lastStatus = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private lastFlush = 0;
  private readonly tick: NodeJS.Timeout;
  private readonly stopListening: () => void;

  constructor(
    private readonly analysis: RelayAnalysis,
    private readonly recentAlerts: () => AlertFiring[],
  ) {
    this.stopListening = analysis.listen({
      changed: (id) => this.mark(id),
      removed: (id) => {
        this.dirty.delete(id);
        this.lastStatus.delete(id);
        this.removed.add(id);
        this.schedule();
      },
    });
    this.tick = setInterval(() => this.checkStatuses(), STATUS_TICK_MS);
    this.tick.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  accept(ws: WebSocket): void {
    this.clients.add(ws);
    ws.on('close', () => this.clients.delete(ws));
    ws.on('error', () => ws.terminate());
    this.send(ws, { type: 'hello', sessions: this.analysis.summaries(), alerts: this.recentAlerts(), analysis: true });
  }

  alert(alert: AlertFiring): void {
    for (const ws of this.clients) this.send(ws, { type: 'alert', alert });
  }

  close(code: number, reason: string): void {
    clearInterval(this.tick);
    if (this.timer !== null) clearTimeout(this.timer);
    this.stopListening();
    for (const ws of this.clients) {
      this.send(ws, { type: 'bye', reason });
      ws.close(code, reason);
    }
  }

  private mark(id: string): void {
    this.dirty.add(id);
    this.schedule();
  }

  private schedule(): void {
    if (this.timer !== null) return;
    const wait = Math.max(0, this.lastFlush + FLUSH_MS - Date.now());
    this.timer = setTimeout(() => this.flush(), wait);
    this.timer.unref();
  }

  private flush(): void {
    this.timer = null;
    this.lastFlush = Date.now();
    if (this.dirty.size === 0 && this.removed.size === 0) return;
    const now = Date.now();
    const sessions = [];
    for (const id of this.dirty) {
      const h = this.analysis.health(id);
      if (h === undefined) continue;
      const s = h.summary(now);
      this.lastStatus.set(id, s.status);
      sessions.push(s);
    }
    const frame: OverviewFrame = { type: 'summaries', sessions, removed: [...this.removed] };
    this.dirty.clear();
    this.removed.clear();
    if (this.clients.size === 0) return;
    const text = JSON.stringify(frame);
    for (const ws of this.clients) this.sendText(ws, text);
  }

  private checkStatuses(): void {
    const now = Date.now();
    for (const [id, status] of this.analysis.statuses(now)) {
      if (this.lastStatus.get(id) !== status) {
        if (this.lastStatus.has(id)) this.dirty.add(id);
        this.lastStatus.set(id, status);
      }
    }
    if (this.dirty.size > 0) this.schedule();
  }

  private send(ws: WebSocket, frame: OverviewFrame): void {
    this.sendText(ws, JSON.stringify(frame));
  }

  private sendText(ws: WebSocket, text: string): void {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED) {
      ws.close(CLOSE_SLOW, 'the overview fell too far behind; reconnect for a fresh hello');
      return;
    }
    ws.send(text);
  }
}
