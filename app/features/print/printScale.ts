// Printed charts keep their text at 7 pt or more (issue 24). Ctrl+P lays the page out for
// paper without a frame in which the page could redraw its charts: a chart drawn at screen
// width is scaled, whole, by its viewBox to the width it is printed at, and its tick labels
// shrink with it (to about 5 px on A4). Before printing, each chart is told the font size
// that prints at PRINTED_FONT once scaled (--print-font, read by print.css). Two by two, a
// chart is printed TWO_UP px wide (half of the 700-px column less a frame's padding). One
// drawn so wide that its labels would have to grow past twice the screen's to print that
// small (a window of 1440 px and more) gets a row of its own (data-print-wide), printed just
// wide enough (--print-width) for labels of twice the screen's size, at most across the
// column: wider would make the page taller than A4 for nothing. Where the page can redraw its
// charts for print media (page.pdf), they are drawn at their printed width and nothing is
// enlarged.
const TWO_UP = 328;
const ONE_UP = 682;
/** 9.8 px at 96 px per inch: 7.35 pt, with room for rounding in the scaling */
const PRINTED_FONT = 9.8;
const SCREEN_FONT = 11;
/** beyond this the labels outgrow the chart's margins, drawn for the screen's */
const MAX_FONT = 2 * SCREEN_FONT;

export interface PrintLayout {
  /** on a row of its own rather than two by two */
  wide: boolean;
  /** the width it is printed at, px */
  width: number;
  /** the font size, in the chart's own units, that prints at PRINTED_FONT at that width */
  font: number;
}

const fontAt = (drawnWidth: number, printedWidth: number): number => Math.max(SCREEN_FONT, Math.ceil(((PRINTED_FONT * drawnWidth) / printedWidth) * 10) / 10);

/**
 * How a chart drawn `drawnWidth` px wide is printed. `keptWidth`: the width it was given on a
 * row of its own earlier in this print, kept (redrawn there by page.pdf, it would otherwise
 * go back and forth between layouts).
 */
export function printLayoutFor(drawnWidth: number, keptWidth?: number): PrintLayout {
  if (keptWidth !== undefined) return { wide: true, width: keptWidth, font: drawnWidth > 0 ? fontAt(drawnWidth, keptWidth) : SCREEN_FONT };
  if (!(drawnWidth > 0)) return { wide: false, width: TWO_UP, font: SCREEN_FONT };
  if (fontAt(drawnWidth, TWO_UP) <= MAX_FONT) return { wide: false, width: TWO_UP, font: fontAt(drawnWidth, TWO_UP) };
  const width = Math.min(ONE_UP, Math.max(TWO_UP, Math.ceil((PRINTED_FONT * drawnWidth) / MAX_FONT)));
  return { wide: true, width, font: fontAt(drawnWidth, width) };
}

function prepare(): void {
  for (const svg of document.querySelectorAll<SVGSVGElement>('.chart-frame svg.recharts-surface')) {
    const frame = svg.closest<HTMLElement>('.chart-frame');
    if (frame === null) continue;
    const drawn = Number(svg.getAttribute('width')) || svg.viewBox.baseVal.width;
    const kept = frame.dataset.printWide === undefined ? undefined : Number(frame.dataset.printWide);
    const layout = printLayoutFor(drawn, kept);
    frame.style.setProperty('--print-font', `${layout.font}px`);
    if (layout.wide) {
      frame.dataset.printWide = String(layout.width);
      frame.style.setProperty('--print-width', `${layout.width}px`);
    }
  }
}

function done(): void {
  for (const frame of document.querySelectorAll<HTMLElement>('.chart-frame[data-print-wide]')) {
    delete frame.dataset.printWide;
    frame.style.removeProperty('--print-width');
  }
}

/** Listens for printing (the print dialog, and print media as page.pdf emulates it); returns the unsubscribe. */
export function watchPrint(): () => void {
  const media = window.matchMedia('print');
  const timers: ReturnType<typeof setTimeout>[] = [];
  const onMedia = (e: MediaQueryListEvent): void => {
    if (!e.matches) return done();
    prepare();
    // print media narrows the charts' column (print.css): where the page can redraw them there, they are measured again
    timers.push(setTimeout(prepare, 600), setTimeout(prepare, 1500));
  };
  window.addEventListener('beforeprint', prepare);
  window.addEventListener('afterprint', done);
  media.addEventListener('change', onMedia);
  return () => {
    window.removeEventListener('beforeprint', prepare);
    window.removeEventListener('afterprint', done);
    media.removeEventListener('change', onMedia);
    timers.forEach(clearTimeout);
  };
}
