// The bridge for comparing: B is analysed by a second Worker (its own AnalysisClient, so
// A and B load in parallel, one per core), and A's Worker compares A's session with B's
// outline (src/worker/compareQuery.ts, the rules of `diff`, contract §6.4). Pulls are
// made by its SourceSession, like app/analysis.ts's; a growing live session (A or B) re-compares at most
// once a second.
import { counterpartIndex, type Alignment, type Source } from '../../../src/worker/client.ts';
import { currentSource, sourceClient, selectTurn } from '../../analysis.ts';
import { throttled } from '../../pulls.ts';
import { SourceSession, type SourceEvent } from '../../sourceSession.ts';
import { useAnalysis } from '../../stores/analysis.ts';
import { useUi } from '../../stores/ui.ts';
import { outOfScope } from '../turn/turnHeadline.ts';
import { choosePartnerSession, initialCompareState, useCompare, type CompareState, type PartnerSpec } from './compareStore.ts';

/** Source B, the comparison partner: a second SourceSession, with a Worker of its own. */
const partner = new SourceSession({ onEvent: (e) => onPartnerEvent(e), subscribe: () => wire() });

const set = (patch: Partial<CompareState>): void => useCompare.setState(patch);

function sourceOf(spec: PartnerSpec): Source | null {
  switch (spec.kind) {
    case 'sample':
      return { kind: 'url', url: `${import.meta.env.BASE_URL}samples/${spec.name}`, name: spec.name };
    case 'live': {
      const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
      return {
        kind: 'live',
        wsUrl: `${scheme}://${location.host}/api/sessions/${encodeURIComponent(spec.sessionId)}/subscribe`,
        sessionId: spec.sessionId,
      };
    }
    case 'file':
      return { kind: 'file', file: spec.file, name: spec.name };
    case 'same':
      return currentSource();
  }
}

/** Opens B beside the session on screen. */
export function openPartner(spec: PartnerSpec, requested: string | null = null, align: Alignment = useCompare.getState().align): void {
  const source = sourceOf(spec);
  if (source === null) return;
  useCompare.setState({ ...initialCompareState, partner: spec, requested, align, load: 'reading' }, true);
  partner.source = source;
  partner.client.open(source, useUi.getState().userThresholds, useUi.getState().scorer);
}

export function closeCompare(): void {
  if (partner.started) partner.client.cancel(); // a live B stops its subscription
  partner.source = null;
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
  set({ requested: sessionId, sessionId, comparison: null, view: null, turn: null, compactions: null });
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

function onPartnerEvent(event: SourceEvent): void {
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
  const { partner: spec, sessionId: b } = useCompare.getState();
  return spec === null || a === null || b === null ? null : { a, b };
}

export const refreshComparison = partner.pull(async (client) => {
  const ids = sessions();
  if (ids === null) return;
  const align = useCompare.getState().align;
  const aTurns = useAnalysis.getState().summary?.sessions.find((s) => s.sessionId === ids.a)?.turns ?? 0;
  if (aTurns === 0) return;
  const other = await client.query('outline', { sessionId: ids.b });
  const comparison = await sourceClient().query('compare', { sessionId: ids.a, other, align });
  const now = sessions();
  if (now?.a === ids.a && now.b === ids.b && useCompare.getState().align === align) set({ comparison });
}, onPullError);

export const refreshPartnerView = partner.pull(async (client) => {
  const ids = sessions();
  if (ids === null) return;
  const ui = useUi.getState();
  const width = Math.max(200, ui.chartWidth);
  // by position B's whole run is drawn and the chart's own x domain clips it to A's window
  const window = useCompare.getState().align === 'turn' ? ui.zoom : null;
  const view = await client.query('view', { sessionId: ids.b, window, points: Math.round(width / 1.5), ribbon: 1 });
  if (sessions()?.b === ids.b) set({ view });
}, onPullError);

/** B's turn beside A's cursor (contract §6.4 alignment), for the side-by-side verdicts. */
export const refreshPartnerTurn = partner.pull(async (client) => {
  const ids = sessions();
  const aView = useAnalysis.getState().view;
  const bView = useCompare.getState().view;
  const turn = useUi.getState().selectedTurn;
  if (ids === null || aView === null || bView === null || turn === null) return;
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

/**
 * B's compaction records when B is in the reference scope (contract §8.1), for its side's §8.9
 * headline; asked again only when B's summary says they changed (compactionRevision).
 */
export const refreshPartnerCompactions = partner.pull(async (client) => {
  const ids = sessions();
  if (ids === null) return;
  const b = useCompare.getState().summary?.sessions.find((s) => s.sessionId === ids.b);
  if (b === undefined || !outOfScope(b) || b.compactions === 0) return;
  if (useCompare.getState().compactions?.sessionId === ids.b && useCompare.getState().compactions?.revision === b.compactionRevision) return;
  const compactions = await client.query('compactions', { sessionId: ids.b });
  if (sessions()?.b === ids.b) set({ compactions });
}, onPullError);

function refreshAll(): void {
  refreshComparison();
  refreshPartnerView();
  refreshPartnerCompactions();
}

/** B (or A) grew: at most once a second, as the charts of a followed live session do. */
const refreshForData = throttled(refreshAll, 1000);

function wire(): (() => void)[] {
  const a = useAnalysis.subscribe((s, prev) => {
    if (useCompare.getState().partner === null) return;
    if (s.sessionId !== prev.sessionId) refreshAll();
    else if (s.summary !== prev.summary) refreshForData();
    if (s.view !== prev.view || s.turn !== prev.turn) refreshPartnerTurn();
  });
  const ui = useUi.subscribe((s, prev) => {
    if (useCompare.getState().partner === null) return;
    if (s.zoom !== prev.zoom || s.chartWidth !== prev.chartWidth) refreshPartnerView();
    if (s.selectedTurn !== prev.selectedTurn) {
      const pinned = useCompare.getState().pinned;
      if (pinned !== null && pinned.aTurn !== s.selectedTurn) set({ pinned: null });
      refreshPartnerTurn();
    }
  });
  const b = useCompare.subscribe((s, prev) => {
    if (s.view !== prev.view) refreshPartnerTurn();
  });
  return [a, ui, b];
}
