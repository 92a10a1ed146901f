// SVG to PNG for `context-health report`, by resvg (a Rust SVG renderer, as a prebuilt
// native module in the npm package: no browser). Text is drawn with the DejaVu Sans files
// shipped in assets/fonts and no system font, so the bytes are the same on every machine.
import path from 'node:path';
import { Resvg } from '@resvg/resvg-js';

const FONTS = path.resolve(import.meta.dirname, '../../assets/fonts');

/** PNG bytes of an SVG document at `scale` device pixels per CSS pixel, on white. */
export function rasterise(svg: string, scale = 2): Uint8Array {
  const r = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: scale },
    background: '#ffffff',
    font: {
      loadSystemFonts: false,
      fontFiles: [path.join(FONTS, 'DejaVuSans.ttf'), path.join(FONTS, 'DejaVuSans-Bold.ttf')],
      defaultFontFamily: 'DejaVu Sans',
      sansSerifFamily: 'DejaVu Sans',
    },
    shapeRendering: 2,
    textRendering: 1,
  });
  return new Uint8Array(r.render().asPng());
}
