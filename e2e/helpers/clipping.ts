// What a person sees cut off (issue 24), measured in the page: the page itself wider than
// the window; an element whose box lies outside the window's horizontal range (or outside
// the box of an ancestor that hides its overflow); a text element whose text is wider than
// its box where the overflow is hidden; an SVG label outside its chart. Tables and lists that
// scroll inside their own container (overflow auto/scroll) may hold content beyond the
// window: the container is what is checked. Text shortened with an ellipsis whose whole
// text is its own (or its button's) title, or a table cell (role row) with a title, is said
// in full on hover, and is not counted.
import type { Page } from '@playwright/test';

export interface Clipped {
  what: string;
  why: string;
}

export async function clippedElements(page: Page): Promise<Clipped[]> {
  return page.evaluate(() => {
    const out: { what: string; why: string }[] = [];
    const doc = document.documentElement;
    const width = doc.clientWidth;
    if (doc.scrollWidth > width + 1) out.push({ what: 'the page', why: `scrollWidth ${doc.scrollWidth} > ${width}` });
    const name = (el: Element): string => {
      const id = el.getAttribute('data-testid');
      const cls = typeof el.className === 'string' ? el.className : (el.getAttribute('class') ?? '');
      const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 60);
      return `${el.tagName.toLowerCase()}${id ? `[data-testid=${id}]` : ''}${cls ? `.${cls.split(/\s+/).filter(Boolean).join('.')}` : ''} "${text}"`;
    };
    const shown = (el: Element): boolean => {
      if (el.closest('.sr-only, [aria-hidden="true"], .recharts-tooltip-wrapper') !== null) return false;
      const s = getComputedStyle(el);
      if (s.visibility === 'hidden' || s.display === 'none' || Number(s.opacity) === 0) return false;
      return el.getClientRects().length > 0;
    };
    const ownText = (el: Element): boolean => Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim() !== '');
    /** the nearest ancestor that scrolls or hides its overflow sideways */
    const clipper = (el: Element): { el: Element; scrolls: boolean } | null => {
      for (let p = el.parentElement; p !== null && p !== document.body; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o === 'auto' || o === 'scroll') return { el: p, scrolls: true };
        if (o === 'hidden' || o === 'clip') return { el: p, scrolls: false };
      }
      return null;
    };
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      if (el instanceof SVGElement && !(el instanceof SVGSVGElement) && el.tagName !== 'text') continue;
      if (!shown(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) continue;
      const c = clipper(el);
      if (c === null) {
        if (r.left < -1 || r.right > width + 1) out.push({ what: name(el), why: `box ${Math.round(r.left)}–${Math.round(r.right)} outside 0–${width}` });
      } else if (!c.scrolls) {
        const cr = c.el.getBoundingClientRect();
        // a cell that shortens its text with an ellipsis and names it whole in a title (hover) is not cut
        const shortened = getComputedStyle(c.el).textOverflow === 'ellipsis' && c.el.closest('[title]') !== null;
        if ((r.left < cr.left - 1 || r.right > cr.right + 1) && ownText(el) && !shortened)
          out.push({
            what: name(el),
            why: `text box ${Math.round(r.left)}–${Math.round(r.right)} cut by ${name(c.el).slice(0, 50)} ${Math.round(cr.left)}–${Math.round(cr.right)}`,
          });
      }
      if (el.tagName === 'text') {
        const svg = (el as SVGElement).ownerSVGElement;
        if (svg !== null && (el.textContent ?? '').trim() !== '') {
          const sr = svg.getBoundingClientRect();
          if (r.left < sr.left - 1 || r.right > sr.right + 1)
            out.push({
              what: name(el),
              why: `label ${Math.round(r.left)}–${Math.round(r.right)} outside its chart ${Math.round(sr.left)}–${Math.round(sr.right)}`,
            });
        }
        continue;
      }
      if (!ownText(el) || !(el instanceof HTMLElement)) continue;
      const s = getComputedStyle(el);
      if (s.overflowX === 'visible' || s.overflowX === 'auto' || s.overflowX === 'scroll') continue;
      if (el.scrollWidth > el.clientWidth + 1) {
        const full = (el.textContent ?? '').trim();
        const titled = el.closest('[title]')?.getAttribute('title') ?? '';
        if (
          s.textOverflow === 'ellipsis' &&
          titled !== '' &&
          (titled.includes(full.replace(/^pin/, '').trim().slice(0, 20)) || el.closest('[role="row"]') !== null)
        )
          continue;
        out.push({ what: name(el), why: `text ${el.scrollWidth} px in a ${el.clientWidth} px box` });
      }
    }
    return out;
  });
}
