// contract §8.3 on the shared turn axis: one mark per compaction, the context's tokens before
// (hollow) → after (filled) on the left axis, and beside it a bar of what the audit found
// (kept / paraphrased / lost share of its items, right axis), confirmed losses flagged on top.
// A click opens the compaction's panel. Drawn under the charts, so it zooms and follows
// with them, and exports stamped like them.
import { createContext, useContext, useMemo } from 'react';
import { CartesianGrid, ComposedChart, usePlotArea, useXAxisScale, useYAxisScale, XAxis, YAxis } from 'recharts';
import type { CompactionRecord } from '../../../src/worker/client.ts';
import { selectTurn } from '../../analysis.ts';
import { ChartFrame } from '../../../src/charts/ChartFrame.tsx';
import { C } from '../../../src/charts/theme.ts';
import { useAnalysis, sessionOnScreen } from '../../stores/analysis.ts';
import { setUi, useUi } from '../../stores/ui.ts';
import { CHART_MARGIN, thousands, turnXAxis, useStableDomain, useTurnAxis, VALUE_Y_AXIS, yLabel } from '../../../src/charts/common.tsx';
import { ChartBox } from '../../../src/charts/fixedSize.tsx';
import { niceTicks } from '../../../src/charts/rows.ts';
import { retentionShares, retentionWords, tokensWords } from './compactionRows.ts';

const SHARE_TICKS = [0, 25, 50, 75, 100];
/** room above the plot for the confirmed-loss flags */
const STRIP_MARGIN = { ...CHART_MARGIN, top: 20 };
const SHARE_DOMAIN: [number, number] = [0, 100];
const NO_RECORDS: CompactionRecord[] = [];
/** the retention bar's width and its gap from the token line, in pixels */
const BAR_W = 9;
const BAR_GAP = 4;

const LEGEND = [
  { label: 'tokens before → after (left axis)', color: C.compaction, kind: 'line' as const },
  { label: 'kept (right axis: share of audited items)', color: C.kept, kind: 'area' as const },
  { label: 'paraphrased', color: C.paraphrased, kind: 'area' as const },
  { label: 'lost', color: C.lost, kind: 'area' as const },
  { label: 'unknown: the summary cannot be read', color: C.unknown, kind: 'area' as const },
  { label: 'confirmed loss: lost, then gone back for', color: C.lost, kind: 'dot' as const },
];

export function CompactionsStrip() {
  const count = useAnalysis((s) => sessionOnScreen(s)?.compactions ?? 0);
  if (count === 0) return null;
  return <Strip />;
}

function Strip() {
  const { view, xd, anchor, xTicks } = useTurnAxis(5);
  const records = useAnalysis((s) => s.compactions?.records ?? NO_RECORDS);
  const shown = useMemo(() => records.filter((r) => r.turn >= xd[0] && r.turn <= xd[1]), [records, xd]);
  const yMax = useStableDomain(useMemo(() => tokensDomain(records), [records]));
  const yTicks = useMemo(() => niceTicks(yMax[0], yMax[1], 4), [yMax]);
  const plot = useMemo(
    () => (
      <ChartBox height={180}>
        <ComposedChart data={anchor} margin={STRIP_MARGIN}>
          <CartesianGrid stroke={C.grid} vertical={false} yAxisId="tokens" />
          <XAxis {...turnXAxis(xTicks, xd)} />
          <YAxis {...VALUE_Y_AXIS} yAxisId="tokens" domain={yMax} ticks={yTicks} width={56} tickFormatter={thousands} label={yLabel('tokens', 'left')} />
          <YAxis
            {...VALUE_Y_AXIS}
            yAxisId="share"
            orientation="right"
            domain={SHARE_DOMAIN}
            ticks={SHARE_TICKS}
            width={52}
            tickFormatter={(v: number) => `${v}%`}
            label={yLabel('items (%)', 'right')}
          />
          {/* no turn overlay: its click layer would lie over the marks; the cursor is drawn by the marks */}
          <CompactionMarks />
        </ComposedChart>
      </ChartBox>
    ),
    [anchor, xTicks, xd, yMax, yTicks],
  );
  return (
    <ChartFrame
      testId="compactions-strip"
      title="Compactions"
      subtitle={
        <>
          Each compaction at the turn it took effect: the context&apos;s tokens before → after it, and what its summary kept of the load-bearing items it
          replaced (files, prompts, todos, commands, errors; contract §8.4). Click one for its summary and every item.
        </>
      }
      state={view === null ? 'loading' : shown.length > 0 ? 'ready' : 'empty'}
      points={shown.length}
      legend={LEGEND}
    >
      <RecordsContext.Provider value={shown}>{plot}</RecordsContext.Provider>
    </ChartFrame>
  );
}

/** 0 to the next round step above the largest count, so a "before" mark never sits on the plot's edge. */
function tokensDomain(records: readonly CompactionRecord[]): [number, number] {
  let max = 1;
  for (const r of records) max = Math.max(max, r.tokens_before ?? 0, r.tokens_after);
  const ticks = niceTicks(0, max, 5);
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : max;
  return [0, Math.ceil((max * 1.05) / step) * step];
}

/** The records the marks draw, through context as the charts' views are (chartView.tsx): the chart element stays the same while they change. */
const RecordsContext = createContext<CompactionRecord[]>(NO_RECORDS);

function CompactionMarks() {
  const records = useContext(RecordsContext);
  const x = useXAxisScale();
  const yTokens = useYAxisScale('tokens');
  const yShare = useYAxisScale('share');
  const plot = usePlotArea();
  const selected = useUi((s) => s.selectedCompaction);
  const turn = useUi((s) => s.selectedTurn);
  if (x === undefined || yTokens === undefined || yShare === undefined || plot === undefined) return null;
  const cursor = turn === null ? undefined : x(turn);
  return (
    <g className="compaction-marks">
      {cursor !== undefined && cursor >= plot.x - 0.5 && cursor <= plot.x + plot.width + 0.5 && (
        <line x1={cursor} x2={cursor} y1={plot.y} y2={plot.y + plot.height} stroke={C.cursor} strokeWidth={1} strokeOpacity={0.5} pointerEvents="none" />
      )}
      {records.map((r, i) => {
        const px = x(r.turn);
        if (px === undefined) return null;
        const next = records[i + 1];
        const room = next === undefined ? plot.x + plot.width - px : (x(next.turn) ?? px) - px;
        return <CompactionMark key={r.turn} r={r} px={px} room={room} selected={selected === r.turn} yTokens={yTokens} yShare={yShare} />;
      })}
    </g>
  );
}

type Scale = (v: number) => number | undefined;

function CompactionMark({
  r,
  px,
  room,
  selected,
  yTokens,
  yShare,
}: {
  r: CompactionRecord;
  px: number;
  room: number;
  selected: boolean;
  yTokens: Scale;
  yShare: Scale;
}) {
  const after = yTokens(r.tokens_after) ?? 0;
  const before = r.tokens_before === null ? null : (yTokens(r.tokens_before) ?? null);
  const shares = retentionShares(r.retention);
  const bottom = yShare(0) ?? 0;
  const top = yShare(100) ?? 0;
  const h = bottom - top;
  const bx = px + BAR_GAP;
  const kept = shares.kept * h;
  const para = shares.paraphrased * h;
  const lost = shares.lost * h;
  const unknown = shares.unknown * h;
  const words = retentionWords(r.retention);
  const label = `compaction at turn ${r.turn}: ${tokensWords(r)}${words === '' ? '' : `; kept ${words}`}${shares.confirmed > 0 ? `; ${shares.confirmed} confirmed loss${shares.confirmed === 1 ? '' : 'es'}` : ''}`;
  // "41.5k → 6.2k" beside the mark, when the next one leaves room for it
  const tokensLabel = room > 80 ? `${r.tokens_before === null ? '' : `${kTokens(r.tokens_before)} → `}${kTokens(r.tokens_after)}` : null;
  const open = (): void => {
    setUi({ selectedCompaction: r.turn });
    selectTurn(r.turn);
  };
  return (
    <g
      data-testid="compaction"
      data-turn={r.turn}
      data-kind={r.kind}
      data-tokens-before={r.tokens_before ?? ''}
      data-tokens-after={r.tokens_after}
      data-items={shares.items}
      data-confirmed={shares.confirmed}
      role="button"
      tabIndex={0}
      aria-label={label}
      aria-pressed={selected}
      className={`compaction-mark${selected ? ' selected' : ''}`}
      style={{ cursor: 'pointer' }}
      onClick={open}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          open();
        }
      }}
    >
      <title>{label}</title>
      {/* a hit area wider than the thin marks, over their label too (a click anywhere on the mark opens it) */}
      <rect x={px - 6} y={top} width={BAR_W + BAR_GAP + 10 + (tokensLabel === null ? 0 : tokensLabel.length * 6)} height={h} fill="transparent" />
      {selected && <rect x={px - 5} y={top - 2} width={BAR_W + BAR_GAP + 8} height={h + 4} fill="none" stroke={C.cursor} strokeWidth={1} rx={2} />}
      {before !== null && <line x1={px} x2={px} y1={before} y2={after} stroke={C.compaction} strokeWidth={2} />}
      {before !== null && <circle cx={px} cy={before} r={3.5} fill="#fff" stroke={C.compaction} strokeWidth={1.5} />}
      <circle cx={px} cy={after} r={3.5} fill={C.compaction} />
      {shares.items === 0 ? (
        <rect x={bx} y={top} width={BAR_W} height={h} fill="none" stroke={C.axis} strokeDasharray="2 2" />
      ) : (
        <>
          <rect x={bx} y={bottom - kept} width={BAR_W} height={kept} fill={C.kept} />
          <rect x={bx} y={bottom - kept - para} width={BAR_W} height={para} fill={C.paraphrased} />
          <rect x={bx} y={top} width={BAR_W} height={lost} fill={C.lost} />
          {unknown > 0 && <rect x={bx} y={top + lost} width={BAR_W} height={unknown} fill={C.unknown} data-testid="compaction-unknown" />}
        </>
      )}
      {shares.confirmed > 0 && (
        <g data-testid="compaction-confirmed">
          <circle cx={bx + BAR_W / 2} cy={top - 6} r={4.5} fill={C.lost} stroke="#fff" strokeWidth={1} />
          <text x={bx + BAR_W + 4} y={top - 2} fontSize={10} fontWeight={700} fill={C.lost}>
            {shares.confirmed} confirmed
          </text>
        </g>
      )}
      {tokensLabel !== null && (
        <text x={bx + BAR_W + 3} y={Math.max(top + 10, Math.min(after, bottom - 4))} fontSize={10} fill={C.ink}>
          {tokensLabel}
        </text>
      )}
    </g>
  );
}

/** 6,200 → "6.2k", 167,012 → "167k": short enough to sit beside a mark. */
function kTokens(v: number): string {
  if (v < 1000) return String(v);
  return `${(v / 1000).toFixed(v >= 100_000 ? 0 : 1).replace(/\.0$/, '')}k`;
}
