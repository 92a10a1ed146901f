// The drawing side of `context-health report` (src/report/renderer.ts, ReportDrawer): the
// dashboard's chart components drawn at a fixed size (charts.tsx), composed into stamped
// figures (src/report/figure.ts), rasterised by resvg at 2× and stamped (iTXt), then the
// Markdown or HTML report around them. A function of its input alone, so it runs the same
// on the worker thread `report` starts at once (drawWorker.ts) or in the CLI's own thread.
import type { ReportData, ReportImage } from '../report/markdown.ts';
import { figureSvg } from '../report/figure.ts';
import { reportHtml } from '../report/html.ts';
import { reportMarkdown } from '../report/markdown.ts';
import { STAMP_KEYWORD, withITxt } from '../report/png.ts';
import type { DrawInput, ReportFile, ReportJob } from '../report/renderer.ts';
import { stampJson, type Stamp } from '../report/stamp.ts';
import type { SeriesView } from '../worker/protocol.ts';
import { prepareCharts, renderCharts } from './charts.tsx';
import { phase } from '../node/phases.ts';
import { rasterise } from './rasterise.ts';

/** DrawInput's shape (made by report.ts's analyse) */
export interface DrawJob extends DrawInput {
  view: SeriesView;
  data: ReportData;
  selectedTurn: number | null;
  /** every figure's stamp but its `figure` */
  stamp: Omit<Stamp, 'figure'>;
  format: ReportJob['format'];
  contractUrl: string;
  fontDir: string;
}

/**
 * Loads React, Recharts, happy-dom and the chart modules (once). No warm-up drawing after it:
 * it cost the drawing thread about 0.2 s of CPU while the CLI's thread reads the file, and the
 * charts drawn after it took as long (docs/performance.md, "Reports").
 */
export const prepare = async (): Promise<void> => {
  await prepareCharts();
  phase('modules loaded (happy-dom, React, Recharts, charts)');
};

const encoder = new TextEncoder();

export async function draw(input: DrawInput): Promise<ReportFile[]> {
  const job = input as DrawJob;
  const files: ReportFile[] = [];
  const images: ReportImage[] = [];
  const figures: { title: string; svg: string }[] = [];
  const pngs: Promise<void>[] = [];
  // each chart is composed and sent to rasterise as soon as it is drawn: resvg works on
  // libuv's threads while this thread draws the next chart
  const drawn = renderCharts(job.view, job.selectedTurn, (chart) => {
    phase(`chart ${chart.id} drawn`);
    const stamp: Stamp = { ...job.stamp, figure: chart.id };
    const fig = figureSvg({ ...chart.parts, stamp });
    figures.push({ title: chart.parts.title, svg: fig.svg });
    if (job.format === 'md') {
      const png: ReportFile = { name: `images/${chart.id}.png`, bytes: new Uint8Array(0) };
      files.push(png, { name: `images/${chart.id}.svg`, bytes: encoder.encode(fig.svg) });
      images.push({ file: png.name, svgFile: `images/${chart.id}.svg`, title: chart.parts.title });
      pngs.push(
        rasterise(fig.svg, job.fontDir, 2).then((bytes) => {
          png.bytes = withITxt(bytes, STAMP_KEYWORD, stampJson(stamp));
          phase(`chart ${chart.id} rasterised`);
        }),
      );
    }
  });
  // a chart that fails to draw fails the report, once the images already started are done
  await drawn.catch(async (e: unknown) => {
    await Promise.allSettled(pngs);
    throw e;
  });
  await Promise.all(pngs);
  if (job.format === 'md') files.unshift({ name: 'report.md', bytes: encoder.encode(reportMarkdown(job.data, images, job.contractUrl)) });
  else files.push({ name: 'report.html', bytes: encoder.encode(reportHtml(job.data, figures, job.contractUrl)) });
  phase('report composed');
  return files;
}
