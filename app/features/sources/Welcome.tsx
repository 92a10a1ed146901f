import { openLive, openSample } from '../../analysis.ts';
import { LocalSessions } from '../local/LocalSessions.tsx';
import { useRelaySessions } from '../../queries/sessions.ts';
import { SessionsOverview } from '../overview/SessionsOverview.tsx';
import { useOverview } from '../overview/overviewStore.ts';
import { FileButton } from './TopBar.tsx';

const SAMPLES: [string, string][] = [
  ['agents/claude-code-session.jsonl', 'a coding agent: two compactions, a confirmed loss'],
  ['all-faults.jsonl', 'every fault in its own window'],
  ['stale-scores.jsonl', 'seed 000: rewrites keep old scores'],
  ['collapse.jsonl', 'seed 002: relevance collapse, freeze'],
  ['drift-and-orphans.jsonl', 'paraphrase drift, orphaned summaries'],
  ['healthy.jsonl', 'a correct loop'],
  ['with-bad-lines.jsonl', 'bad lines among good ones'],
];

/** The empty state: what this is and the three ways in. */
export function Welcome() {
  const q = useRelaySessions();
  // kept from the last answer when the relay stops answering (TanStack Query keeps data on a failed refetch)
  const sessions = q.data ?? [];
  const lostAt = useOverview((s) => (s.connection === 'open' ? null : s.lostAt));
  // either channel losing the relay says so: the overview's WebSocket notices first, the 3 s poll a little later
  const unreachable = sessions.length > 0 && (q.isError || lostAt !== null);
  return (
    <main className="welcome">
      <div className="welcome-card">
        <h1>What did your agent&apos;s context window go through?</h1>
        <p>
          Context Health reads the sessions of <strong>Claude Code</strong>, <strong>Codex</strong>, <strong>Gemini CLI</strong>, <strong>OpenHands</strong> and{' '}
          <strong>SWE-agent</strong>: how full the window got, each compaction and what it lost, and whether the agent went back for it. For an agent loop that
          scores its own context, it also says, turn by turn, whether the relevance scores can be trusted, and what the harness should do: prune, recompute,
          freeze or drop.
        </p>
        <LocalSessions />
        <h2 className="ways-heading">Or open a session another way</h2>
        <div className="ways">
          <section>
            <h2>Drop a transcript</h2>
            <p>
              Drag a Claude Code, Codex or Gemini CLI session, OpenHands events, a SWE-agent <code>.traj</code>, a mini-swe-agent <code>.traj.json</code> or
              your harness&apos;s <code>.jsonl</code> (or <code>.jsonl.gz</code>, <code>.json</code>) anywhere on this page. It is read in chunks in a
              background worker; nothing is uploaded.
            </p>
            <FileButton className="btn primary" label="Choose a file…" testId="welcome-file-input" />
          </section>
          <section>
            <h2>Follow a live session</h2>
            {unreachable && (
              <p className="overview-unreachable" role="status" data-testid="live-unreachable">
                The relay is unreachable since {new Date(lostAt ?? q.errorUpdatedAt).toLocaleTimeString('en-GB')}, retrying. Its sessions as last listed:
              </p>
            )}
            {q.isError && sessions.length === 0 ? (
              <p className="muted">
                No relay answers at <code>/api</code>. Run <code>context-health serve</code> and open the page it prints, then stream into it with{' '}
                <code>context-health replay</code> or your harness.
              </p>
            ) : sessions.length === 0 ? (
              <p className="muted">
                {q.isPending ? 'Asking the relay…' : 'The relay has no session yet. Stream one with context-health replay <file> or from your harness.'}
              </p>
            ) : (
              <ul className={`session-list${unreachable ? ' unreachable' : ''}`}>
                {sessions.slice(0, 8).map((s) => (
                  <li key={s.session_id}>
                    <button type="button" className="btn" onClick={() => openLive(s.session_id)} data-testid="live-session">
                      {s.session_id}
                    </button>{' '}
                    <span className="muted">
                      {s.title ? `${s.title} · ` : ''}
                      {s.messages} messages, turn {s.last_turn ?? '—'}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section>
            <h2>Try a sample</h2>
            <ul className="session-list">
              {SAMPLES.map(([file, what]) => (
                <li key={file}>
                  <button type="button" className="link" onClick={() => openSample(`${import.meta.env.BASE_URL}samples/${file}`, file)}>
                    {file.replace(/^agents\//, '')}
                  </button>{' '}
                  <span className="muted">{what}</span>
                </li>
              ))}
            </ul>
          </section>
        </div>
        <p className="muted small">Keyboard: ← → step turns, Home/End jump, ? for all keys.</p>
      </div>
      {/* once the relay has answered, its table stays (greyed while it is unreachable) rather than giving way to first-run text */}
      {q.data !== undefined && <SessionsOverview />}
    </main>
  );
}
