// One span at the selected turn: its text (rendered as text, never as HTML: span texts are
// untrusted), score, hash check with both hashes, rewrite count, score and text history
// across turns, a diff against its previous turn, and its lineage.
import { useMemo, useState } from 'react';
import { CartesianGrid, Line, LineChart, ReferenceArea, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { SpanDetail } from '../../../src/worker/client.ts';
import { selectSpan, selectTurn } from '../../analysis.ts';
import { fmtNum, SpanChips } from '../../components/bits.tsx';
import { C } from '../../../src/charts/theme.ts';
import { outOfScopeOnScreen, useAnalysis } from '../../stores/analysis.ts';
import { useUi } from '../../stores/ui.ts';
import { useSpanLabel } from '../../stores/spanLabels.ts';

const BINDING_SAY = {
  bound: 'bound: text_sha256 matches the text, the score belongs to this text',
  unscored: 'unscored: the score is null (invalidated, awaiting recompute)',
  unbound: 'unbound: a score with no text_sha256, nothing ties it to this text',
  stale: 'stale: text_sha256 is the hash of some other text',
} as const;

export function SpanInspector() {
  const span = useAnalysis((s) => s.span);
  const spanId = useUi((s) => s.selectedSpan);
  const turn = useUi((s) => s.selectedTurn);
  const label = useSpanLabel(spanId ?? '');
  if (spanId === null) return null;
  return (
    <section className="panel inspector" aria-label={`Span ${label ?? spanId}`} data-testid="span-inspector" data-span-id={spanId}>
      <header className="panel-head">
        <h2>
          Span{' '}
          <span className="span-title" data-testid="span-name" title={`span ${spanId}`}>
            {label ?? spanId}
          </span>
        </h2>
        <button type="button" className="btn small ghost" onClick={() => selectSpan(null)} aria-label="Close the span inspector (Escape)">
          Close
        </button>
      </header>
      {span === null || span.spanId !== spanId ? (
        <p className="empty">{span === null && turn !== null ? `Loading span ${spanId}…` : 'Loading…'}</p>
      ) : (
        <>
          {label !== null && <SpanId id={spanId} />}
          <SpanBody d={span} />
        </>
      )}
    </section>
  );
}

/** contract §8.8: the id of a labelled span stays on screen, and one click copies it. */
function SpanId({ id }: { id: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <p className="inspector-id">
      <span className="muted">id</span> <code data-testid="span-id">{id}</code>
      <button
        type="button"
        className="btn small ghost"
        aria-label={`Copy the span id ${id}`}
        onClick={() => {
          void navigator.clipboard?.writeText(id).then(
            () => setCopied(true),
            () => setCopied(false),
          );
        }}
      >
        {copied ? 'Copied' : 'Copy id'}
      </button>
    </p>
  );
}

function SpanBody({ d }: { d: SpanDetail }) {
  return (
    <div className="inspector-body">
      {!d.live && (
        <p className="note">
          Not live at turn {d.turn}; showing turn {d.shownTurn}.{d.prunedAt !== null ? ` Pruned at turn ${d.prunedAt}.` : ''}
        </p>
      )}
      <SpanFacts d={d} />
      <HashCheck d={d} />
      <SpanText d={d} />
      <ScoreHistory d={d} />
      <TextVersions d={d} />
      {d.historyFrom !== null && <p className="muted">History before turn {d.historyFrom} was released to keep memory bounded.</p>}
      <Lineage d={d} />
    </div>
  );
}

function SpanFacts({ d }: { d: SpanDetail }) {
  return (
    <dl className="metrics">
      <div>
        <dt>score</dt>
        <dd>{fmtNum(d.score, 4)}</dd>
      </div>
      <div>
        <dt>rewrites since recompute</dt>
        <dd>{d.rewrites}</dd>
      </div>
      <div>
        <dt>tokens</dt>
        <dd>{d.tokens}</dd>
      </div>
      <div>
        <dt>role</dt>
        <dd>{d.role ?? '—'}</dd>
      </div>
      <div>
        <dt>live</dt>
        <dd>
          turns {d.firstSeen}–{d.lastSeen}
        </dd>
      </div>
      <div>
        <dt>pinned</dt>
        <dd>{d.pinned ? 'yes (canary)' : 'no'}</dd>
      </div>
    </dl>
  );
}

function HashCheck({ d }: { d: SpanDetail }) {
  const same = d.claimedSha256 !== null && d.claimedSha256 === d.computedSha256;
  // contract §8.9: where no score detector ran, the hashes are shown but no binding is judged
  const outOfScope = useAnalysis(outOfScopeOnScreen);
  return (
    <div className={`hash-check b-${d.binding}`} data-testid="hash-check" data-binding={d.binding}>
      <strong>{outOfScope ? 'the reference scorer scores this span; no score detector runs on this session (contract §8.1)' : BINDING_SAY[d.binding]}</strong>
      <div className="hashes">
        <span>text_sha256 (claimed)</span>
        <code>{d.claimedSha256 ?? '— none —'}</code>
        <span>sha256 of the text</span>
        <code>{d.computedSha256 ?? (d.textEvicted ? '(text no longer held)' : '—')}</code>
      </div>
      {d.claimedSha256 !== null && !same && d.computedSha256 !== null && <p className="muted">The hashes differ: the score was computed on other text.</p>}
    </div>
  );
}

/** The text and its word diff, as text: React escapes every character (span texts are untrusted). */
function SpanText({ d }: { d: SpanDetail }) {
  return (
    <>
      <h3>Text at turn {d.shownTurn}</h3>
      {d.text === null ? (
        <p className="empty">This old version of the text is no longer held (bounded memory); its sha256 is above.</p>
      ) : (
        <pre className="span-text" data-testid="span-text">
          {d.text}
        </pre>
      )}
      {d.diff !== null && (
        <>
          <h3>Changed since turn {d.diffAgainst}</h3>
          <pre className="span-text diff" aria-label="Word diff against the previous turn">
            {d.diff.map((op, i) =>
              op.op === 'same' ? <span key={i}>{op.text}</span> : op.op === 'add' ? <ins key={i}>{op.text}</ins> : <del key={i}>{op.text}</del>,
            )}
          </pre>
        </>
      )}
      {d.diff === null && d.diffAgainst !== null && <p className="muted">Text unchanged since turn {d.diffAgainst}.</p>}
    </>
  );
}

function ScoreHistory({ d }: { d: SpanDetail }) {
  const cursor = useUi((s) => s.selectedTurn);
  const outOfScope = useAnalysis(outOfScopeOnScreen);
  const history = useMemo(() => {
    const rows: { x: number; score: number | null; rewrites: number }[] = [];
    for (let i = 0; i < d.historyX.length; i++)
      rows.push({ x: d.historyX[i]!, score: Number.isNaN(d.historyScore[i]!) ? null : d.historyScore[i]!, rewrites: d.historyRewrites[i]! });
    return rows;
  }, [d]);
  const bad = useMemo(() => {
    const out: { x1: number; x2: number }[] = [];
    for (let i = 0; i + 1 < d.badBinding.length; i += 2) out.push({ x1: d.badBinding[i]! - 0.5, x2: d.badBinding[i + 1]! + 0.5 });
    return out;
  }, [d]);
  return (
    <>
      <h3>Score history</h3>
      {history.length > 1 ? (
        <ResponsiveContainer width="100%" height={120}>
          <LineChart
            data={history}
            margin={{ top: 6, right: 8, bottom: 4, left: 0 }}
            onClick={(e) => e?.activeLabel !== undefined && selectTurn(Number(e.activeLabel))}
          >
            <CartesianGrid stroke={C.grid} vertical={false} />
            <XAxis
              dataKey="x"
              type="number"
              domain={['dataMin', 'dataMax']}
              tick={{ fontSize: 10, fill: C.muted }}
              label={{ value: 'turn', position: 'insideBottomRight', offset: -2, style: { fontSize: 10, fill: C.muted } }}
            />
            <YAxis
              domain={['auto', 'auto']}
              tick={{ fontSize: 10, fill: C.muted }}
              width={44}
              label={{ value: 'score', angle: -90, position: 'insideLeft', style: { fontSize: 10, fill: C.muted, textAnchor: 'middle' } }}
            />
            {/* each rewrite of the text (a new version) is a dashed line: a score should move with it, or be recomputed */}
            {d.textVersions.slice(1).map((v) => (
              <ReferenceLine key={`rw${v.fromTurn}`} x={v.fromTurn} stroke={C.warning} strokeDasharray="3 3" ifOverflow="hidden" />
            ))}
            {cursor !== null && <ReferenceLine x={cursor} stroke={C.cursor} strokeWidth={1.5} ifOverflow="hidden" />}
            {bad.map((b, i) => (
              <ReferenceArea key={i} x1={b.x1} x2={b.x2} fill={C.shadeFault} fillOpacity={0.3} strokeOpacity={0} ifOverflow="hidden" />
            ))}
            <Line dataKey="score" stroke={C.primary} dot={false} strokeWidth={1.5} isAnimationActive={false} connectNulls={false} />
            <Tooltip labelFormatter={(l) => `turn ${String(l)}`} isAnimationActive={false} />
          </LineChart>
        </ResponsiveContainer>
      ) : (
        <p className="muted">Live for one turn only.</p>
      )}
      <p className="muted small" data-testid="score-history-key">
        Black line: the selected turn{d.textVersions.length > 1 ? '; amber dashes: a rewrite of the text' : ''}
        {bad.length > 0 && !outOfScope ? "; shaded: turns where this span's score was not bound to its text" : ''}.
      </p>
    </>
  );
}

function TextVersions({ d }: { d: SpanDetail }) {
  if (d.textVersions.length <= 1)
    return (
      <>
        <h3>Text versions</h3>
        <p className="muted">No rewrites: the text never changed while the span was held.</p>
      </>
    );
  return (
    <>
      <h3>Text versions</h3>
      <ol className="versions">
        {d.textVersions.map((v) => (
          <li key={v.fromTurn}>
            <button type="button" className="link" onClick={() => selectTurn(v.fromTurn)}>
              turns {v.fromTurn}–{v.toTurn}
            </button>{' '}
            <code className="muted">{v.sha256 === null ? 'hash not computed' : `${v.sha256.slice(0, 12)}…`}</code>
          </li>
        ))}
      </ol>
    </>
  );
}

function Lineage({ d }: { d: SpanDetail }) {
  // a compaction's summary cites hundreds: one set, not a search of both lists per parent
  const gone = new Set([...d.missingParents, ...d.archivedParents]);
  return (
    <>
      <h3>Lineage</h3>
      <dl className="lineage-list">
        <dt>derived from</dt>
        <dd>{d.derivedFrom.length === 0 ? '—' : <SpanChips ids={d.derivedFrom.filter((p) => !gone.has(p))} limit={12} />}</dd>
        {d.archivedParents.length > 0 && (
          <>
            <dt title="gone from the live context; the agent's transcript still holds them (contract §8.2)">archived parents</dt>
            <dd>
              {/* a compaction's summary cites everything it replaced: hundreds, shown by the first few */}
              <SpanChips ids={d.archivedParents} limit={12} tone="plain" />
            </dd>
          </>
        )}
        {d.missingParents.length > 0 && (
          <>
            <dt className="fault-text">missing parents</dt>
            <dd>
              {d.missingParents.map((p) => (
                <code key={p} className="chip ghost" title={`span ${p}`}>
                  {d.labels[p] ?? p}
                </code>
              ))}
            </dd>
          </>
        )}
        <dt>children</dt>
        <dd>{d.children.length === 0 ? '—' : <SpanChips ids={d.children} limit={12} />}</dd>
      </dl>
    </>
  );
}
