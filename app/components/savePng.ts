// Exports pasted into incident reports: a figure of the page (title, axes, legend) on white
// at twice its CSS size whatever the screen, with the caption strip of its stamp below
// (src/report/figure.ts) and the stamp's JSON in an iTXt chunk (src/report/png.ts). Saved
// as a file or copied to the clipboard. Controls marked data-no-export stay out.
import { toCanvas } from 'html-to-image';
import { captionStrip, figureSvg, FIGURE_FONT } from '../../src/report/figure.ts';
import { STAMP_KEYWORD, withITxt } from '../../src/report/png.ts';
import { stampJson, type Stamp } from '../../src/report/stamp.ts';
import { chartParts } from '../../src/charts/exportFigure.ts';
import { prepareForExport } from './exportPrepare.ts';

/** Device pixels per CSS pixel of every exported PNG. */
export const EXPORT_SCALE = 2;

/** Controls stay out of an export: ours (data-no-export) and React Flow's zoom buttons. */
const noExport = (node: Node): boolean =>
  !(node instanceof Element && (node.hasAttribute('data-no-export') || node.classList.contains('react-flow__controls')));

function loadSvgImage(svg: string): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error('the caption strip could not be drawn'));
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  });
}

function canvasBytes(canvas: HTMLCanvasElement): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    canvas.toBlob(
      (blob) => (blob === null ? reject(new Error('the image could not be encoded')) : void blob.arrayBuffer().then((b) => resolve(new Uint8Array(b)), reject)),
      'image/png',
    );
  });
}

/** The elements stacked top to bottom, drawn at 2×, the stamp's caption strip under them; PNG bytes with the iTXt stamp. */
export async function stampedPng(elements: readonly HTMLElement[], stamp: Stamp, caption: 'stamp' | 'line' = 'stamp'): Promise<Uint8Array> {
  await prepareForExport(elements);
  const shots: HTMLCanvasElement[] = [];
  for (const el of elements) shots.push(await toCanvas(el, { backgroundColor: '#ffffff', pixelRatio: EXPORT_SCALE, filter: noExport }));
  const width = shots.reduce((m, c) => Math.max(m, c.width), -Infinity);
  const cssWidth = Math.round(width / EXPORT_SCALE);
  const strip = captionStrip(stamp, cssWidth, 0, caption);
  const stripSvg = `<svg xmlns="http://www.w3.org/2000/svg" width="${cssWidth * EXPORT_SCALE}" height="${strip.height * EXPORT_SCALE}" viewBox="0 0 ${cssWidth} ${strip.height}" font-family="${FIGURE_FONT.replace(/"/g, "'")}">${strip.svg}</svg>`;
  const stripImg = await loadSvgImage(stripSvg);
  const out = document.createElement('canvas');
  out.width = width;
  out.height = shots.reduce((n, c) => n + c.height, 0) + strip.height * EXPORT_SCALE;
  const ctx = out.getContext('2d');
  if (ctx === null) throw new Error('no 2D canvas to draw the image on');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, out.width, out.height);
  let y = 0;
  for (const c of shots) {
    ctx.drawImage(c, 0, y);
    y += c.height;
  }
  ctx.drawImage(stripImg, 0, y, cssWidth * EXPORT_SCALE, strip.height * EXPORT_SCALE);
  return withITxt(await canvasBytes(out), STAMP_KEYWORD, stampJson(stamp));
}

/** A chart figure (ChartFrame) as a standalone stamped SVG document. */
export function stampedSvg(figure: HTMLElement, stamp: Stamp): string {
  const parts = chartParts(figure);
  if (parts === null) throw new Error('the chart has nothing drawn to export');
  return figureSvg({ ...parts, stamp }).svg;
}

export function download(bytes: Uint8Array | string, fileName: string, type: string): void {
  const blob = new Blob([bytes as BlobPart], { type });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Copies a PNG made by `make` to the clipboard. The ClipboardItem takes the promise, so the
 * click's user activation still holds when the image is ready.
 */
export async function copyPng(make: () => Promise<Uint8Array>): Promise<void> {
  if (typeof ClipboardItem === 'undefined' || navigator.clipboard?.write === undefined) throw new Error('this browser cannot put images on the clipboard');
  const blob = make().then((bytes) => new Blob([bytes as BlobPart], { type: 'image/png' }));
  await navigator.clipboard.write([new ClipboardItem({ 'image/png': blob })]);
}

export function pngName(parts: (string | number | null | undefined)[], ext = 'png'): string {
  return (
    parts
      .filter((p) => p !== null && p !== undefined && p !== '')
      .join('-')
      .replace(/[^\w.-]+/g, '_')
      .slice(0, 120) + `.${ext}`
  );
}
