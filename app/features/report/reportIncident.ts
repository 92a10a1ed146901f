// "Report this incident" (issue "Incident reports", item 3) and "Report this compaction"
// (contract §8.3): the Worker gathers the report's
// data (src/report/reportData.ts), the charts zoom to the incident ± a margin and are exported
// stamped, and the Markdown (src/report/markdown.ts, the same as `context-health report`'s)
// goes with the images into a .zip; the Markdown can also be copied for an issue tracker.
import { strToU8, zipSync, type Zippable } from 'fflate';
import { reportMarkdown, STABLE_CONTRACT_URL, type ReportData, type ReportImage } from '../../../src/report/markdown.ts';
import { captionLines, PRODUCT_VERSION } from '../../../src/report/stamp.ts';
import type { ReportQuery } from '../../../src/worker/client.ts';
import { sourceClient } from '../../analysis.ts';
import { currentStamp, currentStampSource } from '../../components/exportStamp.ts';
import { download, pngName, stampedPng } from '../../components/savePng.ts';
import { useAnalysis } from '../../stores/analysis.ts';
import { setUi } from '../../stores/ui.ts';
import { useReport } from './reportStore.ts';

const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until every chart draws turns from–to (the view arrives, then each chart takes it in its own task). */
async function chartsShowing(from: number, to: number): Promise<HTMLElement[]> {
  for (let i = 0; i < 200; i++) {
    const v = useAnalysis.getState().view;
    const figures = Array.from(document.querySelectorAll<HTMLElement>('[data-testid="charts"] figure.chart-frame'));
    if (v !== null && v.from === from && v.to === to && figures.length > 0 && figures.every((f) => f.dataset.state !== 'loading')) {
      // each chart takes a new view up to 4 × 40 ms after it arrives (common.tsx), then draws in a frame
      await pause(250);
      await frame();
      await frame();
      return figures.filter((f) => f.dataset.state === 'ready');
    }
    await pause(50);
  }
  throw new Error('the charts did not zoom to the incident');
}

export async function reportIncident(incident: number): Promise<void> {
  await buildReport(`Incident ${incident}`, { scope: { kind: 'incident', number: incident } }, (data, sessionId) =>
    pngName([`incident-${incident}`, data.focus?.signal, sessionId], 'zip'),
  );
}

/** Turns shown either side of a compaction in its report: enough to see the tokens fall and the first refetches. */
const COMPACTION_MARGIN = 5;

/** "Report this compaction" (contract §8.3): the same report, about the turns around it, with its summary and items. */
export async function reportCompaction(turn: number): Promise<void> {
  const view = useAnalysis.getState().view;
  const first = view?.firstTurn ?? turn;
  const last = view?.lastTurn ?? turn;
  await buildReport(
    `Compaction at turn ${turn}`,
    { scope: { kind: 'turns', from: Math.max(first, turn - COMPACTION_MARGIN), to: Math.min(last, turn + COMPACTION_MARGIN) }, compactionTurn: turn },
    (_data, sessionId) => pngName([`compaction-turn-${turn}`, sessionId], 'zip'),
  );
}

async function buildReport(
  subject: string,
  about: Pick<ReportQuery, 'scope' | 'compactionTurn'>,
  zipName: (data: ReportData, sessionId: string) => string,
): Promise<void> {
  const sessionId = useAnalysis.getState().sessionId;
  if (sessionId === null) return;
  useReport.setState({ open: true, state: 'building', subject, markdown: null, zip: null, fileName: null, error: null });
  try {
    const data: ReportData = await sourceClient().query('report', {
      sessionId,
      ...about,
      source: await currentStampSource(),
      version: PRODUCT_VERSION,
      exportedAt: new Date().toISOString(),
    });
    setUi({ zoom: data.range, selectedTurn: data.compaction?.turn ?? data.focus?.firstTurn ?? null, follow: false });
    const figures = await chartsShowing(data.range.from, data.range.to);
    const files: Zippable = {};
    const images: ReportImage[] = [];
    // the Markdown says the stamp the images share once; each image keeps a one-line caption
    let stampLines: string[] = [];
    for (const fig of figures) {
      const id = (fig.dataset.testid ?? 'chart').replace('chart-', '');
      const title = fig.querySelector('.chart-head h3')?.textContent ?? id;
      const stamp = await currentStamp(id, data.range);
      if (stampLines.length === 0) stampLines = captionLines(stamp);
      const png = await stampedPng([fig], stamp, 'line');
      files[`images/${id}.png`] = [png, { level: 0 }];
      images.push({ id, file: `images/${id}.png`, title });
    }
    // the report travels (an issue tracker, a zip sent on): its rule links point at the published contract
    const markdown = reportMarkdown(data, images, STABLE_CONTRACT_URL, stampLines);
    files['report.md'] = strToU8(markdown);
    const zip = zipSync(files, { mtime: data.exportedAt ?? '1980-01-01' });
    const fileName = zipName(data, sessionId);
    useReport.setState({ state: 'ready', markdown, zip, fileName });
    download(zip, fileName, 'application/zip');
  } catch (e) {
    useReport.setState({ state: 'failed', error: e instanceof Error ? e.message : String(e) });
  }
}

/** The incident (1-based) of `signal` covering `turn` in the findings index on screen, or null. */
export function incidentAt(signalIndex: number, turn: number): number | null {
  const ix = useAnalysis.getState().findings;
  if (ix === null) return null;
  for (let k = 0; k < ix.incidentSignal.length; k++) {
    if (ix.incidentSignal[k] === signalIndex && ix.incidentStart[k]! <= turn && turn <= ix.incidentEnd[k]!) return k + 1;
  }
  return null;
}
