// The data of an incident report (src/report/markdown.ts) from one session's columns: the
// Worker answers the dashboard's "Report this incident" with it, and `context-health
// report` builds its report with the same function, so both name the same incidents,
// spans and verdict runs.
import { lowerBound, upperBound } from '../core/bisect.ts';
import type { Thresholds } from '../core/config.ts';
import { SEVERITY, SIGNALS, type Action } from '../core/signals.ts';
import { compactionLine } from './compactionWords.ts';
import { MAX_COMPACTION_ROWS, MAX_DETAILED_INCIDENTS, type ReportData, type ReportIncident, type ReportSpan, type ReportVerdictRun } from './markdown.ts';
import type { StampSource } from './stamp.ts';
import { capCompaction, capText, TEXT_MAX, type ReportCompaction } from './quoteCap.ts';
import { ACTIONS, bindingName, FLAG_PINNED, type TurnColumnStore } from '../results/store.ts';
import { metricsAt } from '../results/turnColumns.ts';
import { contextHeadline } from './contextHeadline.ts';

/** At most this many spans are listed per incident. */
export const MAX_REPORT_SPANS = 12;

export type ReportScope = ReportData['scope'];

export interface ReportQuery {
  sessionId: string;
  scope: ReportScope;
  source: StampSource;
  version: string;
  exportedAt: string | null;
  /** "Report this compaction": the turn of the compaction (contract §8.3) the report is about */
  compactionTurn?: number;
}

/** Turns shown either side of an incident: as many as it lasted, at least 5. */
export function incidentMargin(firstTurn: number, lastTurn: number): number {
  return Math.max(5, lastTurn - firstTurn + 1);
}

export function incidentCount(store: TurnColumnStore): number {
  return store.incidentSignal.length;
}

function incident(store: TurnColumnStore, k: number, withSpans: boolean): ReportIncident {
  const signal = SIGNALS[store.incidentSignal.get(k)]!;
  const t0 = store.incidentStart.get(k);
  const fi0 = store.bySignal[store.incidentSignal.get(k)]!.get(store.incidentFirst.get(k));
  const count = store.incidentCount.get(k);
  const spans: ReportSpan[] = [];
  let moreSpans = 0;
  if (withSpans) {
    // every span any of the incident's findings named, each as it stood on the first such turn
    const seen = new Set<number>();
    const list = store.bySignal[store.incidentSignal.get(k)]!;
    const pos0 = store.incidentFirst.get(k);
    for (let p = pos0; p < pos0 + count; p++) {
      const fi = list.get(p);
      const t = store.findingTurn.get(fi);
      for (const idx of store.findingSpans(fi)) {
        if (seen.has(idx)) continue;
        seen.add(idx);
        if (spans.length >= MAX_REPORT_SPANS) {
          moreSpans++;
          continue;
        }
        spans.push(spanAt(store, idx, t));
      }
    }
  }
  return {
    number: k + 1,
    signal,
    severity: SEVERITY[signal],
    firstTurn: store.col.turn.get(t0),
    lastTurn: store.col.turn.get(store.incidentEnd.get(k)),
    findings: count,
    message: store.findingMessage[fi0]!,
    spans,
    moreSpans,
  };
}

function spanAt(store: TurnColumnStore, idx: number, t: number): ReportSpan {
  const info = store.spans[idx]!;
  const row = store.rowOf(t, idx);
  const base = { id: info.id, turn: store.col.turn.get(t) };
  if (row < 0) {
    // named but not live at that turn (an orphan's missing parent, a pruned id)
    return { ...base, text: null, score: null, binding: 'not live', rewrites: 0, pinned: false };
  }
  const d = store.rows.read(row);
  // quoteCap.ts: a span's text is carried up to TEXT_MAX characters (its cell shows 160)
  const text = capText(info.texts[d.textVer]?.text ?? '', TEXT_MAX);
  return {
    ...base,
    text: info.texts[d.textVer] === undefined ? null : text.text,
    ...(text.leftOut === 0 ? {} : { textLeftOut: text.leftOut }),
    score: Number.isNaN(d.score) ? null : d.score,
    binding: bindingName(d.binding),
    rewrites: d.rewrites,
    pinned: (d.flags & FLAG_PINNED) !== 0,
  };
}

/** Runs of consecutive turn indices in [i0, i1) sharing a verdict other than prune_ok, and runs of drops. */
function verdictRuns(store: TurnColumnStore, i0: number, i1: number): ReportVerdictRun[] {
  const runs: ReportVerdictRun[] = [];
  const ids = (list: number[]): string[] => list.map((s) => store.spans[s]!.id);
  let open: ReportVerdictRun | null = null;
  let openDrop: ReportVerdictRun | null = null;
  for (let t = i0; t < i1; t++) {
    const action: Action = ACTIONS[store.col.action.get(t)]!;
    const turn = store.col.turn.get(t);
    const lists = store.verdictLists(t);
    if (action === 'prune_ok') open = null;
    else if (open !== null && open.action === action) {
      open.lastTurn = turn;
      open.turns++;
    } else {
      open = { action, firstTurn: turn, lastTurn: turn, turns: 1, spans: action === 'recompute' ? ids(lists.recompute) : [] };
      runs.push(open);
    }
    if (lists.drop.length === 0) openDrop = null;
    else if (openDrop !== null) {
      openDrop.lastTurn = turn;
      openDrop.turns++;
    } else {
      openDrop = { action: 'drop', firstTurn: turn, lastTurn: turn, turns: 1, spans: ids(lists.drop) };
      runs.push(openDrop);
    }
  }
  return runs;
}

export function reportData(store: TurnColumnStore, query: ReportQuery, thresholds: Thresholds = store.thresholds): ReportData {
  const turns = store.col.turn.view();
  const n = turns.length;
  if (n === 0) throw new Error(`session ${JSON.stringify(store.sessionId)} has no snapshot to report on`);
  const first = turns[0]!;
  const last = turns[n - 1]!;
  const scope = query.scope;
  let focus: ReportIncident | null = null;
  let from = first;
  let to = last;
  if (scope.kind === 'incident') {
    const count = incidentCount(store);
    if (!Number.isInteger(scope.number) || scope.number < 1 || scope.number > count) {
      throw new Error(
        count === 0
          ? `session ${JSON.stringify(store.sessionId)} has no incident`
          : `incident ${scope.number} does not exist: session ${JSON.stringify(store.sessionId)} has incidents 1 to ${count}`,
      );
    }
    focus = incident(store, scope.number - 1, true);
    const margin = incidentMargin(focus.firstTurn, focus.lastTurn);
    from = Math.max(first, focus.firstTurn - margin);
    to = Math.min(last, focus.lastTurn + margin);
  } else if (scope.kind === 'turns') {
    if (!(scope.from <= scope.to)) throw new Error(`--turns ${scope.from}..${scope.to}: the first turn must not be after the last`);
    from = Math.max(first, scope.from);
    to = Math.min(last, scope.to);
    if (from > to)
      throw new Error(`turns ${scope.from}–${scope.to} hold no snapshot: session ${JSON.stringify(store.sessionId)} runs from turn ${first} to ${last}`);
  }
  const i0 = lowerBound(turns, from);
  const i1 = upperBound(turns, to);
  const incidents: ReportIncident[] = [];
  for (let k = 0; k < store.incidentSignal.length; k++) {
    if (focus !== null && k === focus.number - 1) continue;
    if (store.incidentEnd.get(k) < i0 || store.incidentStart.get(k) >= i1) continue;
    // spans only for the incidents the report details (markdown.ts MAX_DETAILED_INCIDENTS)
    incidents.push(incident(store, k, focus === null && incidents.length < MAX_DETAILED_INCIDENTS));
  }
  const compaction = query.compactionTurn === undefined ? undefined : compactionAt(store, query.compactionTurn);
  // contract §8.8: every span the report names, by label where it has one
  const named = new Set<string>();
  for (const inc of [...(focus === null ? [] : [focus]), ...incidents]) for (const sp of inc.spans) named.add(sp.id);
  const verdicts = verdictRuns(store, i0, i1);
  for (const v of verdicts) for (const id of v.spans.slice(0, 8)) named.add(id);
  for (const it of [...(compaction?.items ?? []), ...(compaction?.carried ?? [])]) if (it.span_id !== null) named.add(it.span_id);
  const labels = store.labelsOfIds(named);
  const context = contextAt(store, i1 - 1);
  const compactions = context === null || compaction !== undefined ? null : compactionsIn(store, from, to);
  return {
    ...(compaction === undefined ? {} : { compaction }),
    ...(context === null ? {} : { context }),
    ...(compactions === null ? {} : { compactions }),
    ...(Object.keys(labels).length === 0 ? {} : { labels }),
    sessionId: store.sessionId,
    title: store.title,
    source: query.source,
    version: query.version,
    scope,
    range: { from, to },
    session: { firstTurn: first, lastTurn: last, turns: n },
    turnsInRange: i1 - i0,
    focus,
    incidents,
    verdicts,
    thresholds: { ...thresholds },
    exportedAt: query.exportedAt,
  };
}

/**
 * contract §8.9: a session in the reference scope (§8.1) is headlined by what was measured
 * there, as it stood at the last turn of the report's range; null for any other session (its
 * report is unchanged).
 */
function contextAt(store: TurnColumnStore, index: number): ReportData['context'] | null {
  if (Object.keys(store.notApplicable).length === 0) return null;
  const m = metricsAt(store.col, index);
  const window = store.composition.window.get(index);
  const turn = store.col.turn.get(index);
  const h = contextHeadline({
    turn,
    tokensTotal: m.tokens_total,
    window: Number.isFinite(window) && window! > 0 ? window! : null,
    pressureThreshold: store.thresholds.pressure_threshold,
    orphanEdges: m.orphan_edges,
    compactions: store.compactions,
  });
  return { turn, text: h.text };
}

/** contract §8.3: the compactions that took effect in turns from–to, numbered among the session's (`report --compaction N`). */
function compactionsIn(store: TurnColumnStore, from: number, to: number): NonNullable<ReportData['compactions']> {
  const rows: NonNullable<ReportData['compactions']>['rows'] = [];
  let total = 0;
  store.compactions.forEach((r, k) => {
    if (r.turn < from || r.turn > to) return;
    total++;
    if (rows.length < MAX_COMPACTION_ROWS) rows.push({ number: k + 1, turn: r.turn, line: compactionLine(r) });
  });
  return { rows, total };
}

/**
 * The compaction that took effect at `turn` (the reply's structured clone is the report's own
 * copy), its texts capped (quoteCap.ts): a 50 MB summary is not copied whole to the drawing
 * thread, into report.html's data or into the dashboard's reply.
 */
function compactionAt(store: TurnColumnStore, turn: number): ReportCompaction {
  const r = store.compactions.find((c) => c.turn === turn);
  if (r === undefined) throw new Error(`no compaction took effect at turn ${turn} of session ${JSON.stringify(store.sessionId)}`);
  return capCompaction(r);
}
