// Before a figure is captured, what it holds must be drawn: the lineage graph is drawn only
// once scrolled near (it is costly), so an export of the banner and charts taken with the
// graph off-screen showed an empty box (issue 24). The export asks every lazy part to draw,
// then waits until the graph says it is fitted (data-fitted) or has nothing to draw.
export const EXPORT_PREPARE_EVENT = 'context-health:export-prepare';

const frame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));

/** Whether a lineage box inside `el` is still waiting to be drawn and fitted. */
function lineagePending(el: HTMLElement): boolean {
  const boxes = el.matches('.lineage') ? [el] : Array.from(el.querySelectorAll<HTMLElement>('.lineage'));
  return boxes.some((box) => box.querySelector('.lineage-empty') === null && box.querySelector('.lineage-canvas[data-fitted="true"]') === null);
}

export async function prepareForExport(elements: readonly HTMLElement[], timeoutMs = 4000): Promise<void> {
  if (!elements.some(lineagePending)) return;
  window.dispatchEvent(new Event(EXPORT_PREPARE_EVENT));
  const until = performance.now() + timeoutMs;
  while (elements.some(lineagePending) && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  // the fitted view's transform is painted in the next frames
  await frame();
  await frame();
}
