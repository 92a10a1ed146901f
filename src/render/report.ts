// `context-health report`'s renderer (src/report/renderer.ts): keeps each session's
// columns as `check` reads the file (the Worker's TurnColumnStore), then writes the
// Markdown or HTML report and the stamped charts: the dashboard's own chart components
// drawn at a fixed size (charts.tsx), composed into figures (src/report/figure.ts),
// rasterised by resvg at 2× and stamped (iTXt).
import { resolveThresholds, type Thresholds } from '../core/config.ts';
import type { Outcome } from '../core/engine.ts';
import { figureSvg } from '../report/figure.ts';
import { reportHtml } from '../report/html.ts';
import { reportMarkdown, type ReportData, type ReportImage } from '../report/markdown.ts';
import { STAMP_KEYWORD, withITxt } from '../report/png.ts';
import type { OutcomeSink, ReportFile, ReportJob, ReportRenderer } from '../report/renderer.ts';
import { nonDefaultThresholds, PRODUCT_VERSION, stampJson, type Stamp } from '../report/stamp.ts';
import { reportData } from '../worker/report.ts';
import { shapeView } from '../worker/shape.ts';
import { TurnColumnStore } from '../worker/turnColumnStore.ts';
import { prepareCharts, renderCharts, REPORT_CHART_WIDTH } from './charts.tsx';
import { rasterise } from './rasterise.ts';

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

const encoder = new TextEncoder();

async function render(sink: OutcomeSink, job: ReportJob): Promise<{ files: ReportFile[]; data: ReportData }> {
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
  const charts = await renderCharts(view, selected);
  const files: ReportFile[] = [];
  const images: ReportImage[] = [];
  const figures: { title: string; svg: string }[] = [];
  const pngs: Promise<void>[] = [];
  for (const chart of charts) {
    const stamp: Stamp = {
      product: 'context-health',
      version: PRODUCT_VERSION,
      figure: chart.id,
      session_id: store.sessionId,
      title: store.title,
      turns: { from: view.from, to: view.to },
      selected_turn: selected,
      signals: view.signalsInWindow,
      thresholds: nonDefaultThresholds(store.thresholds),
      source: job.source,
      exported_at: job.exportedAt,
    };
    const fig = figureSvg({ ...chart.parts, stamp });
    figures.push({ title: chart.parts.title, svg: fig.svg });
    if (job.format === 'md') {
      const png: ReportFile = { name: `images/${chart.id}.png`, bytes: new Uint8Array(0) };
      files.push(png, { name: `images/${chart.id}.svg`, bytes: encoder.encode(fig.svg) });
      images.push({ file: png.name, svgFile: `images/${chart.id}.svg`, title: chart.parts.title });
      // the charts rasterise at once, on libuv's threads
      pngs.push(
        rasterise(fig.svg, job.fontDir, 2).then((bytes) => {
          png.bytes = withITxt(bytes, STAMP_KEYWORD, stampJson(stamp));
        }),
      );
    }
  }
  await Promise.all(pngs);
  if (job.format === 'md') files.unshift({ name: 'report.md', bytes: encoder.encode(reportMarkdown(data, images, job.contractUrl)) });
  else files.push({ name: 'report.html', bytes: encoder.encode(reportHtml(data, figures, job.contractUrl)) });
  return { files, data };
}

export const renderer: ReportRenderer = {
  prepare: async () => {
    await prepareCharts();
  },
  sink: (user) => new Sessions(user),
  render,
};
