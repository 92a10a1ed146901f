// `context-health report`'s analysis side (src/report/renderer.ts, ReportRenderer): keeps
// each session's columns as `check` reads the file (the Worker's TurnColumnStore), then
// works out what the report says (src/worker/report.ts) and the view its charts show
// (src/worker/shape.ts). The drawing (draw.ts) runs apart, on a worker thread started at
// once: this side stays small, so the CLI's thread loads it quickly and gets to the file.
import { resolveThresholds, type Thresholds } from '../core/config.ts';
import type { Outcome } from '../core/engine.ts';
import type { OutcomeSink, ReportJob, ReportRenderer } from '../report/renderer.ts';
import { nonDefaultThresholds, PRODUCT_VERSION } from '../report/stamp.ts';
import { reportData } from '../worker/report.ts';
import { shapeView } from '../worker/shape.ts';
import { TurnColumnStore } from '../worker/turnColumnStore.ts';
import type { DrawJob } from './draw.ts';
import { REPORT_CHART_WIDTH } from './width.ts';

class Sessions implements OutcomeSink {
  readonly stores = new Map<string, TurnColumnStore>();
  constructor(private readonly user: Partial<Thresholds>) {}

  private store(sid: string, config?: Partial<Thresholds>): TurnColumnStore {
    let s = this.stores.get(sid);
    if (s === undefined) {
      s = new TurnColumnStore(sid, resolveThresholds(config, this.user));
      this.stores.set(sid, s);
    }
    return s;
  }

  take(outcome: Outcome): void {
    if (outcome.kind === 'header') {
      const s = this.store(outcome.sessionId, outcome.header.config as Partial<Thresholds> | undefined);
      s.title = outcome.header.title ?? null;
    } else if (outcome.kind === 'turn') {
      const { result, snapshot } = outcome;
      // The charts read per-turn columns (metrics, canaries, verdicts); a report quotes spans
      // only at the turns whose findings name them (src/worker/report.ts). Keeping span rows
      // just there, not for every span of every turn, is most of what keeps report near check.
      const quoted = result.findings.some((f) => f.span_ids.length > 0);
      this.store(result.sessionId).record(result, quoted ? snapshot : { ...snapshot, spans: [] });
    }
  }
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
  const data = reportData(store, { sessionId: store.sessionId, scope: job.scope, source: job.source, version: PRODUCT_VERSION, exportedAt: job.exportedAt });
  const view = shapeView(store, { sessionId: store.sessionId, window: data.range, points: REPORT_CHART_WIDTH * 2, ribbon: 200 });
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
  sink: (user) => new Sessions(user),
  analyse,
};
