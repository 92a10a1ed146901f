// SVG to PNG for `context-health report`, by resvg (a Rust SVG renderer, as a prebuilt
// native module in the npm package: no browser). Text is drawn with the DejaVu Sans files
// shipped in assets/fonts (the folder is handed in: this module also runs bundled) and no system font, so the bytes are the same on every machine.
import path from 'node:path';
import { renderAsync, type ResvgRenderOptions } from '@resvg/resvg-js';

const options = (scale: number, fontDir: string): ResvgRenderOptions => ({
  fitTo: { mode: 'zoom', value: scale },
  background: '#ffffff',
  font: {
    loadSystemFonts: false,
    fontFiles: [path.join(fontDir, 'DejaVuSans.ttf'), path.join(fontDir, 'DejaVuSans-Bold.ttf')],
    defaultFontFamily: 'DejaVu Sans',
    sansSerifFamily: 'DejaVu Sans',
  },
  shapeRendering: 2,
  textRendering: 1,
});

/** PNG bytes of an SVG document at `scale` device pixels per CSS pixel, on white; off the main thread (libuv's pool), so several run at once. */
export async function rasterise(svg: string, fontDir: string, scale = 2): Promise<Uint8Array> {
  const image = await renderAsync(svg, options(scale, fontDir));
  return new Uint8Array(image.asPng());
}
