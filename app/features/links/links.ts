// The URL is the view (docs/dashboard.md "Links"): every change of what is on screen is
// written to it, and a link opened, pasted or reached with Back/Forward is applied. The
// format is app/viewUrl.ts's; this module only reads the stores and drives the bridges.
//
// History: a deliberate jump (another source, session, zoom, span, a turn chosen by click,
// Home/End or Shift+arrow) adds an entry; a continuous change (an arrow-key step, a zoom edge
// slider: markContinuous), a changed filter or threshold, and a default the page picks
// itself replace the current one. A dropped file cannot be reopened from a link: a link to
// one waits for the person to drop it, and checks by sha256 that it is that file.
import { closeSource, currentSource, openFile, openLive, openSample, reanalyse, resumeFollow, showSession } from '../../analysis.ts';
import { useAnalysis, type SourceInfo } from '../../stores/analysis.ts';
import { setUi, useUi } from '../../stores/ui.ts';
import {
  emptyLink,
  isJump,
  parseViewLink,
  sameAnalysis,
  sameSource,
  serialiseViewLink,
  type LinkSource,
  type ParsedLink,
  type ViewLink,
} from '../../viewUrl.ts';
import { closeCompare, openPartner } from '../compare/compare.ts';
import { compareHash, useCompare } from '../compare/compareStore.ts';
import { takeContinuous, useLinks } from './linkStore.ts';

/** The view of the current history entry, as written or applied. */
let entry: ViewLink = emptyLink;
let entryText = '';
/** the fragment last applied or written, so a hashchange after a popstate is not applied twice */
let appliedHash: string | null = null;
let applying = false;
let scheduled = false;
let started = false;
/** files opened in this tab, by sha256: Back to one of them reads it again without asking */
const knownFiles = new Map<string, File>();

/** The source on screen as a link names it; undefined while it cannot be named (a file before its sha256). */
function sourceOnScreen(): LinkSource | null | undefined {
  const s = useAnalysis.getState().source;
  if (s === null) return null;
  if (s.kind === 'live') return { kind: 'live', sessionId: s.sessionId };
  if (s.kind === 'url') return { kind: 'sample', name: s.name };
  return s.sha256 === undefined ? undefined : { kind: 'file', name: s.name, sha256: s.sha256 };
}

/** The view on screen, or null while it cannot be named yet. */
export function currentLink(): ViewLink | null {
  const source = sourceOnScreen();
  if (source === undefined) return null;
  const a = useAnalysis.getState();
  const ui = useUi.getState();
  const c = useCompare.getState();
  // following a live session: the cursor and a zoom window move with the newest turn, a link follows too
  const following = source?.kind === 'live' && ui.follow;
  return {
    source,
    session: source === null || source.kind === 'live' ? null : a.sessionId,
    turn: following ? null : ui.selectedTurn,
    zoom: following ? null : ui.zoom,
    severities: { ...ui.severities },
    signal: ui.signalFilter,
    thresholds: { ...ui.userThresholds },
    scorer: ui.scorer,
    span: ui.selectedSpan,
    compare: c.partner === null || c.partner.kind === 'file' ? null : { partner: c.partner, session: c.requested, align: c.align },
  };
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  // one write per task: a click that moves the cursor and opens a span is one history entry
  queueMicrotask(flush);
}

function flush(): void {
  scheduled = false;
  const continuous = takeContinuous();
  // the URL keeps a link whose file is awaited or being checked: it is what the person was sent
  const { expected, check } = useLinks.getState();
  if (applying || expected !== null || check !== null) return;
  const link = currentLink();
  if (link === null) return;
  const text = serialiseViewLink(link);
  if (text === entryText) return;
  const url = text === '' ? location.pathname + location.search : `#${text}`;
  if (!continuous && isJump(entry, link)) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
  entry = link;
  entryText = text;
  appliedHash = location.hash;
}

// ------------------------------------------------------------------ applying a link

/** The link of this page's URL, applied: at start, on a pasted link (hashchange) and on Back/Forward (popstate). */
function onNavigate(): void {
  if (location.hash === appliedHash) return;
  appliedHash = location.hash;
  applyLink(parseViewLink(location.hash));
}

export function applyLink({ link, problems }: ParsedLink): void {
  applying = true;
  try {
    useLinks.setState({ problems });
    if (problems.length > 0) console.warn(`link: left out ${problems.join('; ')}`);
    const ui = useUi.getState();
    // the analysis settings first: a source opened below is read with them
    const reread = !sameAnalysis(link, { thresholds: ui.userThresholds, scorer: ui.scorer });
    if (reread) setUi({ userThresholds: { ...link.thresholds }, scorer: link.scorer });
    const onScreen = sourceOnScreen();
    const src = link.source;
    if (src === null) {
      // the page before any view: the welcome screen, with no comparison left behind it
      useLinks.setState({ expected: null, check: null });
      if (useCompare.getState().partner !== null) closeCompare();
      closeSource();
      return;
    }
    if (src.kind === 'file' && !(onScreen !== undefined && sameSource(src, onScreen))) {
      // a link cannot carry the file: its view waits until that file is dropped (or read again, when this tab had it)
      closeSource();
      useLinks.setState({ expected: { ...link, source: src }, check: null });
      const known = knownFiles.get(src.sha256);
      if (known !== undefined) openFile(known);
      return;
    }
    useLinks.setState({ expected: null, check: null });
    if (onScreen === undefined || !sameSource(src, onScreen)) {
      if (src.kind === 'live') openLive(src.sessionId);
      else if (src.kind === 'sample') openSample(`${import.meta.env.BASE_URL}samples/${src.name}`, src.name);
    } else if (reread) reanalyse();
    applyView(link);
  } finally {
    applying = false;
    entry = link;
    entryText = serialiseViewLink(link);
  }
}

/** Everything of a link but its source and analysis settings, applied to the source on screen. */
function applyView(link: ViewLink): void {
  const a = useAnalysis.getState();
  const live = link.source?.kind === 'live';
  if (link.session !== null && !live && a.sessionId !== link.session) {
    if (a.summary?.sessions.some((s) => s.sessionId === link.session) === true) showSession(link.session);
    // not loaded yet: the first summary keeps it when the source has it (chooseSession)
    else useAnalysis.setState({ sessionId: link.session });
  }
  const ui = useUi.getState();
  if (live) {
    if (link.turn !== null) setUi({ follow: false, selectedTurn: link.turn });
    else if (!ui.follow) resumeFollow();
  } else if (link.turn !== null) setUi({ selectedTurn: link.turn });
  setUi({ zoom: link.zoom, severities: { ...link.severities }, signalFilter: link.signal, selectedSpan: link.span });
  const c = useCompare.getState();
  // a file compared as B is not in any link: a link says nothing about it
  if (c.partner?.kind === 'file') return;
  const have = c.partner === null ? null : JSON.stringify(compareHash(c.partner, c.requested, c.align));
  const want = link.compare === null ? null : JSON.stringify(compareHash(link.compare.partner, link.compare.session, link.compare.align));
  if (want === have) return;
  if (link.compare === null) closeCompare();
  else openPartner(link.compare.partner, link.compare.session, link.compare.align);
}

// ------------------------------------------------------------------ a file dropped on a link

function onSourceChange(source: SourceInfo | null, prev: SourceInfo | null): void {
  const { expected, check } = useLinks.getState();
  if (source?.kind === 'file' && source.sha256 !== undefined && (prev?.kind !== 'file' || prev.sha256 === undefined)) {
    const file = currentSource();
    if (file?.kind === 'file') knownFiles.set(source.sha256, file.file);
    if (expected === null || check?.state !== 'checking') return;
    if (source.sha256 === expected.source.sha256) {
      useLinks.setState({ expected: null, check: null });
      applying = true;
      try {
        applyView(expected);
      } finally {
        applying = false;
      }
      entry = expected;
      entryText = serialiseViewLink(expected);
      schedule();
    } else useLinks.setState({ check: { state: 'mismatch', name: source.name, sha256: source.sha256 } });
    return;
  }
  if (source?.kind === 'file' && source.sha256 === undefined) {
    // a file opened while a link waits for one: not shown until its sha256 says whether it is that file
    if (expected !== null) useLinks.setState({ check: { state: 'checking', name: source.name, sha256: null } });
    return;
  }
  // another kind of source opened by the person: the link's file is no longer awaited
  if (source !== null && expected !== null && !applying) useLinks.setState({ expected: null, check: null });
}

/** The file dropped is not the link's: show it anyway, without any of the link's view (it was another file's). */
export function openAnyway(): void {
  if (useLinks.getState().check?.state !== 'mismatch') return;
  useLinks.setState({ expected: null, check: null });
  const ui = useUi.getState();
  const reread = !sameAnalysis(emptyLink, { thresholds: ui.userThresholds, scorer: ui.scorer });
  setUi({ zoom: null, severities: { ...emptyLink.severities }, signalFilter: null, selectedSpan: null, userThresholds: {}, scorer: 'auto' });
  if (reread) reanalyse();
  schedule(); // another source than the link's: a new history entry, Back returns to the link
}

/** Stop waiting for the link's file: the welcome screen, and a URL without the link. */
export function forgetLink(): void {
  useLinks.setState({ expected: null, check: null, problems: [] });
  // none of the link's view stays: its thresholds and filters were for its file
  setUi({ zoom: null, severities: { ...emptyLink.severities }, signalFilter: null, selectedSpan: null, userThresholds: {}, scorer: 'auto' });
  closeSource();
  schedule();
}

/** Starts writing the view to the URL and applies the URL's link. Once per page. */
export function startLinks(): void {
  if (started) return;
  started = true;
  useUi.subscribe(schedule);
  useCompare.subscribe(schedule);
  useLinks.subscribe(schedule);
  useAnalysis.subscribe((s, prev) => {
    if (s.source !== prev.source) onSourceChange(s.source, prev.source);
    if (s.source !== prev.source || s.sessionId !== prev.sessionId) schedule();
  });
  window.addEventListener('popstate', onNavigate);
  // our own writes (pushState, replaceState) fire neither: this is a link pasted or edited in the address bar
  window.addEventListener('hashchange', onNavigate);
  onNavigate();
}
