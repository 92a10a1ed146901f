// "Save PNG" for charts pasted into incident reports: the figure (title, axes, legend) on
// a white background at twice the screen resolution. Controls marked data-no-export stay out.
import { toPng } from 'html-to-image';

export async function saveElementAsPng(el: HTMLElement, fileName: string): Promise<void> {
  const url = await toPng(el, {
    backgroundColor: '#ffffff',
    pixelRatio: 2,
    cacheBust: true,
    filter: (node) => !(node instanceof Element && node.hasAttribute('data-no-export')),
  });
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
}

export function pngName(parts: (string | number | null | undefined)[]): string {
  return (
    parts
      .filter((p) => p !== null && p !== undefined && p !== '')
      .join('-')
      .replace(/[^\w.-]+/g, '_')
      .slice(0, 120) + '.png'
  );
}
