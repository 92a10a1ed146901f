// The whole view in the URL (docs/dashboard.md "Links"): which source, which session of it,
// the selected turn, the zoom window, the findings filters, the thresholds and scorer set in
// Settings, the selected span and the compared session. Pure: parse and serialise only,
// tested both ways (viewUrl.test.ts). A value that is malformed is left out and named in
// `problems`; the rest of the link still opens.
import {
  SIGNALS,
  THRESHOLD_KEYS,
  thresholdProblem,
  type Alignment,
  type ScorerMode,
  type Severity,
  type Signal,
  type Thresholds,
} from '../src/worker/client.ts';
import { compareHash, partnerFromHash, type PartnerSpec } from './features/compare/compareStore.ts';

/** What the view shows. A dropped file is named by its name and sha256: the link cannot carry the file. */
export type LinkSource = { kind: 'live'; sessionId: string } | { kind: 'sample'; name: string } | { kind: 'file'; name: string; sha256: string };

/** The compared session B as a link names it (a file dropped as B cannot be named: contract of compareStore). */
export type LinkPartner = Exclude<PartnerSpec, { kind: 'file' }>;

export interface ViewLink {
  source: LinkSource | null;
  /** the session of a source with several; null = the one the dashboard picks */
  session: string | null;
  turn: number | null;
  /** the zoom window, turn numbers inclusive; null = the whole session */
  zoom: { from: number; to: number } | null;
  /** which severities the findings list shows */
  severities: Record<Severity, boolean>;
  signal: Signal | null;
  /** thresholds set in Settings (contract §4: they override the session header's) */
  thresholds: Partial<Thresholds>;
  scorer: ScorerMode;
  span: string | null;
  compare: { partner: LinkPartner; session: string | null; align: Alignment } | null;
}

export const SEVERITIES: readonly Severity[] = ['fault', 'warning', 'info'];
export const SCORERS: readonly ScorerMode[] = ['auto', 'harness', 'reference', 'both'];
const ALL_SHOWN: Record<Severity, boolean> = { fault: true, warning: true, info: true };

export const emptyLink: ViewLink = {
  source: null,
  session: null,
  turn: null,
  zoom: null,
  severities: ALL_SHOWN,
  signal: null,
  thresholds: {},
  scorer: 'auto',
  span: null,
  compare: null,
};

/** Prefix of a threshold's key, as `check --set key=value`: `set.spread_floor=0.02`. */
const SET = 'set.';
/** Longest id or name a link carries (a session id, span id, file name). */
const MAX_ID = 512;
/** a file of public/samples, or of its agents/ folder (other agents' sessions: scripts/write-samples.ts) */
const SAMPLE_NAME = /^(agents\/)?[\w.-]+$/;
const SHA256 = /^[0-9a-f]{64}$/i;
const TURN = /^-?\d{1,15}$/;

/** Every key this module reads or writes, so the page can tell its own from others (none today). */
const KEYS = new Set(['live', 'sample', 'file', 'sha256', 'session', 'turn', 'zoom', 'sev', 'signal', 'scorer', 'span', 'compare', 'compare_session', 'align']);

const isId = (v: string): boolean => v !== '' && v.length <= MAX_ID && !/\p{Cc}/u.test(v);

function parseTurn(v: string): number | null {
  if (!TURN.test(v)) return null;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : null;
}

export interface ParsedLink {
  link: ViewLink;
  /** each value left out, and why, in the order of the link */
  problems: string[];
}

/** The view a URL fragment names (`#live=…&turn=…`, with or without the `#`). Never throws. */
export function parseViewLink(fragment: string): ParsedLink {
  const params = new URLSearchParams(fragment.startsWith('#') ? fragment.slice(1) : fragment);
  const h: Record<string, string> = {};
  for (const [k, v] of params) if (!(k in h)) h[k] = v; // the first of a repeated key counts
  const problems: string[] = [];
  const bad = (key: string, why: string): void => void problems.push(`${key}=${(h[key] ?? '').slice(0, 80)}: ${why}`);
  const link: ViewLink = { ...emptyLink, severities: { ...ALL_SHOWN }, thresholds: {} };

  // the source: exactly one of live, sample, file (+ sha256)
  const named = ['live', 'sample', 'file'].filter((k) => h[k] !== undefined);
  if (named.length > 1) problems.push(`${named.join(' and ')}: a link names one source; none opened`);
  else if (h.live !== undefined) {
    if (isId(h.live)) link.source = { kind: 'live', sessionId: h.live };
    else bad('live', 'not a session id');
  } else if (h.sample !== undefined) {
    if (SAMPLE_NAME.test(h.sample)) link.source = { kind: 'sample', name: h.sample };
    else bad('sample', 'not a sample name');
  } else if (h.file !== undefined) {
    if (!isId(h.file)) bad('file', 'not a file name');
    else if (h.sha256 === undefined || !SHA256.test(h.sha256)) bad('sha256', 'a file is named by its sha256: 64 hex digits');
    else link.source = { kind: 'file', name: h.file, sha256: h.sha256.toLowerCase() };
  }

  if (h.session !== undefined) {
    if (isId(h.session)) link.session = h.session;
    else bad('session', 'not a session id');
  }
  if (h.turn !== undefined) {
    link.turn = parseTurn(h.turn);
    if (link.turn === null) bad('turn', 'not an integer turn');
  }
  if (h.zoom !== undefined) {
    const m = /^(-?\d+)\.\.(-?\d+)$/.exec(h.zoom);
    const from = m === null ? null : parseTurn(m[1]!);
    const to = m === null ? null : parseTurn(m[2]!);
    if (from !== null && to !== null && from < to) link.zoom = { from, to };
    else bad('zoom', 'a window is two turns a..b with a < b');
  }
  if (h.sev !== undefined) {
    const names = h.sev === '' ? [] : h.sev.split(',');
    if (names.every((n) => (SEVERITIES as readonly string[]).includes(n))) {
      for (const s of SEVERITIES) link.severities[s] = names.includes(s);
    } else bad('sev', `severities are ${SEVERITIES.join(', ')}`);
  }
  if (h.signal !== undefined) {
    if ((SIGNALS as readonly string[]).includes(h.signal)) link.signal = h.signal as Signal;
    else bad('signal', 'not a contract §4 signal');
  }
  for (const [k, v] of Object.entries(h)) {
    if (!k.startsWith(SET)) continue;
    const key = k.slice(SET.length);
    if (!(THRESHOLD_KEYS as readonly string[]).includes(key)) {
      bad(k, 'not a contract §4 threshold');
      continue;
    }
    const n = v.trim() === '' ? NaN : Number(v);
    const why = Number.isFinite(n) ? thresholdProblem(key as keyof Thresholds, n) : 'not a number';
    if (why === null) link.thresholds[key as keyof Thresholds] = n;
    else bad(k, why);
  }
  if (h.scorer !== undefined) {
    if ((SCORERS as readonly string[]).includes(h.scorer)) link.scorer = h.scorer as ScorerMode;
    else bad('scorer', `scorers are ${SCORERS.join(', ')}`);
  }
  if (h.span !== undefined) {
    if (isId(h.span)) link.span = h.span;
    else bad('span', 'not a span id');
  }
  if (h.compare !== undefined) {
    const c = partnerFromHash(h);
    if (c !== null && c.partner.kind !== 'file' && (c.requested === null || isId(c.requested))) {
      link.compare = { partner: c.partner, session: c.requested, align: c.align };
    } else bad('compare', 'names no sample, live session or same');
  }
  for (const k of Object.keys(h)) if (!KEYS.has(k) && !k.startsWith(SET)) problems.push(`${k}: not a part of a link`);
  return { link, problems };
}

/** The fragment (without `#`) naming `link`, keys in a fixed order, defaults left out: equal views give equal links. */
export function serialiseViewLink(link: ViewLink): string {
  const p = new URLSearchParams();
  const s = link.source;
  if (s?.kind === 'live') p.set('live', s.sessionId);
  else if (s?.kind === 'sample') p.set('sample', s.name);
  else if (s?.kind === 'file') {
    p.set('file', s.name);
    p.set('sha256', s.sha256);
  }
  if (link.session !== null) p.set('session', link.session);
  if (link.turn !== null) p.set('turn', String(link.turn));
  if (link.zoom !== null) p.set('zoom', `${link.zoom.from}..${link.zoom.to}`);
  if (SEVERITIES.some((x) => !link.severities[x])) p.set('sev', SEVERITIES.filter((x) => link.severities[x]).join(','));
  if (link.signal !== null) p.set('signal', link.signal);
  for (const k of THRESHOLD_KEYS) {
    const v = link.thresholds[k];
    if (v !== undefined) p.set(SET + k, String(v));
  }
  if (link.scorer !== 'auto') p.set('scorer', link.scorer);
  if (link.span !== null) p.set('span', link.span);
  if (link.compare !== null) {
    for (const [k, v] of Object.entries(compareHash(link.compare.partner, link.compare.session, link.compare.align))) if (v !== null) p.set(k, v);
  }
  return p.toString();
}

/** The same view (what a Back/Forward step or a pasted link must change, if anything). */
export function sameLink(a: ViewLink, b: ViewLink): boolean {
  return serialiseViewLink(a) === serialiseViewLink(b);
}

/** The same source (a link to it does not load it again, only moves the view). */
export function sameSource(a: LinkSource | null, b: LinkSource | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.kind === 'live' && b.kind === 'live') return a.sessionId === b.sessionId;
  if (a.kind === 'sample' && b.kind === 'sample') return a.name === b.name;
  if (a.kind === 'file' && b.kind === 'file') return a.name === b.name && a.sha256 === b.sha256;
  return false;
}

/** The thresholds and scorer the analysis runs with: a change re-runs it (Settings' Apply). */
export function sameAnalysis(a: Pick<ViewLink, 'thresholds' | 'scorer'>, b: Pick<ViewLink, 'thresholds' | 'scorer'>): boolean {
  return a.scorer === b.scorer && THRESHOLD_KEYS.every((k) => a.thresholds[k] === b.thresholds[k]);
}

/**
 * Whether going from view `a` to view `b` is a step Back should undo (a new history entry):
 * another source, session or comparison, another zoom window or span, another turn when one
 * was selected. A first turn or session given to a view that had none (the default picked
 * when a load ends) and changed filters or thresholds are not: they replace the entry.
 */
export function isJump(a: ViewLink, b: ViewLink): boolean {
  const zoom = (v: ViewLink): string => (v.zoom === null ? '' : `${v.zoom.from}..${v.zoom.to}`);
  const compare = (v: ViewLink): string => (v.compare === null ? '' : JSON.stringify(compareHash(v.compare.partner, v.compare.session, v.compare.align)));
  return (
    !sameSource(a.source, b.source) ||
    (a.session !== null && a.session !== b.session) ||
    (a.turn !== null && a.turn !== b.turn) ||
    zoom(a) !== zoom(b) ||
    a.span !== b.span ||
    compare(a) !== compare(b)
  );
}
