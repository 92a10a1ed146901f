// The Alerts panel, opened from the sessions overview: the relay's alert rules (list, add,
// remove), and the alert history, each firing linked to its session at that turn
// (docs/dashboard.md "Alerts panel"). Changing rules is a write: it sends the relay token
// from the overview's "relay token" field; a 401/403 is shown as "a token is needed".
// Session ids, titles and what a firing says come from harnesses: rendered as text only.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { SIGNAL_INFO } from '../../signalInfo.ts';
import { useOverview } from '../overview/overviewStore.ts';
import { describeRule, EMPTY_FORM, ruleFromForm, type RuleForm } from './ruleForm.ts';
import { RemoveRule } from './RemoveRule.tsx';
import { addRule, fetchHistory, fetchRules, firingHref, removeRule, RelayWriteError } from './relayWrites.ts';

const SIGNALS = Object.keys(SIGNAL_INFO);

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function AlertsPanel() {
  const client = useQueryClient();
  const rules = useQuery({ queryKey: ['relay', 'alert-rules'], queryFn: fetchRules });
  const [listError, setListError] = useState<string | null>(null);

  const remove = async (id: string): Promise<void> => {
    try {
      await removeRule(id);
      setListError(null);
    } catch (err) {
      // a rule someone else already removed: the list is refreshed below either way
      if (!(err instanceof RelayWriteError && err.status === 404)) setListError(message(err));
    }
    await client.invalidateQueries({ queryKey: ['relay', 'alert-rules'] });
  };

  return (
    <section className="alerts-panel" aria-label="Alerts" data-testid="alerts-panel">
      <header className="alerts-head">
        <h2>Alerts</h2>
        <span className="muted">evaluated by the relay on every snapshot, with no page open</span>
      </header>
      <div className="alerts-grid">
        <div>
          <h3>Rules</h3>
          {rules.isError && <p className="error">{message(rules.error)}</p>}
          {rules.data?.length === 0 && <p className="muted">No rules yet.</p>}
          <ul className="alert-rules" data-testid="alert-rules">
            {rules.data?.map((r) => (
              <li key={r.id} data-testid="alert-rule" data-rule={r.id}>
                <span className="rule-text">{describeRule(r)}</span> <RemoveRule id={r.id} onRemove={remove} />
              </li>
            ))}
          </ul>
          {listError !== null && (
            <p className="error" role="alert" data-testid="alert-rules-error">
              {listError}
            </p>
          )}
          <AddRuleForm />
        </div>
        <AlertHistory />
      </div>
    </section>
  );
}

/** "Add a rule": the fields of the kind of rule chosen, sent to the relay (a write: the relay token goes with it). */
function AddRuleForm() {
  const client = useQueryClient();
  const [form, setForm] = useState<RuleForm>(EMPTY_FORM);
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<RuleForm>): void => setForm((f) => ({ ...f, ...patch }));

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const parsed = ruleFromForm(form);
    if ('error' in parsed) {
      setFormError(parsed.error);
      return;
    }
    setBusy(true);
    try {
      await addRule(parsed.rule);
      setFormError(null);
      await client.invalidateQueries({ queryKey: ['relay', 'alert-rules'] });
    } catch (err) {
      setFormError(message(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="alert-form" onSubmit={(e) => void submit(e)} data-testid="alert-form">
      <h3>Add a rule</h3>
      <label>
        watch{' '}
        <select value={form.kind} onChange={(e) => set({ kind: e.target.value as RuleForm['kind'] })} data-testid="rule-kind">
          <option value="signal">a signal</option>
          <option value="action">the verdict's action</option>
          <option value="baseline">score spread below baseline</option>
        </select>
      </label>
      <KindFields form={form} set={set} />
      <label>
        for{' '}
        <input className="short" inputMode="numeric" value={form.forTurns} onChange={(e) => set({ forTurns: e.target.value })} data-testid="rule-for-turns" />{' '}
        turns in a row
      </label>
      <label>
        session <input placeholder="every session" value={form.sessionId} onChange={(e) => set({ sessionId: e.target.value })} data-testid="rule-session" />
      </label>
      <label>
        webhook{' '}
        <input
          type="url"
          placeholder="optional http(s) URL"
          value={form.webhook}
          onChange={(e) => set({ webhook: e.target.value })}
          data-testid="rule-webhook"
        />
      </label>
      <button type="submit" disabled={busy} data-testid="rule-add">
        Add rule
      </button>
      {formError !== null && (
        <p className="error" role="alert" data-testid="alert-form-error">
          {formError}
        </p>
      )}
    </form>
  );
}

/** What fired, newest first, each linked to its session at that turn. */
function AlertHistory() {
  // a new firing on the overview channel refetches the history
  const newest = useOverview((s) => s.alerts[0]?.id ?? '');
  const history = useQuery({ queryKey: ['relay', 'alert-history', newest], queryFn: () => fetchHistory() });
  return (
    <div>
      <h3>History</h3>
      {history.isError && <p className="error">{message(history.error)}</p>}
      {history.data?.length === 0 && <p className="muted">Nothing has fired yet.</p>}
      <ul className="alert-history" data-testid="alert-history">
        {history.data?.map((a) => (
          <li key={a.id} data-testid="alert-firing">
            <span className={`sev sev-${a.severity}`}>{a.severity}</span> <time dateTime={a.fired_at}>{new Date(a.fired_at).toLocaleString()}</time>{' '}
            <strong>{a.title ?? a.session_id}</strong>
            {a.title !== null && <span className="muted"> {a.session_id}</span>}: {a.what} <a href={firingHref(a)}>turn {a.turn}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The fields of one kind of rule: a signal (and its least severity), the verdict's action, or the spread's baseline. */
function KindFields({ form, set }: { form: RuleForm; set: (patch: Partial<RuleForm>) => void }) {
  return (
    <>
      {form.kind === 'signal' && (
        <>
          <label>
            signal{' '}
            <select value={form.signal} onChange={(e) => set({ signal: e.target.value })} data-testid="rule-signal">
              <option value="any">any</option>
              {SIGNALS.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <label>
            min severity{' '}
            <select value={form.minSeverity} onChange={(e) => set({ minSeverity: e.target.value as RuleForm['minSeverity'] })} data-testid="rule-severity">
              <option value="">any</option>
              <option value="info">info</option>
              <option value="warning">warning</option>
              <option value="fault">fault</option>
            </select>
          </label>
        </>
      )}
      {form.kind === 'action' && (
        <label>
          action{' '}
          <select value={form.action} onChange={(e) => set({ action: e.target.value as RuleForm['action'] })} data-testid="rule-action">
            <option value="freeze">freeze</option>
            <option value="recompute">recompute</option>
            <option value="prune_ok">prune_ok</option>
          </select>
        </label>
      )}
      {form.kind === 'baseline' && (
        <>
          <label>
            below{' '}
            <input className="short" inputMode="decimal" value={form.percent} onChange={(e) => set({ percent: e.target.value })} data-testid="rule-percent" />%
          </label>
          <label>
            of the median of the first{' '}
            <input
              className="short"
              inputMode="numeric"
              value={form.baselineTurns}
              onChange={(e) => set({ baselineTurns: e.target.value })}
              data-testid="rule-baseline-turns"
            />{' '}
            turns
          </label>
        </>
      )}
    </>
  );
}
