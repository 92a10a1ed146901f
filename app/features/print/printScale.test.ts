import { describe, expect, it } from 'vitest';
import { printLayoutFor } from './printScale.ts';

// the chart's own font size × its scale on paper (printed width / drawn width), in pt
const printedPt = (drawn: number): number => {
  const l = printLayoutFor(drawn);
  return l.font * (l.width / drawn) * 0.75;
};

describe('print scale', () => {
  it('prints chart text at 7 pt or more whatever the width the chart was drawn at', () => {
    for (const drawn of [150, 328, 500, 760, 890, 1200, 1790, 2600]) expect(printedPt(drawn), `drawn ${drawn} px`).toBeGreaterThanOrEqual(7);
  });

  it('keeps the screen font for a chart drawn at its printed width, and two by two until labels would pass twice it', () => {
    expect(printLayoutFor(328)).toEqual({ wide: false, width: 328, font: 11 });
    expect(printLayoutFor(700).wide).toBe(false);
    expect(printLayoutFor(700).font).toBeLessThanOrEqual(22);
    expect(printLayoutFor(890).wide).toBe(true);
    // on its own row just wide enough for labels of twice the screen's, at most across the column
    expect(printLayoutFor(890)).toEqual({ wide: true, width: 397, font: 22 });
    expect(printLayoutFor(1790)).toEqual({ wide: true, width: 682, font: 25.8 });
  });

  it('keeps a chart on its own row at its width once put there (redrawn there, it does not go back)', () => {
    expect(printLayoutFor(397, 397)).toEqual({ wide: true, width: 397, font: 11 });
    expect(printLayoutFor(890, 397)).toEqual({ wide: true, width: 397, font: 22 });
    expect(printLayoutFor(0)).toEqual({ wide: false, width: 328, font: 11 });
  });
});
