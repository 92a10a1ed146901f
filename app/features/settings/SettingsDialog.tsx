// contract §4 thresholds. A value set here overrides the session header's config, which
// overrides the default; applying re-runs the whole analysis in the Worker.
import { useEffect, useRef, useState } from 'react';
import { DEFAULT_THRESHOLDS, THRESHOLD_KEYS, thresholdProblem, type ScorerMode, type Thresholds } from '../../../src/worker/client.ts';
import { reanalyse } from '../../analysis.ts';
import { sessionOnScreen, useAnalysis } from '../../stores/analysis.ts';
import { setUi, useUi } from '../../stores/ui.ts';

const WHAT: Record<keyof Thresholds, string> = {
  relevance_tolerance: 'relevance_inflation: how far mean relevance may rise over the previous turn on a shrinking rewrite (fraction, 0.05 = 5%)',
  drift_turns: 'monotonic_drift: rewrite turns in a row with inflation',
  max_rewrites: 'rewrite_repeat at this many rewrites without recompute; poisoned_span above it',
  min_scored: 'spread_collapse is judged only with at least this many scored spans',
  spread_floor: 'spread_collapse: stdev of scores below this floor',
  collapse_turns: 'spread_collapse: snapshots in a row under the floor',
  reference_agreement_floor: 'reference_disagreement (check --scorer both): least rank agreement (Kendall τ-b, −1 to 1) with the reference scorer',
  pressure_threshold: 'context_pressure: the share of the context window (0–1) whose first turn at or above it raises the info signal',
  compaction_loss_min: 'compaction_loss: confirmed losses of one compaction (lost items the agent went back for) that raise the warning',
};

/** contract §7 reference scorer: the modes of `check --scorer`, in the order the CLI lists them. */
const SCORERS: Record<ScorerMode, string> = {
  auto: "auto (default): imported agents' transcripts (Claude Code, Codex CLI, SWE-agent) are scored by the reference scorer (BM25); this page's own format keeps its scores",
  harness: "harness: every score as the transcript carries it; other agents' transcripts stay unscored",
  reference: "reference: every span scored by the reference scorer (BM25 against the task), the harness's scores replaced",
  both: "both: the harness's scores, compared with the reference's on each turn (reference_agreement, Kendall τ-b); reference_disagreement fires",
};
const SCORER_ORDER: readonly ScorerMode[] = ['auto', 'harness', 'reference', 'both'];

export function SettingsDialog() {
  const open = useUi((s) => s.settingsOpen);
  const user = useUi((s) => s.userThresholds);
  const scorer = useUi((s) => s.scorer);
  const [scorerDraft, setScorerDraft] = useState<ScorerMode>(scorer);
  const session = useAnalysis(sessionOnScreen);
  const ref = useRef<HTMLDialogElement>(null);
  const [draft, setDraft] = useState<Record<string, string>>({});

  useEffect(() => {
    const d = ref.current;
    if (d === null) return;
    if (open && !d.open) {
      setDraft(Object.fromEntries(THRESHOLD_KEYS.map((k) => [k, user[k] === undefined ? '' : String(user[k])])));
      setScorerDraft(scorer);
      d.showModal();
    } else if (!open && d.open) d.close();
  }, [open, user, scorer]);

  const header = session?.headerConfig ?? {};
  const problems = Object.fromEntries(
    THRESHOLD_KEYS.map((k) => {
      const raw = (draft[k] ?? '').trim();
      return [k, raw === '' ? null : thresholdProblem(k, Number(raw))];
    }),
  );
  const valid = THRESHOLD_KEYS.every((k) => problems[k] === null);

  const apply = (): void => {
    const next: Partial<Thresholds> = {};
    for (const k of THRESHOLD_KEYS) {
      const raw = (draft[k] ?? '').trim();
      if (raw !== '') next[k] = Number(raw);
    }
    setUi({ userThresholds: next, scorer: scorerDraft, settingsOpen: false });
    reanalyse();
  };

  return (
    <dialog ref={ref} className="dialog" aria-labelledby="settings-title" onClose={() => setUi({ settingsOpen: false })}>
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          if (valid) apply();
        }}
      >
        <h2 id="settings-title">Thresholds</h2>
        <p className="muted">
          Leave a field empty to use the session header&apos;s value, or the default. A value set here overrides both for every session of this source; applying
          re-runs the analysis.
        </p>
        <div className="settings-grid">
          {THRESHOLD_KEYS.map((k) => {
            const fromHeader = header[k];
            const effective = session?.thresholds[k] ?? DEFAULT_THRESHOLDS[k];
            return (
              <label key={k} className="setting">
                <span className="setting-name">
                  <code>{k}</code>
                </span>
                <input
                  type="text"
                  inputMode="decimal"
                  name={k}
                  value={draft[k] ?? ''}
                  placeholder={String(fromHeader ?? DEFAULT_THRESHOLDS[k])}
                  aria-invalid={problems[k] !== null}
                  onChange={(e) => setDraft({ ...draft, [k]: e.target.value })}
                />
                <span className="setting-help">
                  {WHAT[k]}. Default {DEFAULT_THRESHOLDS[k]}
                  {fromHeader !== undefined ? `, session header ${fromHeader}` : ''}; in force now {effective}.
                </span>
                {problems[k] !== null && <span className="fault-text">{problems[k]}</span>}
              </label>
            );
          })}
        </div>
        <label className="setting">
          <span className="setting-name">
            <code>scorer</code>
          </span>
          <select name="scorer" data-testid="scorer-setting" value={scorerDraft} onChange={(e) => setScorerDraft(e.target.value as ScorerMode)}>
            {SCORER_ORDER.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
          <span className="setting-help">Whose scores the analysis sees, as check --scorer. {SCORERS[scorerDraft]}.</span>
        </label>
        <div className="dialog-actions">
          <button type="button" className="btn ghost" onClick={() => setDraft(Object.fromEntries(THRESHOLD_KEYS.map((k) => [k, ''])))}>
            Clear my values
          </button>
          <span className="spacer" />
          <button type="button" className="btn ghost" onClick={() => setUi({ settingsOpen: false })}>
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={!valid}>
            Apply and re-analyse
          </button>
        </div>
      </form>
    </dialog>
  );
}

export function HelpDialog() {
  const open = useUi((s) => s.helpOpen);
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d === null) return;
    if (open && !d.open) d.showModal();
    else if (!open && d.open) d.close();
  }, [open]);
  const keys: [string, string][] = [
    ['← →', 'previous / next turn'],
    ['Shift + ← →', 'previous / next turn with a fault'],
    ['Home / End', 'first / last turn (End resumes following a live session)'],
    ['+ / −', 'zoom in / out around the cursor'],
    ['0', 'whole session'],
    ['F', 'follow live / pause'],
    ['Escape', 'close the span inspector or a dialog'],
    ['?', 'this help'],
    ['Tab', 'every control is reachable; Enter or Space activates'],
  ];
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="help-title" onClose={() => setUi({ helpOpen: false })}>
      <h2 id="help-title">Keyboard</h2>
      <table className="keys">
        <tbody>
          {keys.map(([k, v]) => (
            <tr key={k}>
              <th>
                <kbd>{k}</kbd>
              </th>
              <td>{v}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="dialog-actions">
        <span className="spacer" />
        <button type="button" className="btn primary" onClick={() => setUi({ helpOpen: false })}>
          Close
        </button>
      </div>
    </dialog>
  );
}
