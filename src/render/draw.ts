// The drawing side of `context-health report` (src/report/renderer.ts, ReportDrawer): the
// dashboard's chart components drawn at a fixed size (charts.tsx), composed into stamped
// figures (src/report/figure.ts), rasterised by resvg at 2× and stamped (iTXt), then the
// Markdown or HTML report around them. A function of its input alone, so it runs the same
// on the worker thread `report` starts at once (drawWorker.ts) or in the CLI's own thread.
import type { ReportData, ReportImage } from '../report/markdown.ts';
import { figureSvg } from '../report/figure.ts';
import { reportHtmlPieces } from '../report/html.ts';
import { reportMarkdownPieces } from '../report/markdown.ts';
import { STAMP_KEYWORD, withITxt } from '../report/png.ts';
import type { DrawInput, ReportFile, ReportJob } from '../report/renderer.ts';
import { captionLines, stampJson, type Stamp } from '../report/stamp.ts';
import type { SeriesView } from '../results/series.ts';
import { prepareCharts, renderCharts } from './charts.tsx';
import { phase } from '../node/phases.ts';
import { rasterise } from './rasterise.ts';
import { sameCharts } from './sameValue.ts';

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
 * charts drawn after it took as long (docs/perf-log/notebook.md, "Reports").
 */
export const prepare = async (): Promise<void> => {
  await prepareCharts();
  phase('modules loaded (happy-dom, React, Recharts, charts)');
};

const encoder = new TextEncoder();

/**
 * The report's text as UTF-8, piece by piece (issue 39, "Output streams"): never one string
 * nor one buffer; written to the file in the same pieces (src/cli/reportFiles.ts). A piece
 * ends between two lines or parts, never inside a surrogate pair.
 */
const encoded = (pieces: Iterable<string>): Uint8Array[] => Array.from(pieces, (p) => encoder.encode(p));

/** What a drawing started before the end of the file can still tell about the input it ends with. */
export interface Drawing {
  /** the report's files for `final`, or null when `final`'s charts are not the ones this drawing drew */
  finish(final: DrawInput): Promise<ReportFile[] | null>;
}

/** One chart composed into its stamped figure, its PNG on the way (Markdown only). */
interface Figure {
  id: string;
  title: string;
  svg: string;
  png: Promise<Uint8Array> | null;
}

const settle = <T>(p: Promise<T>): Promise<T> => {
  p.catch(() => {}); // surfaced in finish(); not an unhandled rejection on this thread meanwhile
  return p;
};

/**
 * Rasterising, one image at a time or all at once. While the CLI's thread still reads the
 * file (an early drawing), its images wait until every chart is drawn and then go one at a
 * time: this thread and one of libuv's, not five threads on the 2 cores where the CLI's
 * thread reads. Once the file is read (finish), the rest go all at once.
 */
class RasterQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private limit: number) {}

  run<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<void>((go) => {
      this.waiting.push(go);
      this.next();
    }).then(() =>
      task().finally(() => {
        this.running--;
        this.next();
      }),
    );
  }

  /** lets `limit` images rasterise at once from now on */
  allow(limit: number): void {
    this.limit = Math.max(this.limit, limit);
    this.next();
  }

  private next(): void {
    while (this.running < this.limit && this.waiting.length > 0) {
      this.running++;
      this.waiting.shift()!();
    }
  }
}

/**
 * Starts drawing `input`'s charts: each is composed into its figure as soon as it is drawn
 * and the stamp is known, and sent to rasterise (resvg, on libuv's threads: at the end of the
 * file, while this thread draws the next; early, see RasterQueue). An early input's stamp
 * whose source is a file with no sha256 yet gets `sha256`'s, the hash this thread makes of
 * that file.
 */
export function startDrawing(input: DrawInput, early?: { sha256: Promise<string> | undefined }): Drawing {
  const job = input as DrawJob;
  const source = job.stamp.source;
  const sha256 = early?.sha256;
  const stamped = settle(
    source.kind === 'file' && source.sha256 === null && sha256 !== undefined
      ? sha256.then((sha) => ({ ...job.stamp, source: { ...source, sha256: sha } }))
      : Promise.resolve(job.stamp),
  );
  const queue = new RasterQueue(early === undefined ? Number.POSITIVE_INFINITY : 0);
  const figures: Promise<Figure>[] = [];
  const drawn = settle(
    renderCharts(job.view, job.selectedTurn, (chart) => {
      phase(`chart ${chart.id} drawn`);
      const figure = stamped.then((base): Figure => {
        const stamp: Stamp = { ...base, figure: chart.id };
        // Markdown says the shared stamp once, above its charts; each image keeps a one-line caption
        const fig = figureSvg({ ...chart.parts, stamp, caption: job.format === 'md' ? 'line' : 'stamp' });
        const png =
          job.format === 'md'
            ? settle(
                queue
                  .run(() => rasterise(fig.svg, job.fontDir, 2))
                  .then((bytes) => {
                    phase(`chart ${chart.id} rasterised`);
                    return withITxt(bytes, STAMP_KEYWORD, stampJson(stamp));
                  }),
              )
            : null;
        return { id: chart.id, title: chart.parts.title, svg: fig.svg, png };
      });
      figures.push(settle(figure));
    }),
  );
  void drawn.then(
    () => queue.allow(1),
    () => queue.allow(Number.POSITIVE_INFINITY),
  );
  return {
    finish: async (finalInput) => {
      const final = finalInput as DrawJob;
      const base = await stamped;
      if (!sameCharts({ ...job, stamp: base }, final)) return null;
      queue.allow(Number.POSITIVE_INFINITY);
      // a chart that fails to draw fails the report, once the images already started are done
      await drawn.catch(async (e: unknown) => {
        await Promise.allSettled(figures.map((f) => f.then((x) => x.png)));
        throw e;
      });
      const done = await Promise.all(figures);
      const pngs = await Promise.all(done.map((f) => f.png));
      const files: ReportFile[] = [];
      if (final.format === 'md') {
        const images: ReportImage[] = done.map((f) => ({ id: f.id, file: `images/${f.id}.png`, svgFile: `images/${f.id}.svg`, title: f.title }));
        files.push({ name: 'report.md', bytes: encoded(reportMarkdownPieces(final.data, images, final.contractUrl, captionLines(base))) });
        done.forEach((f, i) => files.push({ name: `images/${f.id}.png`, bytes: pngs[i]! }, { name: `images/${f.id}.svg`, bytes: encoder.encode(f.svg) }));
      } else
        files.push({
          name: 'report.html',
          bytes: encoded(
            reportHtmlPieces(
              final.data,
              done.map((f) => ({ id: f.id, title: f.title, svg: f.svg })),
              final.contractUrl,
            ),
          ),
        });
      phase('report composed');
      return files;
    },
  };
}

/** The report's files, drawn from `input` alone. */
export async function draw(input: DrawInput): Promise<ReportFile[]> {
  const files = await startDrawing(input).finish(input);
  if (files === null) throw new Error('internal error: a report input differs from itself');
  return files;
}
