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

/** sha256 handed in: the Worker's hash-wasm hasher, or node:crypto in tests. */
export function spanDetail(store: TurnColumnStore, turn: number, spanId: string, sha256: (text: string) => string): SpanDetail | null {
  const idx = store.spanIndex.get(spanId);
  if (idx === undefined) return null;
  const info = store.spans[idx]!;
  if (info.firstSeen < 0) return null; // named (pruned, cited) but never live
  let t = store.indexOf(turn);
  if (t < 0) t = Math.max(0, Math.min(store.turnCount - 1, indexAtOrBefore(store.col.turn.view(), turn)));
  const heldFrom = store.spansHeldFromIndex;

  // history over the held turns where the span was live
  const xs: number[] = [];
  const scores: number[] = [];
  const rewrites: number[] = [];
  const bad: number[] = [];
  const versions: SpanVersion[] = [];
  let hint = -1;
  let rowAtT = -1;
  let nearestRow = -1;
  let nearestT = -1;
  let prevLiveRow = -1;
  let prevLiveT = -1;
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
    xs.push(x);
    scores.push(d.score);
    rewrites.push(d.rewrites);
    const isBad = d.binding !== Binding.Bound;
    if (isBad && badStart < 0) badStart = x;
    if (!isBad && badStart >= 0) {
      bad.push(badStart, store.col.turn.get(lastT));
      badStart = -1;
    }
    const v = versions[versions.length - 1];
    const version = info.texts[d.textVer];
    if (v !== undefined && v.fromTurn === store.col.turn.get(info.texts[d.textVer]!.firstTurnIndex)) v.toTurn = x;
    else versions.push({ fromTurn: store.col.turn.get(version!.firstTurnIndex), toTurn: x, sha256: version!.digest ?? null });
    if (k === t) rowAtT = row;
    if (k <= t) {
      nearestRow = row;
      nearestT = k;
    }
    if (k < t) {
      prevLiveRow = row;
      prevLiveT = k;
    }
    lastT = k;
  }
  if (badStart >= 0 && lastT >= 0) bad.push(badStart, store.col.turn.get(lastT));
  if (nearestRow < 0 && xs.length > 0) {
    // the span first appears after this turn: show its first held turn
    nearestT = Math.max(info.firstSeen, heldFrom);
    nearestRow = store.rowOf(nearestT, idx);
  }

  const live = rowAtT >= 0;
  const shownRow = live ? rowAtT : nearestRow;
  const shownT = live ? t : nearestT;
  const hx = Float64Array.from(xs);
  const hs = Float64Array.from(scores);
  const keep = lttb(hx, hs, 0, hx.length, HISTORY_POINTS);

  let text: string | null = null;
  let textEvicted = false;
  let claimed: string | null = null;
  let computed: string | null = null;
  let score: number | null = null;
  let binding: SpanDetail['binding'] = 'bound';
  let rw = 0;
  let tokens = 0;
  let pinned = false;
  let derivedFrom: string[] = [];
  let diffAgainst: number | null = null;
  let diff: SpanDetail['diff'] = null;
  if (shownRow >= 0) {
    const d = store.rows.read(shownRow);
    const version = info.texts[d.textVer]!;
    text = version.text;
    textEvicted = text === null;
    if (text !== null && version.digest === undefined) version.digest = sha256(text);
    computed = version.digest ?? null;
    claimed = d.claimVer >= 0 ? info.claims[d.claimVer]! : null;
    score = nullable(d.score);
    binding = bindingName(d.binding);
    rw = d.rewrites;
    tokens = d.tokens;
    pinned = (d.flags & FLAG_PINNED) !== 0;
    derivedFrom = d.parentsVer >= 0 ? [...info.parents[d.parentsVer]!] : [];
    if (live && prevLiveRow >= 0) {
      const before = store.rows.read(prevLiveRow);
      diffAgainst = store.col.turn.get(prevLiveT);
      const old = info.texts[before.textVer]!.text;
      if (before.textVer !== d.textVer && old !== null && text !== null) diff = wordDiff(old, text);
    }
  }

  // lineage at the shown turn
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
  const missingParents = derivedFrom.filter((p) => p !== spanId && !liveAt.has(p));
  const prunedAt = info.prunedTurns.filter((k) => k <= (shownT >= 0 ? shownT : t)).pop();

  return {
    sessionId: store.sessionId,
    spanId,
    label: info.label,
    turn,
    live,
    shownTurn: shownT >= 0 ? store.col.turn.get(shownT) : turn,
    text,
    textEvicted,
    score,
    binding,
    claimedSha256: claimed,
    computedSha256: computed,
    rewrites: rw,
    tokens,
    pinned,
    role: info.role,
    derivedFrom,
    missingParents,
    children,
    firstSeen: store.col.turn.get(info.firstSeen),
    lastSeen: store.col.turn.get(info.lastSeen),
    prunedAt: prunedAt === undefined ? null : store.col.turn.get(prunedAt),
    historyX: gather(hx, keep),
    historyScore: gather(hs, keep),
    historyRewrites: gather(Float64Array.from(rewrites), keep),
    badBinding: Float64Array.from(bad),
    textVersions: versions.slice(-MAX_VERSIONS),
    diffAgainst,
    diff,
    historyFrom: heldFrom > 0 ? store.col.turn.get(heldFrom) : null,
    labels: store.labelsOfIds([...derivedFrom, ...children]),
  };
}
