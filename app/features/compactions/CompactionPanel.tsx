// The compaction chosen on the strip (contract §8.3): its figures, the summary's own text
// and every audited item, lost first; the items earlier compactions kept, judged again
// (decay); and "Report this compaction". The summary is the agent's text: shown as text.
import { useAnalysis } from '../../stores/analysis.ts';
import { setUi, useUi } from '../../stores/ui.ts';
import { reportCompaction } from '../report/reportIncident.ts';
import { carriedNotFollowedWords, ENCRYPTED_SUMMARY_WORDS } from '../../../src/report/compactionWords.ts';
import { CompactionItems } from './CompactionItems.tsx';
import { compactionAt, retentionWords, tokensWords, totalRetention } from './compactionRows.ts';

/**
 * `fallback`: the compaction shown while none is chosen on the strip (an imported agent's
 * Compactions section opens on the one with the latest confirmed loss, else the last).
 */
export function CompactionPanel({ fallback = null }: { fallback?: number | null }) {
  const chosen = useUi((s) => s.selectedCompaction);
  const turn = chosen ?? fallback;
  const r = useAnalysis((s) => compactionAt(s.compactions?.records, turn));
  if (r === null) return null;
  const t = totalRetention(r.retention);
  const words = retentionWords(r.retention);
  const notFollowed = carriedNotFollowedWords(r.carried_not_followed);
  return (
    <section
      className="panel compaction-panel"
      aria-label={`Compaction at turn ${r.turn}`}
      data-testid="compaction-panel"
      data-turn={r.turn}
      data-chosen={chosen !== null}
    >
      <header className="panel-head">
        <h2>
          Compaction at turn {r.turn}{' '}
          <span className="muted">
            {r.kind}
            {r.trigger === null ? '' : `, ${r.trigger}`}
          </span>
        </h2>
        <span className="panel-actions">
          <button type="button" className="btn small" onClick={() => void reportCompaction(r.turn)} data-testid="report-compaction">
            Report this compaction
          </button>{' '}
          {chosen !== null && (
            <button type="button" className="btn small ghost" onClick={() => setUi({ selectedCompaction: null })} aria-label="Close the compaction">
              Close
            </button>
          )}
        </span>
      </header>
      <p className="compaction-facts" data-testid="compaction-facts">
        {tokensWords(r)}
        {r.agent_tokens_before === null ? '' : ` (the agent counted ${r.agent_tokens_before.toLocaleString('en-US')} before)`}, {r.spans_replaced} span
        {r.spans_replaced === 1 ? '' : 's'} replaced
        {words === '' ? '; no load-bearing item audited' : `; kept ${words}`}
        {t.lost > 0 ? `; ${t.lost} lost, ${t.confirmed} of them gone back for (confirmed)` : ''}
        {t.unknown === undefined ? '' : `; ${t.unknown} unknown (not in the text that can be read)`}.
      </p>
      <h3>Summary</h3>
      {r.summary_state === 'encrypted' ? (
        <p className="muted" data-testid="compaction-summary" data-encrypted="true">
          {ENCRYPTED_SUMMARY_WORDS[0]!.toUpperCase() + ENCRYPTED_SUMMARY_WORDS.slice(1)}.
        </p>
      ) : r.summary_text === '' ? (
        <p className="muted" data-testid="compaction-summary" data-empty="true">
          No summary: nothing in the context says what was replaced.
        </p>
      ) : (
        <pre className="compaction-summary" data-testid="compaction-summary">
          {r.summary_text}
        </pre>
      )}
      <h3>Items, lost first</h3>
      {r.items.length === 0 ? (
        <p className="muted">No load-bearing item: a microcompaction keeps every call, so every path and prompt is still named.</p>
      ) : (
        <CompactionItems items={r.items} />
      )}
      {r.carried.length > 0 && (
        <>
          <h3>Carried from earlier compactions</h3>
          <p className="muted">What an earlier summary kept, judged again against this one&apos;s text: the decay of a paraphrase of a paraphrase.</p>
          <CompactionItems items={r.carried} carried />
        </>
      )}
      {notFollowed !== null && (
        // contract §8.4: past the audit's cap, report.md's words under its carried table
        <p className="muted" data-testid="compaction-not-followed" data-count={r.carried_not_followed}>
          {notFollowed}
        </p>
      )}
    </section>
  );
}
