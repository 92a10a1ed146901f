import { Window } from 'happy-dom';
const win = new Window({ width: 1200, height: 800 });
const g = globalThis as any;
for (const k of [
  'window',
  'document',
  'navigator',
  'HTMLElement',
  'Element',
  'Node',
  'SVGElement',
  'getComputedStyle',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'ResizeObserver',
  'MutationObserver',
]) {
  try {
    g[k] = (win as any)[k];
  } catch (e) {
    console.log('skip', k, (e as Error).message);
  }
}
g.IS_REACT_ACT_ENVIRONMENT = true;
const { act } = await import('react');
const { createRoot } = await import('react-dom/client');
const { ComposedChart, XAxis, YAxis, CartesianGrid, Line, ReferenceLine, usePlotArea, useXAxisScale } = await import('recharts');
function Custom() {
  const p = usePlotArea();
  const s = useXAxisScale();
  return <g id="custom" data-p={JSON.stringify(p)} data-s={s ? s(5) : 'none'} />;
}
const data = Array.from({ length: 10 }, (_, i) => ({ x: i, y: i * i }));
const el = document.createElement('div');
document.body.appendChild(el);
const t0 = performance.now();
const root = createRoot(el);
await act(async () => {
  root.render(
    <ComposedChart width={600} height={200} data={data}>
      <CartesianGrid />
      <XAxis dataKey="x" type="number" domain={[0, 9]} label={{ value: 'turn', position: 'insideBottom' }} />
      <YAxis />
      <Line dataKey="y" isAnimationActive={false} />
      <ReferenceLine y={20} stroke="red" label="floor" />
      <Custom />
    </ComposedChart>,
  );
});
const svg = el.querySelector('svg')!.outerHTML;
console.log(
  performance.now() - t0,
  svg.length,
  svg.slice(0, 600),
  svg.includes('custom'),
  svg.match(/<g id="custom"[^>]*>/)?.[0],
  svg.includes('recharts-line-curve'),
);
root.unmount();
await win.happyDOM.close();
