// Save PNG / Save SVG / Copy image for one figure of the page: each export is stamped
// (exportStamp.ts, savePng.ts). Left out of the exported image itself (data-no-export).
import { useState } from 'react';
import { useAnalysis } from '../stores/analysis.ts';
import { currentStamp } from './exportStamp.ts';
import { copyPng, download, pngName, stampedPng, stampedSvg } from './savePng.ts';

interface Props {
  /** the stamp's figure name, also the file name's first part */
  figure: string;
  /** what to draw: one element, or several stacked */
  target: () => HTMLElement[];
  /** the chart figure whose SVG "Save SVG" writes; no SVG button without it */
  svgOf?: () => HTMLElement | null;
  label: string;
  disabled?: boolean;
  /** the PNG button's verb: a figure inside another figure says "Export", so "Save" names one button */
  verb?: string;
}

export function ExportButtons({ figure, target, svgOf, label, disabled = false, verb = 'Save' }: Props) {
  const [busy, setBusy] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  // The file name's session and turns are read when a button is pressed, not subscribed to:
  // a subscription re-rendered every chart's buttons on each view update of a followed live
  // session (once a second), for a name nobody reads until Save (docs/perf-log/notebook.md).
  const name = (ext: string): string => {
    const { sessionId, view } = useAnalysis.getState();
    return pngName([figure, sessionId, view ? `turns_${view.from}-${view.to}` : null], ext);
  };
  const run = async (what: string, job: () => Promise<void>): Promise<void> => {
    setBusy(what);
    setMessage(null);
    try {
      await job();
      if (what === 'copy') setMessage('Copied');
    } catch (e) {
      setMessage(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(null);
    }
  };
  const png = async (): Promise<Uint8Array> => stampedPng(target(), await currentStamp(figure));
  return (
    <span className="export-buttons" data-no-export>
      <button
        type="button"
        className="btn small ghost"
        disabled={disabled || busy !== null}
        onClick={() => void run('png', async () => download(await png(), name('png'), 'image/png'))}
        aria-label={`${verb} “${label}” as PNG`}
      >
        {busy === 'png' ? 'Saving…' : `${verb} PNG`}
      </button>
      {svgOf !== undefined && (
        <button
          type="button"
          className="btn small ghost"
          disabled={disabled || busy !== null}
          onClick={() =>
            void run('svg', async () => {
              const el = svgOf();
              if (el === null) throw new Error('nothing drawn to export');
              download(stampedSvg(el, await currentStamp(figure)), name('svg'), 'image/svg+xml');
            })
          }
          aria-label={`Download “${label}” as SVG`}
        >
          SVG
        </button>
      )}
      <button
        type="button"
        className="btn small ghost"
        disabled={disabled || busy !== null}
        onClick={() => void run('copy', () => copyPng(png))}
        aria-label={`Copy “${label}” as an image`}
      >
        {busy === 'copy' ? 'Copying…' : 'Copy image'}
      </button>
      {message !== null && (
        <span className="export-note" role="status">
          {message}
        </span>
      )}
    </span>
  );
}
