// The sessions overview's data: the relay's summary of every session, kept current by one
// WebSocket (`/api/overview/subscribe`, docs/relay-protocol.md "Overview"): a `hello` with
// every summary, then batched changes (at most four frames a second) and alert firings.
// Pure transforms first (tested), then the connection and a thin zustand store.
import { create } from 'zustand';
import type { AlertFiring, OverviewFrame, SessionStatus, SessionSummary } from '../../../src/protocol/relay.ts';

export type StateFilter = 'all' | SessionStatus;

export interface OverviewState {
  /** null until the relay answered (or when it does not analyse) */
  sessions: ReadonlyMap<string, SessionSummary> | null;
  analysis: boolean;
  alerts: AlertFiring[];
  /** alert firings to show as toasts (newest last); dismissed ones are removed */
  toasts: AlertFiring[];
  connection: 'connecting' | 'open' | 'closed';
  /** when the channel was lost (ISO time), while it stays lost: the table then shows what it last knew, greyed */
  lostAt: string | null;
  text: string;
  state: StateFilter;
}

const initial: OverviewState = { sessions: null, analysis: true, alerts: [], toasts: [], connection: 'connecting', lostAt: null, text: '', state: 'all' };

export const useOverview = create<OverviewState>()(() => ({ ...initial }));

/** Applies one frame of the channel to the state. */
export function applyFrame(s: OverviewState, f: OverviewFrame): Partial<OverviewState> {
  switch (f.type) {
    case 'hello':
      return { sessions: new Map(f.sessions.map((x) => [x.session_id, x])), alerts: f.alerts, analysis: f.analysis };
    case 'summaries': {
      const next = new Map(s.sessions ?? []);
      for (const x of f.sessions) next.set(x.session_id, x);
      for (const id of f.removed) next.delete(id);
      return { sessions: next };
    }
    case 'alert':
      return { alerts: [f.alert, ...s.alerts].slice(0, 200), toasts: [...s.toasts, f.alert].slice(-5) };
    case 'bye':
      return {};
  }
}

const SEVERITY_RANK: Record<string, number> = { fault: 3, warning: 2, info: 1 };
const ACTION_RANK: Record<string, number> = { freeze: 3, recompute: 2, prune_ok: 1 };
const STATUS_RANK: Record<string, number> = { live: 3, idle: 2, ended: 1 };

/**
 * docs/dashboard.md "Worst first": a session where no score detector ran (contract §8.1) has no
 * score verdict; its §8.9 headline takes the verdict's place: orphaned lineage beside a freeze,
 * a confirmed loss beside a recompute, a window near its limit between a recompute and a
 * calm session, a calm context beside prune_ok.
 */
const CONTEXT_RANK: Record<string, number> = { lineage_broken: 3, loss_confirmed: 2, near_limit: 1.5, context_ok: 1 };

/** How bad a session looks now: its current verdict (or §8.9 headline), then the worst recent severity, then liveness. */
export function badness(s: SessionSummary): number {
  const head = s.context !== null ? (CONTEXT_RANK[s.context.kind] ?? 0) : (ACTION_RANK[s.verdict?.action ?? ''] ?? 0);
  return head * 100 + (SEVERITY_RANK[s.worst_recent ?? ''] ?? 0) * 10 + (STATUS_RANK[s.status] ?? 0);
}

/** Between two equally bad sessions: more confirmed losses first, then the fuller window (sessions without these figures: 0). */
function pressure(a: SessionSummary, b: SessionSummary): number {
  return (b.context?.confirmed_losses ?? 0) - (a.context?.confirmed_losses ?? 0) || (b.context?.fill ?? 0) - (a.context?.fill ?? 0);
}

/** Worst first (ties: most recently updated first), filtered by text (id or title) and status. */
export function visibleRows(sessions: ReadonlyMap<string, SessionSummary> | null, text: string, state: StateFilter): SessionSummary[] {
  if (sessions === null) return [];
  const needle = text.trim().toLowerCase();
  const rows: SessionSummary[] = [];
  for (const s of sessions.values()) {
    if (state !== 'all' && s.status !== state) continue;
    if (needle !== '' && !s.session_id.toLowerCase().includes(needle) && !(s.title ?? '').toLowerCase().includes(needle)) continue;
    rows.push(s);
  }
  return rows.sort(
    (a, b) =>
      badness(b) - badness(a) ||
      pressure(a, b) ||
      (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0) ||
      (a.session_id < b.session_id ? -1 : 1),
  );
}

let socket: WebSocket | null = null;
let retryTimer: ReturnType<typeof setTimeout> | null = null;
let users = 0;

/** Opens the channel while some view uses it (reference counted); reconnects with backoff. */
export function connectOverview(): () => void {
  users++;
  if (users === 1) open(0);
  return () => {
    users--;
    if (users > 0) return;
    if (retryTimer !== null) clearTimeout(retryTimer);
    retryTimer = null;
    const ws = socket;
    socket = null;
    ws?.close();
  };
}

function open(attempt: number): void {
  const url = new URL('/api/overview/subscribe', window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(url);
  socket = ws;
  useOverview.setState({ connection: 'connecting' });
  ws.onopen = () => {
    attempt = 0;
    useOverview.setState({ connection: 'open', lostAt: null });
  };
  ws.onmessage = (e: MessageEvent<string>) => {
    let frame: OverviewFrame;
    try {
      frame = JSON.parse(e.data) as OverviewFrame;
    } catch {
      return;
    }
    useOverview.setState((s) => applyFrame(s, frame));
    if (frame.type === 'alert') notify(frame.alert);
  };
  ws.onclose = () => {
    if (socket !== ws) return; // closed on purpose
    // the first loss is the time that counts: retries that fail too do not move it
    useOverview.setState((st) => ({ connection: 'closed', lostAt: st.lostAt ?? new Date().toISOString() }));
    const delay = Math.min(15_000, 500 * 2 ** attempt);
    retryTimer = setTimeout(() => open(attempt + 1), delay);
  };
}

/** A browser notification for an alert, when the person allowed them. */
function notify(a: AlertFiring): void {
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  try {
    const n = new Notification(`Context Health: ${a.severity} in ${a.title ?? a.session_id}`, { body: `${a.what}, turn ${a.turn}`, tag: a.id });
    n.onclick = () => {
      window.focus();
      window.location.hash = new URL(a.link).hash;
    };
  } catch {
    // some browsers allow notifications only from a service worker: the toast still shows
  }
}

/** "unreachable since 14:02:11, retrying": said over a table the relay can no longer update. */
export function unreachableWords(lostAt: string): string {
  return `The relay is unreachable since ${new Date(lostAt).toLocaleTimeString('en-GB')}, retrying: the table below is what it last reported.`;
}

export function dismissToast(id: string): void {
  useOverview.setState((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
}

export function setOverviewFilter(patch: Partial<Pick<OverviewState, 'text' | 'state'>>): void {
  useOverview.setState(patch);
}
