// The bridge between the Worker client and the stores: opening sources, and pulling
// shaped data when something on screen needs it. Pulls are coalesced (one request in
// flight per panel, at most one queued), so a live session at 200 snapshots/s costs the
// main thread a few small replies a second, whatever the Worker is ingesting.
import { type AnalysisClient, type JobSummary, type ParseChoice, type SessionSummary, type Source } from '../src/worker/client.ts';
import { analysisClient } from './analysisClient.ts';
import { resetFindingDetails } from './features/findings/detailsCache.ts';
import { learnLabels, resetSpanLabels } from './stores/spanLabels.ts';
import { parseChoice } from './parseSetting.ts';
import { throttled } from './pulls.ts';
import { SourceSession, type SourceEvent } from './sourceSession.ts';
import { chooseSession, initialAnalysisState, useAnalysis, type AnalysisState } from './stores/analysis.ts';
import { followWindow, setUi, useUi } from './stores/ui.ts';

/** Source A, the session on screen: the page's one Worker client (analysisClient.ts), its events and pulls. */
const session = new SourceSession({ onEvent: (e) => onEvent(e), subscribe: () => wireSubscriptions() }, analysisClient);

function worker(): AnalysisClient {
  return session.client;
}

const set = (patch: Partial<AnalysisState>): void => useAnalysis.setState(patch);

/** The Worker client of the source on screen: comparing asks it (app/features/compare). */
export function sourceClient(): AnalysisClient {
  return worker();
}

/** The source on screen, so that another of its sessions can be opened beside it. */
export function currentSource(): Source | null {
  return session.source;
}

/** Starts the Worker (and its sha256) before the first file arrives. */
export function warmUp(): void {
  worker();
}

// ------------------------------------------------------------------ opening sources

export function openFile(file: File): void {
  start({ kind: 'file', file, name: file.name }, { kind: 'file', name: file.name, bytes: file.size });
}

export function openSample(url: string, name: string): void {
  start({ kind: 'url', url, name }, { kind: 'url', name, bytes: null });
}

export function openLive(sessionId: string): void {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const wsUrl = `${scheme}://${location.host}/api/sessions/${encodeURIComponent(sessionId)}/subscribe`;
  start({ kind: 'live', wsUrl, sessionId }, { kind: 'live', sessionId });
}

function start(source: Source, info: AnalysisState['source']): void {
  performance.mark('context-health:open');
  session.source = source;
  session.findingsFetchedFor = -1;
  resetFindingDetails();
  resetSpanLabels();
  useAnalysis.setState({ ...initialAnalysisState, source: info, load: { state: 'reading', progress: null, message: null } }, true);
  setUi({ selectedTurn: null, zoom: null, follow: true, selectedSpan: null, selectedCompaction: null, collapsed: new Set(), signalFilter: null });
  worker().open(source, useUi.getState().userThresholds, useUi.getState().scorer, openOptions(source));
}

/** Runs the analysis again with the thresholds now set (the Worker re-reads the source). */
export function reanalyse(): void {
  const source = session.source;
  if (source === null) return;
  session.findingsFetchedFor = -1;
  resetFindingDetails();
  const keep = useAnalysis.getState();
  set({
    load: { state: 'reading', progress: null, message: null },
    findings: null,
    turn: null,
    span: null,
    compactions: null,
    error: null,
    summary: keep.summary,
  });
  worker().open(source, useUi.getState().userThresholds, useUi.getState().scorer, openOptions(source));
}

/** Back to the welcome screen (a link, or Back, to the page with no view). */
export function closeSource(): void {
  if (session.source === null) return;
  worker().cancel();
  session.source = null;
  session.findingsFetchedFor = -1;
  resetFindingDetails();
  resetSpanLabels();
  useAnalysis.setState({ ...initialAnalysisState }, true);
  setUi({ selectedTurn: null, zoom: null, follow: true, selectedSpan: null, selectedCompaction: null, collapsed: new Set(), signalFilter: null });
}

export function cancelLoad(): void {
  worker().cancel();
}

export function showSession(sessionId: string): void {
  session.findingsFetchedFor = -1;
  resetFindingDetails();
  set({ sessionId, view: null, findings: null, turn: null, span: null, compactions: null });
  setUi({ selectedTurn: null, zoom: null, selectedSpan: null, selectedCompaction: null, collapsed: new Set() });
  pickDefaultTurn();
  refreshAll();
}

// ------------------------------------------------------------------ events

function onEvent(event: SourceEvent): void {
  switch (event.type) {
    case 'progress':
      set({ load: { ...useAnalysis.getState().load, progress: event.progress } });
      return;
    case 'connection':
      set({ connection: event.connection });
      return;
    case 'digest': {
      const source = useAnalysis.getState().source;
      if (source?.kind === 'file') set({ source: { ...source, sha256: event.sha256 } });
      return;
    }
    case 'failed': {
      // the Worker died: a live session must not keep saying 'Live', a load must end
      const load = useAnalysis.getState().load;
      set({
        connection: isLive() ? { state: 'failed', reason: event.reason } : null,
        load: load.state === 'reading' ? { ...load, state: 'failed', message: event.reason } : load,
      });
      return;
    }
    case 'summary':
      receiveSummary(event.summary, false);
      summaryDrawn();
      return;
    case 'done':
      performance.mark('context-health:done');
      set({ load: { state: event.state, progress: event.progress, message: event.message } });
      receiveSummary(event.summary, true);
      return;
  }
}

// The Worker sends the next summary only when this one has been drawn (after the next
// frame's paint), besides its interval: a page slowed down by a busy machine is never handed
// summaries faster than it can show them (docs/perf-log/notebook.md).
const PACED = { pacedSummaries: true };

/** A file or URL may be parsed by several Workers (app/parseSetting.ts); a followed session is not read that way. */
function openOptions(source: Source): { pacedSummaries: boolean; parse?: ParseChoice } {
  return source.kind === 'live' ? PACED : { ...PACED, parse: parseChoice() };
}

function summaryDrawn(): void {
  const job = worker().job;
  const drawn = (): void => {
    if (worker().job === job) worker().summaryDrawn();
  };
  // no frames outside a page (the store's tests): drawn as soon as the store took it
  if (typeof requestAnimationFrame === 'undefined') setTimeout(drawn, 0);
  else requestAnimationFrame(() => setTimeout(drawn, 0));
}

function isLive(): boolean {
  return useAnalysis.getState().source?.kind === 'live';
}

function paused(): boolean {
  return isLive() && !useUi.getState().follow;
}

function receiveSummary(summary: JobSummary, final: boolean): void {
  // paused: the screen keeps what it showed (but a paused link still shows its first data,
  // and takes more until it reaches the turn the link names: the first summary of a session
  // still catching up may end before it)
  if (paused() && useAnalysis.getState().summary !== null && shownReachesSelected()) {
    set({ latestSummary: summary });
    return;
  }
  applySummary(summary, final, true);
}

/** The summary on screen holds the selected turn (or none is selected). */
function shownReachesSelected(): boolean {
  const st = useAnalysis.getState();
  const selected = useUi.getState().selectedTurn;
  if (selected === null) return true;
  const s = st.summary?.sessions.find((x) => x.sessionId === st.sessionId);
  return s !== undefined && s.lastTurn !== null && s.lastTurn >= selected;
}

function applySummary(summary: JobSummary, final: boolean, latest = false): void {
  const state = useAnalysis.getState();
  const sessionId = chooseSession(summary, state.sessionId);
  // one store update per summary (twice a second while live): each update re-renders every
  // component that reads the summary, in the Worker message's task (docs/perf-log/notebook.md)
  set(latest ? { summary, latestSummary: summary, sessionId } : { summary, sessionId });
  const s = summary.sessions.find((x) => x.sessionId === sessionId);
  if (s === undefined || s.lastTurn === null) return;
  refreshCompactionsIfChanged(s);
  const ui = useUi.getState();
  if (isLive()) {
    // following: the cursor, a zoom window, the charts and the findings move together once a second
    if (ui.follow) {
      followTick();
      return;
    }
    if (ui.selectedTurn === null) setUi({ selectedTurn: s.lastTurn });
  } else if (final && ui.selectedTurn === null) {
    pickDefaultTurn();
  }
  if (final) {
    refreshView();
    refreshFindings();
  }
  refreshAll();
}

/** contract §8.3: the records again when the Worker says they changed (a new compaction, a refetch), at once: live, a compaction shows within a second. */
function refreshCompactionsIfChanged(s: SessionSummary): void {
  const shown = useAnalysis.getState().compactions;
  if (s.compactions === 0 && shown === null) return;
  if (shown === null || shown.sessionId !== s.sessionId || shown.revision !== s.compactionRevision) refreshCompactions();
}

/** Where a saved run stopped being trustworthy: its first fault; else its last turn. */
function pickDefaultTurn(): void {
  const st = useAnalysis.getState();
  const s = st.summary?.sessions.find((x) => x.sessionId === st.sessionId);
  if (s === undefined || s.lastTurn === null) return;
  setUi({ selectedTurn: isLive() ? s.lastTurn : (s.firstFault?.turn ?? s.lastTurn) });
}

/** Resume following a live session: show everything that arrived while paused. */
export function resumeFollow(): void {
  setUi({ follow: true });
  const latest = useAnalysis.getState().latestSummary;
  if (latest !== null) applySummary(latest, false);
}

// ------------------------------------------------------------------ pulls

const onPullError = (e: unknown): void => set({ error: e instanceof Error ? e.message : String(e) });

export const refreshView = session.pull(async (client) => {
  const { sessionId } = useAnalysis.getState();
  if (sessionId === null) return;
  const ui = useUi.getState();
  const width = Math.max(200, ui.chartWidth);
  // A live session's charts are redrawn every second: one point per 2.5 px (LTTB keeps the
  // shape, and the fault markers come from every turn) makes each redraw's paint cheap
  // enough for the page to keep its frames; a saved file gets one per 1.5 px
  // (docs/dashboard.md, docs/perf-log/notebook.md).
  const live = isLive();
  const view = await client.query('view', {
    sessionId,
    window: ui.zoom,
    points: Math.round(width / (live ? 2.5 : 1.5)),
    ribbon: Math.round(live ? width / 2 : width),
  });
  if (useAnalysis.getState().sessionId === sessionId) set({ view, error: null });
}, onPullError);

export const refreshFindings = session.pull(async (client) => {
  const st = useAnalysis.getState();
  const s = st.summary?.sessions.find((x) => x.sessionId === st.sessionId);
  if (s === undefined || (s.findings === session.findingsFetchedFor && st.findings !== null)) return;
  const count = s.findings;
  const findings = await client.query('findings', { sessionId: s.sessionId });
  session.findingsFetchedFor = count;
  if (useAnalysis.getState().sessionId === s.sessionId) set({ findings });
}, onPullError);

export const refreshCompactions = session.pull(async (client) => {
  const { sessionId } = useAnalysis.getState();
  if (sessionId === null) return;
  const compactions = await client.query('compactions', { sessionId });
  learnLabels(compactions.labels);
  if (useAnalysis.getState().sessionId === sessionId) set({ compactions });
}, onPullError);

export const refreshTurn = session.pull(async (client) => {
  const { sessionId } = useAnalysis.getState();
  const turn = useUi.getState().selectedTurn;
  if (sessionId === null || turn === null) return;
  const graph = !(isLive() && useUi.getState().follow);
  const detail = await client.query('turn', { sessionId, turn, graph });
  learnLabels(detail?.labels);
  if (useUi.getState().selectedTurn === turn) set({ turn: detail });
}, onPullError);

export const refreshSpan = session.pull(async (client) => {
  const { sessionId } = useAnalysis.getState();
  const { selectedTurn: turn, selectedSpan: spanId } = useUi.getState();
  if (sessionId === null || turn === null || spanId === null) {
    set({ span: null });
    return;
  }
  const detail = await client.query('span', { sessionId, turn, spanId });
  learnLabels(detail?.labels);
  if (detail?.label != null) learnLabels({ [detail.spanId]: detail.label });
  const ui = useUi.getState();
  if (ui.selectedSpan === spanId && ui.selectedTurn === turn) set({ span: detail });
}, onPullError);

// New data while a file loads redraws the charts at most every 5 s, and once at the end
// (applySummary): each redraw costs the main thread tens of milliseconds, and on a 2-core
// machine that time comes out of the Worker's, which is reading the file. A followed live
// session redraws once a second instead (followTick): there the newest turns are the point.
// What the person asks for (zoom, resize) is immediate.
const refreshViewForData = throttled(() => refreshView(), 5000);

const followTick = throttled(() => {
  const st = useAnalysis.getState();
  const s = st.summary?.sessions.find((x) => x.sessionId === st.sessionId);
  const ui = useUi.getState();
  if (s === undefined || s.lastTurn === null || !ui.follow || !isLive()) return;
  setUi({ selectedTurn: s.lastTurn, zoom: followWindow(ui.zoom, s.lastTurn) });
  refreshView();
  refreshFindings();
}, 1000);

function refreshAll(): void {
  refreshViewForData();
  refreshFindings();
  refreshTurn();
  if (useUi.getState().selectedSpan !== null) refreshSpan();
}

// Following a live session moves the cursor every update; the turn's details (spans,
// lineage graph) then refresh once a second, which is as fast as anyone reads them.
const followTurn = throttled(() => {
  refreshTurn();
  refreshSpan();
}, 1000);

function wireSubscriptions(): (() => void)[] {
  const ui = useUi.subscribe((s, prev) => {
    if (s.zoom !== prev.zoom || s.chartWidth !== prev.chartWidth) refreshView();
    if (s.follow !== prev.follow && !s.follow && isLive()) refreshTurn(); // paused: now the lineage graph is drawn
    if (s.selectedTurn !== prev.selectedTurn) {
      if (isLive() && s.follow) followTurn();
      else {
        refreshTurn();
        refreshSpan();
      }
    } else if (s.selectedSpan !== prev.selectedSpan) refreshSpan();
  });
  return [ui];
}

// The URL (the view as a link) is written and read by app/features/links/links.ts.

/** A span chosen in the graph, a finding, a verdict list or the spans table: opens the inspector. */
export function selectSpan(spanId: string | null): void {
  setUi({ selectedSpan: spanId });
}

/** A turn chosen by the person. On a live session, leaving the newest turn pauses following. */
export function selectTurn(turn: number | null): void {
  if (isLive()) {
    const last = useAnalysis.getState().view?.lastTurn ?? null;
    if (turn !== null && turn === last) {
      if (!useUi.getState().follow) resumeFollow();
    } else if (useUi.getState().follow) setUi({ follow: false });
  }
  setUi({ selectedTurn: turn });
}
