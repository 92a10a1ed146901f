// `context-health report`'s analysis side (src/report/renderer.ts, ReportRenderer): keeps
// each session's columns as `check` reads the file (the results model's TurnColumnStore, src/results), then
// works out what the report says (src/report/reportData.ts) and the view its charts show
// (src/results/shape.ts). The drawing (draw.ts) runs apart, on a worker thread started at
// once: this side stays small, so the CLI's thread loads it quickly and gets to the file.
import { resolveThresholds, type Thresholds } from '../core/config.ts';
import type { Outcome } from '../core/engine.ts';
import { MAX_DETAILED_INCIDENTS } from '../report/markdown.ts';
import { lowerBound } from '../core/bisect.ts';
import { IncidentRuns } from '../core/incidents.ts';
import type { Signal } from '../core/signals.ts';
import type { OutcomeSink, ReportJob, ReportRenderer, SettledWatch } from '../report/renderer.ts';
import { nonDefaultThresholds, PRODUCT_VERSION } from '../report/stamp.ts';
import type { SeriesView } from '../results/series.ts';
import { incidentMargin, reportData } from '../report/reportData.ts';
import { shapeView } from '../results/shape.ts';
import { TurnColumnStore } from '../results/store.ts';
import { notApplicable, scopeOf } from '../core/scope.ts';
import type { DrawJob } from './draw.ts';
import { REPORT_CHART_WIDTH } from './width.ts';

/**
 * Which incident each finding of a session belongs to, numbered by core's rule
 * (src/core/incidents.ts) as the results store numbers them, worked out before the turn is
 * recorded, so the sink knows whether the report can quote its spans.
 */
class IncidentTracker {
  private readonly runs = new IncidentRuns();

  get count(): number {
    return this.runs.count;
  }

  /** the incident numbers (0-based) of turn index `t`'s findings that name spans */
  next(t: number, findings: readonly { signal: Signal; span_ids: readonly string[] }[]): number[] {
    const named: number[] = [];
    for (const f of findings) {
      const k = this.runs.add(f.signal, t).index;
      if (f.span_ids.length > 0) named.push(k);
    }
    return named;
  }
}

class Sessions implements OutcomeSink {
  readonly stores = new Map<string, TurnColumnStore>();
  readonly incidents = new Map<string, IncidentTracker>();
  /**
   * Whether the report can quote the spans of an incident (0-based), whatever session is
   * chosen: src/report/reportData.ts quotes spans only of the focused incident (--incident N) or,
   * for the whole session, of the first MAX_DETAILED_INCIDENTS; for --turns, of any incident.
   */
  private readonly quotable: (k: number) => boolean;

  /** told once when the charts' turns are final; undefined once told, or when nobody asked */
  private settled: SettledWatch | undefined;

  constructor(
    private readonly user: Partial<Thresholds>,
    private readonly scope: ReportJob['scope'] = { kind: 'turns', from: Number.NEGATIVE_INFINITY, to: Number.POSITIVE_INFINITY },
    settled?: SettledWatch,
  ) {
    this.settled = settled;
    this.quotable = scope.kind === 'incident' ? (k) => k === scope.number - 1 : scope.kind === 'session' ? (k) => k < MAX_DETAILED_INCIDENTS : () => true;
  }

  private store(sid: string, config?: Partial<Thresholds>): TurnColumnStore {
    let s = this.stores.get(sid);
    if (s === undefined) {
      s = new TurnColumnStore(sid, resolveThresholds(config, this.user));
      this.stores.set(sid, s);
      this.incidents.set(sid, new IncidentTracker());
    }
    return s;
  }

  take(outcome: Outcome): void {
    if (outcome.kind === 'header') {
      const s = this.store(outcome.sessionId, outcome.header.config as Partial<Thresholds> | undefined);
      s.title = outcome.header.title ?? null;
      // contract §8.1: the scope decides the report's words (§8.9), as in the Worker (worker/job.ts)
      s.notApplicable = { ...notApplicable(scopeOf(outcome.header)) };
      s.agent = typeof outcome.header.source === 'string' && outcome.header.source !== '' ? outcome.header.source : null;
    } else if (outcome.kind === 'turn') {
      const { result, snapshot } = outcome;
      const store = this.store(result.sessionId);
      // The charts read per-turn columns (metrics, canaries, verdicts); a report quotes spans
      // only at the turns where findings of the incidents it details name them
      // (src/report/reportData.ts). Keeping span rows just there, not for every span of every
      // turn, is most of what keeps report near check: less to record, and a much smaller
      // heap for the garbage collector to walk (docs/perf-log/notebook.md, "Reports").
      const named = this.incidents.get(result.sessionId)!.next(store.turnCount, result.findings);
      const quoted = named.some(this.quotable);
      store.record(result, quoted ? snapshot : { ...snapshot, spans: [] });
      if (this.settled !== undefined) this.watch(store, this.settled);
    }
  }

  /** Tells `settled` once the report's session has read past the last turn its charts show. */
  private watch(store: TurnColumnStore, settled: SettledWatch): void {
    // the session analyse() will take: the named one, or the first with a snapshot (this one,
    // if it is the first session the file named; if another came before it, wait for the end)
    const ours = settled.sessionId === null ? this.stores.values().next().value === store : store.sessionId === settled.sessionId;
    if (!ours || !chartsFinal(store, this.scope)) return;
    this.settled = undefined;
    settled.onSettled();
  }
}

/**
 * Whether the turns the charts show can no longer change: the window's last turn (the
 * incident's last turn and its margin, or --turns' end) is before the session's latest
 * snapshot, and, for an incident, the incident has ended (its signal did not fire on the
 * latest snapshot). Later snapshots only add turns after it; what else they change (a series
 * first seen later: agreement, canaries, rewrites) is caught by comparing the charts' input
 * with the final one (draw.ts).
 */
function chartsFinal(store: TurnColumnStore, scope: ReportJob['scope']): boolean {
  const n = store.turnCount;
  let to: number;
  if (scope.kind === 'incident') {
    const k = scope.number - 1;
    if (k >= store.incidentSignal.length) return false;
    const end = store.incidentEnd.get(k);
    if (end >= n - 1) return false;
    const firstTurn = store.col.turn.get(store.incidentStart.get(k));
    const lastTurn = store.col.turn.get(end);
    to = lastTurn + incidentMargin(firstTurn, lastTurn);
  } else if (scope.kind === 'turns') to = scope.to;
  else return false; // the whole session: its end is the file's
  return store.col.turn.get(n - 1) > to;
}

/**
 * The view as the charts read it: the window's series, and the session-wide columns (the
 * overview's: every turn, severity, the ribbon) cut to the window, which the charts do not
 * read. So a view made while the file is still being read, once the window's turns are final,
 * equals the one made at the end, and the charts drawn from it are the same bytes.
 */
function chartView(view: SeriesView): SeriesView {
  const i0 = lowerBound(view.turns, view.from);
  const i1 = i0 + view.windowTurns;
  return {
    ...view,
    firstTurn: view.from,
    lastTurn: view.to,
    turnCount: view.windowTurns,
    turns: view.turns.slice(i0, i1),
    severity: view.severity.slice(i0, i1),
    ribbon: new Uint8Array(0),
  };
}

function analyse(sink: OutcomeSink, job: ReportJob): ReturnType<ReportRenderer['analyse']> {
  const stores = (sink as Sessions).stores;
  const withTurns = [...stores.values()].filter((s) => s.turnCount > 0);
  const store = job.sessionId === null ? withTurns[0] : stores.get(job.sessionId);
  if (store === undefined || store.turnCount === 0) {
    const known = withTurns.map((s) => JSON.stringify(s.sessionId)).join(', ');
    throw new Error(
      job.sessionId === null
        ? 'the input holds no valid snapshot'
        : `no session ${JSON.stringify(job.sessionId)} with a snapshot in the input (sessions: ${known || 'none'})`,
    );
  }
  // the sink numbered incidents to choose the turns whose spans it kept: it must agree with the store
  if ((sink as Sessions).incidents.get(store.sessionId)!.count !== store.incidentSignal.length) {
    throw new Error(
      `internal error: the report's sink counted ${(sink as Sessions).incidents.get(store.sessionId)!.count} incidents, the session has ${store.incidentSignal.length}`,
    );
  }
  const data = reportData(store, {
    sessionId: store.sessionId,
    scope: job.scope,
    source: job.source,
    version: PRODUCT_VERSION,
    exportedAt: job.exportedAt,
    ...(job.compactionTurn === undefined ? {} : { compactionTurn: job.compactionTurn }),
  });
  const view = chartView(shapeView(store, { sessionId: store.sessionId, window: data.range, points: REPORT_CHART_WIDTH * 2, ribbon: 200 }));
  const selected = data.focus?.firstTurn ?? null;
  const draw: DrawJob = {
    kind: 'draw-input',
    view,
    data,
    selectedTurn: selected,
    stamp: {
      product: 'context-health',
      version: PRODUCT_VERSION,
      session_id: store.sessionId,
      title: store.title,
      turns: { from: view.from, to: view.to },
      selected_turn: selected,
      signals: view.signalsInWindow,
      thresholds: nonDefaultThresholds(store.thresholds),
      source: job.source,
      exported_at: job.exportedAt,
    },
    format: job.format,
    contractUrl: job.contractUrl,
    fontDir: job.fontDir,
  };
  return { data, draw };
}

export const renderer: ReportRenderer = {
  sink: (user, scope, settled) => new Sessions(user, scope, settled),
  analyse,
};
