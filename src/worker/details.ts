// Answers about one turn, one span, or a page of findings, from a TurnColumnStore.
import { indexAtOrBefore } from '../core/bisect.ts';
import { Binding } from '../core/analyse.ts';
import { SEVERITY, SIGNALS } from '../core/signals.ts';
import { wordDiff } from './diff.ts';
import { kindLabel } from '../results/composition.ts';
import { lineageGraph } from './lineage.ts';
import { gather, lttb } from '../results/lttb.ts';
import type { FindingDetail, SpanDetail, SpanRow, SpanVersion, TurnDetail } from './protocol.ts';
import { metricsAt } from '../results/turnColumns.ts';
import { ACTIONS, bindingName, FLAG_PINNED, FLAG_TEXT_CHANGED, type TurnColumnStore } from '../results/store.ts';

const HISTORY_POINTS = 400;
const MAX_VERSIONS = 200;

const nullable = (v: number): number | null => (Number.isNaN(v) ? null : v);

/** The turn panel lists this many of a turn's largest spans. */
export const LARGEST_SPANS = 8;

export function findingDetail(store: TurnColumnStore, fi: number): FindingDetail {
  const signal = SIGNALS[store.findingSignal.get(fi)]!;
  const spans = store.findingSpans(fi);
  return {
    index: fi,
    turn: store.col.turn.get(store.findingTurn.get(fi)),
    signal,
    severity: SEVERITY[signal],
    message: store.findingMessage[fi]!,
    spanIds: spans.map((s) => store.spans[s]!.id),
    labels: store.labelsOf(spans),
  };
}

export function turnDetail(store: TurnColumnStore, turn: number, withGraph = true): TurnDetail | null {
  const t = store.indexOf(turn);
  if (t < 0) return null;
  const ids = (list: number[]): string[] => list.map((s) => store.spans[s]!.id);
  const lists = store.verdictLists(t);
  const [f0, f1] = store.findingsAt(t);
  const findings: FindingDetail[] = [];
  for (let fi = f0; fi < f1; fi++) findings.push(findingDetail(store, fi));
  const action = ACTIONS[store.col.action.get(t)]!;
  const spans = spanRows(store, t);
  const labels: Record<string, string> = { ...store.labelsOf(lists.recompute), ...store.labelsOf(lists.drop) };
  for (const f of findings) Object.assign(labels, f.labels);
  return {
    sessionId: store.sessionId,
    turn,
    index: t,
    prevTurn: t > 0 ? store.col.turn.get(t - 1) : null,
    nextTurn: t + 1 < store.turnCount ? store.col.turn.get(t + 1) : null,
    metrics: metricsAt(store.col, t),
    action,
    prune_safe: action === 'prune_ok',
    recompute: ids(lists.recompute),
    drop: ids(lists.drop),
    findings,
    spans,
    graph: withGraph ? lineageGraph(store, t) : null,
    composition: store.composition.at(t).map((k) => ({ ...k, label: kindLabel(k.kind) })),
    largest: spans === null ? null : [...spans].sort((a, b) => b.tokens - a.tokens).slice(0, LARGEST_SPANS),
    contextWindow: store.contextWindow,
    labels,
  };
}

function spanRows(store: TurnColumnStore, t: number): SpanRow[] | null {
  const r = store.rowsOf(t);
  if (r === null) return null;
  const out: SpanRow[] = [];
  for (let row = r.start; row < r.end; row++) {
    const d = store.rows.read(row);
    const info = store.spans[d.span]!;
    out.push({
      spanId: info.id,
      label: info.label,
      kind: info.compositionKind,
      score: nullable(d.score),
      binding: bindingName(d.binding),
      rewrites: d.rewrites,
      tokens: d.tokens,
      pinned: (d.flags & FLAG_PINNED) !== 0,
      textChanged: (d.flags & FLAG_TEXT_CHANGED) !== 0,
    });
  }
  return out;
}

/** The span's history over the held turns where it was live, and the rows its detail shows. */
interface SpanHistory {
  xs: number[];
  scores: number[];
  rewrites: number[];
  /** turns where the binding was not `bound`, as [from, to] pairs */
  bad: number[];
  versions: SpanVersion[];
  /** its row at turn index t (-1: not live there), at or before t, and before t */
  rowAtT: number;
  nearestRow: number;
  nearestT: number;
  prevLiveRow: number;
  prevLiveT: number;
}

function spanHistory(store: TurnColumnStore, idx: number, t: number): SpanHistory {
  const info = store.spans[idx]!;
  const heldFrom = store.spansHeldFromIndex;
  const h: SpanHistory = { xs: [], scores: [], rewrites: [], bad: [], versions: [], rowAtT: -1, nearestRow: -1, nearestT: -1, prevLiveRow: -1, prevLiveT: -1 };
  let hint = -1;
  let badStart = -1;
  let lastT = -1;
  const from = Math.max(info.firstSeen, heldFrom);
  for (let k = from; k <= info.lastSeen; k++) {
    const r = store.rowsOf(k);
    if (r === null) continue;
    const row = store.rowOf(k, idx, hint);
    if (row < 0) continue;
    hint = row - r.start;
    const d = store.rows.read(row);
    const x = store.col.turn.get(k);
    h.xs.push(x);
    h.scores.push(d.score);
    h.rewrites.push(d.rewrites);
    const isBad = d.binding !== Binding.Bound;
    if (isBad && badStart < 0) badStart = x;
    if (!isBad && badStart >= 0) {
      h.bad.push(badStart, store.col.turn.get(lastT));
      badStart = -1;
    }
    const v = h.versions[h.versions.length - 1];
    const version = info.texts[d.textVer]!;
    if (v !== undefined && v.fromTurn === store.col.turn.get(version.firstTurnIndex)) v.toTurn = x;
    else h.versions.push({ fromTurn: store.col.turn.get(version.firstTurnIndex), toTurn: x, sha256: version.digest ?? null });
    if (k === t) h.rowAtT = row;
    if (k <= t) {
      h.nearestRow = row;
      h.nearestT = k;
    }
    if (k < t) {
      h.prevLiveRow = row;
      h.prevLiveT = k;
    }
    lastT = k;
  }
  if (badStart >= 0 && lastT >= 0) h.bad.push(badStart, store.col.turn.get(lastT));
  if (h.nearestRow < 0 && h.xs.length > 0) {
    // the span first appears after this turn: show its first held turn
    h.nearestT = from;
    h.nearestRow = store.rowOf(h.nearestT, idx);
  }
  return h;
}

type ShownRow = Pick<
  SpanDetail,
  'text' | 'textEvicted' | 'claimedSha256' | 'computedSha256' | 'score' | 'binding' | 'rewrites' | 'tokens' | 'pinned' | 'derivedFrom' | 'diffAgainst' | 'diff'
>;

/** What the inspector shows of the span at one row; the diff against `prevRow` (its previous live turn) when given. */
function shownRow(store: TurnColumnStore, idx: number, row: number, prevRow: number, prevT: number, sha256: (text: string) => string): ShownRow {
  const out: ShownRow = {
    text: null,
    textEvicted: false,
    claimedSha256: null,
    computedSha256: null,
    score: null,
    binding: 'bound',
    rewrites: 0,
    tokens: 0,
    pinned: false,
    derivedFrom: [],
    diffAgainst: null,
    diff: null,
  };
  if (row < 0) return out;
  const info = store.spans[idx]!;
  const d = store.rows.read(row);
  const version = info.texts[d.textVer]!;
  const text = version.text;
  out.text = text;
  out.textEvicted = text === null;
  if (text !== null && version.digest === undefined) version.digest = sha256(text);
  out.computedSha256 = version.digest ?? null;
  out.claimedSha256 = d.claimVer >= 0 ? info.claims[d.claimVer]! : null;
  out.score = nullable(d.score);
  out.binding = bindingName(d.binding);
  out.rewrites = d.rewrites;
  out.tokens = d.tokens;
  out.pinned = (d.flags & FLAG_PINNED) !== 0;
  out.derivedFrom = d.parentsVer >= 0 ? [...info.parents[d.parentsVer]!] : [];
  if (prevRow >= 0) {
    const before = store.rows.read(prevRow);
    out.diffAgainst = store.col.turn.get(prevT);
    const old = info.texts[before.textVer]!.text;
    if (before.textVer !== d.textVer && old !== null && text !== null) out.diff = wordDiff(old, text);
  }
  return out;
}

/** The spans live at turn index `shownT`, and those of them derived from `spanId`. */
function lineageAt(store: TurnColumnStore, spanId: string, shownT: number): { liveAt: Set<string>; children: string[] } {
  const liveAt = new Set<string>();
  const children: string[] = [];
  const r = shownT >= 0 ? store.rowsOf(shownT) : null;
  if (r !== null) {
    for (let row = r.start; row < r.end; row++) {
      const d = store.rows.read(row);
      const other = store.spans[d.span]!;
      liveAt.add(other.id);
      if (d.parentsVer >= 0 && other.id !== spanId && other.parents[d.parentsVer]!.includes(spanId)) children.push(other.id);
    }
  }
  return { liveAt, children };
}

/** sha256 handed in: the Worker's hash-wasm hasher, or node:crypto in tests. */
export function spanDetail(store: TurnColumnStore, turn: number, spanId: string, sha256: (text: string) => string): SpanDetail | null {
  const idx = store.spanIndex.get(spanId);
  if (idx === undefined) return null;
  const info = store.spans[idx]!;
  if (info.firstSeen < 0) return null; // named (pruned, cited) but never live
  let t = store.indexOf(turn);
  if (t < 0) t = Math.max(0, Math.min(store.turnCount - 1, indexAtOrBefore(store.col.turn.view(), turn)));
  const heldFrom = store.spansHeldFromIndex;

  const h = spanHistory(store, idx, t);
  const live = h.rowAtT >= 0;
  const shownT = live ? t : h.nearestT;
  const hx = Float64Array.from(h.xs);
  const hs = Float64Array.from(h.scores);
  const keep = lttb(hx, hs, 0, hx.length, HISTORY_POINTS);
  const shown = shownRow(store, idx, live ? h.rowAtT : h.nearestRow, live ? h.prevLiveRow : -1, h.prevLiveT, sha256);
  const { liveAt, children } = lineageAt(store, spanId, shownT);
  const missingParents: string[] = [];
  const archivedParents: string[] = [];
  for (const p of shown.derivedFrom) {
    if (p === spanId || liveAt.has(p)) continue;
    // contract §8.2: a parent the session declared archived is gone from the live context, not missing
    (store.archivedBy(p, shownT >= 0 ? shownT : t) ? archivedParents : missingParents).push(p);
  }
  const prunedAt = info.prunedTurns.filter((k) => k <= (shownT >= 0 ? shownT : t)).pop();

  return {
    sessionId: store.sessionId,
    spanId,
    label: info.label,
    turn,
    live,
    shownTurn: shownT >= 0 ? store.col.turn.get(shownT) : turn,
    ...shown,
    role: info.role,
    missingParents,
    archivedParents,
    children,
    firstSeen: store.col.turn.get(info.firstSeen),
    lastSeen: store.col.turn.get(info.lastSeen),
    prunedAt: prunedAt === undefined ? null : store.col.turn.get(prunedAt),
    historyX: gather(hx, keep),
    historyScore: gather(hs, keep),
    historyRewrites: gather(Float64Array.from(h.rewrites), keep),
    badBinding: Float64Array.from(h.bad),
    textVersions: h.versions.slice(-MAX_VERSIONS),
    historyFrom: heldFrom > 0 ? store.col.turn.get(heldFrom) : null,
    labels: store.labelsOfIds([...shown.derivedFrom, ...children]),
  };
}
