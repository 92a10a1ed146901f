// Printed charts keep their text at 7 pt or more (issue 24): a chart drawn at screen width is
// scaled to the paper's column by its viewBox, and its tick labels shrink with it (to about
// 5 px on A4). Before printing, each chart is told the font size that prints at 9.5 px once
// scaled (--print-font, read by print.css). A chart is printed about 340 px wide: half of A4
// less 9 mm margins (726 px), two by two (Letter is wider, so its text is a little larger).
// Where the page can redraw the charts for print media (page.pdf), they are drawn at that
// width and nothing is enlarged.
const PRINTED_WIDTH = 340;
const PRINTED_FONT = 9.6;
const SCREEN_FONT = 11;

export function printFontFor(drawnWidth: number): number {
  if (!(drawnWidth > 0)) return SCREEN_FONT;
  // at most twice the screen's: beyond that the labels outgrow their chart (a chart drawn very wide is printed small)
  return Math.min(2 * SCREEN_FONT, Math.max(SCREEN_FONT, Math.ceil(((PRINTED_FONT * drawnWidth) / PRINTED_WIDTH) * 10) / 10));
}

function prepare(): void {
  for (const svg of document.querySelectorAll<SVGSVGElement>('.chart-frame svg.recharts-surface')) {
    const drawn = Number(svg.getAttribute('width')) || svg.viewBox.baseVal.width;
    svg.closest<HTMLElement>('.chart-frame')?.style.setProperty('--print-font', `${printFontFor(drawn)}px`);
  }
}

/** Listens for printing (the print dialog, and print media as page.pdf emulates it); returns the unsubscribe. */
export function watchPrint(): () => void {
  const media = window.matchMedia('print');
  const timers: ReturnType<typeof setTimeout>[] = [];
  const onMedia = (e: MediaQueryListEvent): void => {
    if (!e.matches) return;
    prepare();
    // print media narrows the charts' column (print.css): where the page can redraw them there, they are measured again
    timers.push(setTimeout(prepare, 600), setTimeout(prepare, 1500));
  };
  window.addEventListener('beforeprint', prepare);
  media.addEventListener('change', onMedia);
  return () => {
    window.removeEventListener('beforeprint', prepare);
    media.removeEventListener('change', onMedia);
    timers.forEach(clearTimeout);
  };
}
