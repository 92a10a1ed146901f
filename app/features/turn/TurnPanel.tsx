// The selected turn: its metrics (contract §3), every finding with its message, and the live
// spans with their score binding; a click on a span opens the inspector.
import { fmtNum, SeverityBadge, SpanChips } from '../../components/bits.tsx';
import { useAnalysis } from '../../stores/analysis.ts';
import { useUi } from '../../stores/ui.ts';
import { SpanTable } from './SpanTable.tsx';
import { TurnComposition } from './TurnComposition.tsx';
import { namedMessage } from '../findings/rows.ts';

export function TurnPanel() {
  const turn = useAnalysis((s) => s.turn);
  const selected = useUi((s) => s.selectedTurn);
  if (selected === null) return <p className="empty">Select a turn (click a chart, a finding, or use ← →).</p>;
  if (turn === null) return <p className="empty">Loading turn {selected}…</p>;
  const m = turn.metrics;
  // while the next turn's detail is on its way the previous one stays, dimmed: no flicker
  return (
    <div className={`turn-panel${turn.turn !== selected ? ' stale' : ''}`} aria-busy={turn.turn !== selected}>
      <dl className="metrics">
        <Metric k="spans" v={`${m.n_spans} (${m.n_scored} scored)`} />
        <Metric k="tokens" v={`${fmtNum(m.tokens_total)}${m.tokens_estimated ? ' (some estimated)' : ''}`} />
        <Metric k="mean" v={fmtNum(m.mean_score)} />
        <Metric k="median" v={fmtNum(m.median_score)} />
        <Metric k="stdev" v={fmtNum(m.stdev_score)} />
        <Metric k="p10–p90" v={`${fmtNum(m.p10_score)}–${fmtNum(m.p90_score)}`} />
        <Metric k="modified / invalidated" v={`${m.spans_modified} / ${m.scores_invalidated}`} />
        <Metric k="texts changed" v={String(m.texts_changed)} />
        <Metric k="orphan edges" v={String(m.orphan_edges)} />
      </dl>
      {turn.findings.length > 0 && (
        <ul className="turn-findings" aria-label={`Findings at turn ${turn.turn}`}>
          {turn.findings.map((f) => (
            <li key={f.signal}>
              <SeverityBadge severity={f.severity} /> <code>{f.signal}</code> <span className="msg">{namedMessage(f.message, f.spanIds, f.labels)}</span>
              {f.spanIds.length > 0 && (
                <div>
                  <SpanChips ids={f.spanIds} limit={10} tone={f.severity === 'fault' ? 'bad' : 'plain'} />
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      <TurnComposition turn={turn} />
      <SpanTable spans={turn.spans} turn={turn.turn} />
    </div>
  );
}

function Metric({ k, v }: { k: string; v: string }) {
  return (
    <div>
      <dt>{k}</dt>
      <dd>{v}</dd>
    </div>
  );
}
