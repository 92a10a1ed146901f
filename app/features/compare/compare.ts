// The bridge for comparing: B is analysed by a second Worker (its own AnalysisClient, so
// A and B load in parallel, one per core), and A's Worker compares A's session with B's
// outline (src/worker/compareQuery.ts, the rules of `diff`, contract §6.4). Pulls are
// coalesced like app/analysis.ts's; a growing live session (A or B) re-compares at most
// once a second.
import { AnalysisClient, counterpartIndex, type Alignment, type Source, type WorkerEvent } from '../../../src/worker/client.ts';
import { currentSource, sourceClient, selectTurn } from '../../analysis.ts';
import { coalesced, throttled } from '../../pulls.ts';
import { useAnalysis } from '../../stores/analysis.ts';
import { useUi } from '../../stores/ui.ts';
import { choosePartnerSession, initialCompareState, useCompare, type CompareState, type PartnerSpec } from './compareStore.ts';

let client: AnalysisClient | null = null;

function partnerWorker(): AnalysisClient {
  if (client === null) {
    client = new AnalysisClient();
    client.subscribe(onPartnerEvent);
    wire();
  }
  return client;
}

const set = (patch: Partial<CompareState>): void => useCompare.setState(patch);

function sourceOf(partner: PartnerSpec): Source | null {
  switch (partner.kind) {
    case 'sample':
      return { kind: 'url', url: `${import.meta.env.BASE_URL}samples/${partner.name}`, name: partner.name };
    case 'live': {
      const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
      return {
        kind: 'live',
        wsUrl: `${scheme}://${location.host}/api/sessions/${encodeURIComponent(partner.sessionId)}/subscribe`,
        sessionId: partner.sessionId,
      };
    }
    case 'file':
      return { kind: 'file', file: partner.file, name: partner.name };
    case 'same':
      return currentSource();
  }
}

/** Opens B beside the session on screen. */
export function openPartner(partner: PartnerSpec, requested: string | null = null, align: Alignment = useCompare.getState().align): void {
  const source = sourceOf(partner);
  if (source === null) return;
  useCompare.setState({ ...initialCompareState, partner, requested, align, load: 'reading' }, true);
  partnerWorker().open(source, useUi.getState().userThresholds, useUi.getState().scorer);
}

export function closeCompare(): void {
  if (client !== null) client.cancel(); // a live B stops its subscription
  useCompare.setState({ ...initialCompareState, align: useCompare.getState().align }, true);
}

export function setAlign(align: Alignment): void {
  set({ align, comparison: null });
  refreshComparison();
  refreshPartnerView();
  refreshPartnerTurn();
}

/** B picks another of its sessions. */
export function showPartnerSession(sessionId: string): void {
  set({ requested: sessionId, sessionId, comparison: null, view: null, turn: null });
  refreshAll();
}

/** Moves the cursor to a pair of turns (the first divergence), B's shown as given. */
export function selectPair(aTurn: number, bTurn: number): void {
  set({ pinned: { aTurn, bTurn } });
  if (useUi.getState().selectedTurn === aTurn) refreshPartnerTurn();
  else selectTurn(aTurn);
}

// The link's part of a comparison is written and read by app/features/links/links.ts.

// ------------------------------------------------------------------ B's events

function onPartnerEvent(event: Exclude<WorkerEvent, { type: 'reply' }>): void {
  switch (event.type) {
    case 'progress':
    case 'digest': // B is never named by a file in a link
      return;
    case 'connection':
      set({ connection: event.connection });
      return;
    case 'failed':
      // B's Worker died: its live link must not keep saying 'Live', its load must end
      set({ connection: { state: 'failed', reason: event.reason }, load: 'failed' });
      return;
    case 'summary':
    case 'done': {
      const st = useCompare.getState();
      if (st.partner === null) return;
      const sessionId = st.sessionId ?? choosePartnerSession(event.summary, st.partner, st.requested, useAnalysis.getState().sessionId);
      set({ summary: event.summary, sessionId, load: event.type === 'done' ? event.state : st.load });
      if (event.type === 'done') refreshAll();
      else refreshForData();
      return;
    }
  }
}

// ------------------------------------------------------------------ pulls

const onPullError = (e: unknown): void => console.warn('compare:', e);

function sessions(): { a: string; b: string } | null {
  const a = useAnalysis.getState().sessionId;
  const { partner, sessionId: b } = useCompare.getState();
  return partner === null || a === null || b === null ? null : { a, b };
}

export const refreshComparison = coalesced(async () => {
  const ids = sessions();
  if (ids === null || client === null) return;
  const align = useCompare.getState().align;
  const aTurns = useAnalysis.getState().summary?.sessions.find((s) => s.sessionId === ids.a)?.turns ?? 0;
  if (aTurns === 0) return;
  const other = await client.query('outline', { sessionId: ids.b });
  const comparison = await sourceClient().query('compare', { sessionId: ids.a, other, align });
  const now = sessions();
  if (now?.a === ids.a && now.b === ids.b && useCompare.getState().align === align) set({ comparison });
}, onPullError);

export const refreshPartnerView = coalesced(async () => {
  const ids = sessions();
  if (ids === null || client === null) return;
  const ui = useUi.getState();
  const width = Math.max(200, ui.chartWidth);
  // by position B's whole run is drawn and the chart's own x domain clips it to A's window
  const window = useCompare.getState().align === 'turn' ? ui.zoom : null;
  const view = await client.query('view', { sessionId: ids.b, window, points: Math.round(width / 1.5), ribbon: 1 });
  if (sessions()?.b === ids.b) set({ view });
}, onPullError);

/** B's turn beside A's cursor (contract §6.4 alignment), for the side-by-side verdicts. */
export const refreshPartnerTurn = coalesced(async () => {
  const ids = sessions();
  const aView = useAnalysis.getState().view;
  const bView = useCompare.getState().view;
  const turn = useUi.getState().selectedTurn;
  if (ids === null || client === null || aView === null || bView === null || turn === null) return;
  const pinned = useCompare.getState().pinned;
  let bTurn: number | null;
  if (pinned !== null && pinned.aTurn === turn) bTurn = pinned.bTurn;
  else {
    const j = counterpartIndex(aView.turns, bView.turns, aView.turns.indexOf(turn), useCompare.getState().align);
    bTurn = j < 0 ? null : bView.turns[j]!;
  }
  const detail = bTurn === null ? null : await client.query('turn', { sessionId: ids.b, turn: bTurn, graph: false });
  if (useUi.getState().selectedTurn === turn) set({ turn: detail });
}, onPullError);

function refreshAll(): void {
  refreshComparison();
  refreshPartnerView();
}

/** B (or A) grew: at most once a second, as the charts of a followed live session do. */
const refreshForData = throttled(refreshAll, 1000);

function wire(): void {
  useAnalysis.subscribe((s, prev) => {
    if (useCompare.getState().partner === null) return;
    if (s.sessionId !== prev.sessionId) refreshAll();
    else if (s.summary !== prev.summary) refreshForData();
    if (s.view !== prev.view || s.turn !== prev.turn) refreshPartnerTurn();
  });
  useUi.subscribe((s, prev) => {
    if (useCompare.getState().partner === null) return;
    if (s.zoom !== prev.zoom || s.chartWidth !== prev.chartWidth) refreshPartnerView();
    if (s.selectedTurn !== prev.selectedTurn) {
      const pinned = useCompare.getState().pinned;
      if (pinned !== null && pinned.aTurn !== s.selectedTurn) set({ pinned: null });
      refreshPartnerTurn();
    }
  });
  useCompare.subscribe((s, prev) => {
    if (s.view !== prev.view) refreshPartnerTurn();
  });
}
