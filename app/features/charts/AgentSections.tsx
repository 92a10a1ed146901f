// An imported agent's session (contract §8.1 reference scope: no score detector ran), laid out
// for what was measured (docs/dashboard.md "An agent's session"): first its compactions (the
// strip, and the items of one compaction, lost first), then what fills the context with the
// agent's own auto-compaction point, then its lineage (one line when nothing is orphaned), and
// last the reference-score charts folded in one section that says why they do not apply. The
// folded charts stay in the DOM, laid out at full width, so their contract §6.3 hooks
// (chart-spread, chart-canary, chart-drift, chart-orphans) keep working.
import { useId, useState, type ReactNode } from 'react';
import { ChartHostContext, type ChartHost } from '../../../src/charts/host.tsx';
import { PAGE_CHART_HOST } from '../../chartHost.tsx';
import { LineageGraph } from './LineageGraph.tsx';
import type { CompactionRecord, Signal } from '../../../src/worker/client.ts';
import { confirmedLosses } from '../../../src/report/contextHeadline.ts';
import { sessionOnScreen, useAnalysis } from '../../stores/analysis.ts';
import { CompactionPanel } from '../compactions/CompactionPanel.tsx';

const plural = (n: number, word: string, many = `${word}s`): string => `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;

/** The compaction the section opens on: the one whose confirmed loss came last, else the last one. */
export function openingCompaction(records: readonly CompactionRecord[]): number | null {
  const latest = confirmedLosses(records, Number.POSITIVE_INFINITY)[0];
  return latest?.compactionTurn ?? records.at(-1)?.turn ?? null;
}

export function AgentSections({
  overview,
  compactions,
  composition,
  scores,
  orphans,
}: {
  overview: ReactNode;
  compactions: ReactNode;
  composition: ReactNode;
  scores: ReactNode[];
  orphans: ReactNode;
}) {
  const session = useAnalysis(sessionOnScreen);
  const records = useAnalysis((s) => s.compactions?.records);
  if (session === null) return null;
  const list = records ?? [];
  const lost = confirmedLosses(list, Number.POSITIVE_INFINITY).length;
  const orphaned = (session.signalCounts.orphaned_parent ?? 0) > 0;
  return (
    <>
      {overview}
      <section className="agent-section" aria-labelledby="agent-compactions" data-testid="section-compactions">
        <h2 id="agent-compactions" className="agent-section-head">
          Compactions
          <span className="muted">
            {session.compactions === 0
              ? `: none in ${plural(session.turns, 'turn')}`
              : `: ${plural(session.compactions, 'compaction')}, ${lost === 0 ? 'no confirmed loss' : plural(lost, 'confirmed loss', 'confirmed losses')}`}
          </span>
        </h2>
        {session.compactions === 0 ? (
          <p className="muted agent-line">The context was never rewritten: nothing was summarised away.</p>
        ) : (
          <>
            {compactions}
            <CompactionPanel fallback={openingCompaction(list)} />
          </>
        )}
      </section>
      {composition}
      <div data-testid="section-lineage">{orphaned ? orphans : <AgentLineage turns={session.turns} />}</div>
      <ScoreFold
        scores={
          orphaned
            ? scores
            : [
                ...scores,
                // the orphans chart at zero, folded: its derivation graph is drawn above, not twice
                <ChartHostContext.Provider key="orphans" value={NO_FOOTER_HOST}>
                  {orphans}
                </ChartHostContext.Provider>,
              ]
        }
        reasons={session.notApplicable}
      />
    </>
  );
}

const NO_FOOTER: ChartHost['OrphansFooter'] = () => null;
const NO_FOOTER_HOST: ChartHost = { ...PAGE_CHART_HOST, OrphansFooter: NO_FOOTER };

/**
 * The lineage of an agent's session where nothing was orphaned: the derivation graph of the
 * selected turn where it has derived_from edges (a compaction summary and the spans it
 * replaced), else one line, never an empty box.
 */
function AgentLineage({ turns }: { turns: number }) {
  const turn = useAnalysis((s) => s.turn);
  const edges = turn?.graph?.edges.length ?? 0;
  if (turn !== null && edges > 0) return <LineageGraph />;
  return (
    <p className="agent-line" data-testid="lineage-line">
      <strong>Lineage{turn === null ? '' : ` at turn ${turn.turn}`}:</strong> no derived_from edge
      {turn === null ? '' : ' here'}; no orphaned parent in {plural(turns, 'turn')}.
    </p>
  );
}

/** contract §8.1: the reference-score charts, folded by default, with the reasons they do not apply. */
function ScoreFold({ scores, reasons }: { scores: ReactNode[]; reasons: Partial<Record<Signal, string>> }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const distinct = [...new Set(Object.values(reasons))];
  return (
    <section className="agent-section score-fold" aria-labelledby={`${id}-head`} data-testid="section-scores" data-open={open}>
      <h2 id={`${id}-head`} className="agent-section-head">
        <button
          type="button"
          className="fold-button"
          aria-expanded={open}
          aria-controls={`${id}-body`}
          onClick={() => setOpen((o) => !o)}
          data-testid="scores-toggle"
        >
          <span aria-hidden="true">{open ? '▾' : '▸'}</span> Reference scores: not applicable to this session
        </button>
      </h2>
      <div className="score-fold-why" data-testid="scores-reason">
        <p>
          The scores below are the reference scorer&apos;s (BM25 against the task), not the agent&apos;s: it never prunes by score, so the score detectors are
          not evaluated (contract §8.1):
        </p>
        <ul>
          {distinct.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      </div>
      {/* folded: laid out at full width but not shown, so the charts keep their size and hooks */}
      <div id={`${id}-body`} className={`score-fold-body${open ? '' : ' folded'}`} aria-hidden={!open} inert={!open}>
        {scores}
      </div>
    </section>
  );
}
