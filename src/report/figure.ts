// One exported figure as an SVG document: title, subtitle, the chart's own SVG, its legend
// and the caption strip of its stamp (stamp.ts), on white (the light theme whatever the
// screen). The dashboard's "Save SVG" and `context-health report` build figures with this
// same code, so a chart looks the same from either. Text comes from input (titles, ids):
// it is escaped, never markup.
import { captionLine, captionLines, printable, type Stamp } from './stamp.ts';

export interface LegendItem {
  label: string;
  color: string;
  kind: 'line' | 'dash' | 'area' | 'dot' | 'shade';
}

export interface FigureParts {
  /** the chart's SVG element (markup); its own width and height are given beside it */
  chartSvg: string;
  chartWidth: number;
  chartHeight: number;
  title: string;
  subtitle: string;
  legend: readonly LegendItem[];
  stamp: Stamp;
  /** the whole caption strip (default), or one line where the report gives the stamp once (markdown.ts) */
  caption?: 'stamp' | 'line';
}

/** Fonts named in the SVG: the screen's UI font in a browser, DejaVu Sans (shipped in assets/fonts) for the CLI's rasteriser. */
export const FIGURE_FONT = "system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', Arial, sans-serif";

export const INK = '#1f2933';
export const MUTED = '#5f6b7a';
const STRIP = '#f3f5f8';
const RULE = '#d5dae1';
const PAD = 16;

export function escapeXml(text: string): string {
  return printable(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Greedy word wrap at about `max` characters: layout without measuring text (no DOM here). */
export function wrap(text: string, max: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line === '') line = word;
    else if (line.length + 1 + word.length <= max) line += ' ' + word;
    else {
      out.push(line);
      line = word;
    }
  }
  if (line !== '') out.push(line);
  return out;
}

/** about this many pixels per character of 11 px text (DejaVu Sans is the widest of the fonts named) */
const CHAR_PX = 6.6;

function swatch(item: LegendItem, x: number, y: number): string {
  const c = escapeXml(item.color);
  switch (item.kind) {
    case 'line':
      return `<line x1="${x}" y1="${y}" x2="${x + 16}" y2="${y}" stroke="${c}" stroke-width="2.5"/>`;
    case 'dash':
      return `<line x1="${x}" y1="${y}" x2="${x + 16}" y2="${y}" stroke="${c}" stroke-width="2" stroke-dasharray="4 3"/>`;
    case 'dot':
      return `<circle cx="${x + 8}" cy="${y}" r="4" fill="${c}"/>`;
    case 'area':
    case 'shade':
      return `<rect x="${x}" y="${y - 5}" width="16" height="10" fill="${c}" fill-opacity="${item.kind === 'shade' ? 0.6 : 0.8}"/>`;
  }
}

/** The chart's SVG placed at (x, y): its outer tag replaced, its content kept. */
function placed(chartSvg: string, x: number, y: number, w: number, h: number): string {
  const open = /^\s*<svg\b[^>]*>/.exec(chartSvg);
  if (open === null) throw new Error('the chart markup is not an <svg> element');
  const vb = /viewBox="([^"]*)"/.exec(open[0])?.[1] ?? `0 0 ${w} ${h}`;
  return `<svg x="${x}" y="${y}" width="${w}" height="${h}" viewBox="${escapeXml(vb)}" overflow="hidden">${chartSvg.slice(open[0].length)}`;
}

/** The caption strip (stamp) at y, `width` wide: its markup and height. */
export function captionStrip(stamp: Stamp, width: number, y: number, caption: 'stamp' | 'line' = 'stamp'): { svg: string; height: number } {
  const lines = (caption === 'line' ? [captionLine(stamp)] : captionLines(stamp)).flatMap((l) => wrap(l, Math.floor((width - 2 * PAD) / 6.2)));
  const height = 12 + lines.length * 15;
  const text = lines.map((l, i) => `<text x="${PAD}" y="${y + 18 + i * 15}" font-size="10.5" fill="${INK}">${escapeXml(l)}</text>`).join('');
  return {
    svg: `<g class="ch-stamp"><rect x="0" y="${y}" width="${width}" height="${height}" fill="${STRIP}"/><line x1="0" y1="${y + 0.5}" x2="${width}" y2="${y + 0.5}" stroke="${RULE}"/>${text}</g>`,
    height,
  };
}

/** The whole figure as a standalone SVG document, and its size in CSS pixels. */
export function figureSvg(parts: FigureParts): { svg: string; width: number; height: number } {
  const width = Math.max(320, Math.round(parts.chartWidth));
  const out: string[] = [];
  let y = PAD + 14;
  out.push(`<text x="${PAD}" y="${y}" font-size="15" font-weight="700" fill="${INK}">${escapeXml(parts.title)}</text>`);
  y += 6;
  for (const line of wrap(parts.subtitle, Math.floor((width - 2 * PAD) / CHAR_PX))) {
    y += 15;
    out.push(`<text x="${PAD}" y="${y}" font-size="11" fill="${MUTED}">${escapeXml(line)}</text>`);
  }
  y += 8;
  out.push(placed(parts.chartSvg, 0, y, Math.round(parts.chartWidth), Math.round(parts.chartHeight)));
  y += Math.round(parts.chartHeight) + 6;
  // legend: items left to right, a new row when the next would not fit
  let x = PAD;
  let rowY = y + 10;
  for (const item of parts.legend) {
    const w = 16 + 6 + Math.ceil(item.label.length * CHAR_PX) + 14;
    if (x > PAD && x + w > width - PAD) {
      x = PAD;
      rowY += 18;
    }
    out.push(swatch(item, x, rowY), `<text x="${x + 22}" y="${rowY + 4}" font-size="11" fill="${INK}">${escapeXml(item.label)}</text>`);
    x += w;
  }
  y = parts.legend.length > 0 ? rowY + 14 : y;
  const strip = captionStrip(parts.stamp, width, y, parts.caption);
  out.push(strip.svg);
  const height = y + strip.height;
  return {
    svg:
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${escapeXml(FIGURE_FONT)}">` +
      `<rect width="${width}" height="${height}" fill="#ffffff"/>${out.join('')}</svg>`,
    width,
    height,
  };
}
