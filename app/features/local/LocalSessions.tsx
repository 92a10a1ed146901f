// The home page's list of the agent sessions on this machine (docs/dashboard.md "Local
// sessions"): one row a session, newest first, a click opens it. The relay finds them; the
// list is fetched after the first paint and says, a line a folder, what could not be read.
// Every text here comes from the files: rendered as text, never as HTML.
import { useState } from 'react';
import type { LocalAgent, LocalFolder, LocalSessionList, LocalSessionRow } from '../../../src/protocol/localSessions.ts';
import { useLocalSessions } from '../../queries/localSessions.ts';
import { agentName, ago, fillWords, projectWords, sizeWords } from './localWords.ts';
import { openLocal } from './openLocal.ts';
import './local.css';

/** rows shown before "Show all" */
const FIRST_ROWS = 8;

/** Where each agent keeps its sessions: the folders serve searches, and SWE-agent's and mini-swe-agent's, to drop. */
const PLACES: [string, string][] = [
  ['Claude Code', '~/.claude/projects/<project>/<session>.jsonl'],
  ['Codex', '~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl'],
  ['Gemini CLI', '~/.gemini/tmp/<project hash>/chats/session-*.json(l)'],
  ['OpenHands', '~/.openhands/conversations/<id>/ (and the older app’s ~/.openhands/sessions/<id>/): one conversation a folder, listed above'],
  ['SWE-agent', 'trajectories/<user>/<run>/<instance>.traj: drop one here'],
  ['mini-swe-agent', '<output>/<instance>/<instance>.traj.json: drop one here'],
];

export function LocalSessions() {
  const q = useLocalSessions();
  const data = q.data;
  return (
    <section className="local" aria-labelledby="local-heading" data-testid="local-sessions">
      <h2 id="local-heading">Sessions on this machine</h2>
      <Status list={data} pending={q.isPending} failed={q.isError} />
      {/* "3 min ago" is counted from the answer's time, so a render is the same whenever it runs */}
      {data?.enabled === true && <Rows list={data} now={q.dataUpdatedAt} />}
      {data?.enabled === true && <FolderLines folders={data.folders} />}
      <div className="local-places">
        <h3>Where each agent keeps its sessions</h3>
        <dl>
          {PLACES.map(([agent, where]) => (
            <div key={agent}>
              <dt>{agent}</dt>
              <dd>
                <code>{where}</code>
              </dd>
            </div>
          ))}
        </dl>
      </div>
    </section>
  );
}

function Status({ list, pending, failed }: { list: LocalSessionList | null | undefined; pending: boolean; failed: boolean }) {
  if (pending) return <p className="muted">Looking for Claude Code, Codex, Gemini CLI and OpenHands sessions…</p>;
  if (failed || list === null || list === undefined) {
    return (
      <p className="muted">
        Run <code>npx context-health serve</code> and open the page it prints: it lists the Claude Code, Codex, Gemini CLI and OpenHands sessions on your
        machine here.
      </p>
    );
  }
  if (!list.enabled) return <p className="muted">Not listed: {list.reason ?? 'turned off'}.</p>;
  if (list.sessions.length === 0) {
    return (
      <p className="muted" data-testid="local-empty">
        {list.indexing ? 'Looking through the agents’ folders…' : 'No Claude Code, Codex, Gemini CLI or OpenHands session found in their folders.'}
      </p>
    );
  }
  return null;
}

function Rows({ list, now }: { list: LocalSessionList; now: number }) {
  const [all, setAll] = useState(false);
  if (list.sessions.length === 0) return null;
  const rows = all ? list.sessions : list.sessions.slice(0, FIRST_ROWS);
  return (
    <>
      <ul className="local-list" data-indexing={list.indexing}>
        {rows.map((r) => (
          <Row key={r.id} row={r} now={now} />
        ))}
      </ul>
      {list.sessions.length > FIRST_ROWS && (
        <button type="button" className="link" onClick={() => setAll(!all)}>
          {all ? 'Show fewer' : `Show all ${list.total} sessions`}
        </button>
      )}
    </>
  );
}

function Row({ row, now }: { row: LocalSessionRow; now: number }) {
  const [error, setError] = useState<string | null>(null);
  const open = (): void => {
    setError(null);
    openLocal(row).catch((e: unknown) => setError((e as Error).message));
  };
  const id = row.session_id === null ? null : row.session_id.slice(0, 8);
  return (
    <li>
      <button type="button" className="local-row" onClick={open} data-testid="local-session" data-agent={row.agent} data-live={row.live_session !== null}>
        <span className="local-line">
          <AgentChip agent={row.agent} />
          {row.live_session !== null && <span className="local-live">live</span>}
          <span className="local-title">{row.title ?? row.file_name}</span>
        </span>
        <span className="local-line muted small">
          {row.project !== null && <ProjectName project={row.project} />}
          {id !== null && <span title={row.session_id ?? undefined}>{id}</span>}
          <span title={new Date(row.modified_ms).toLocaleString('en-GB')}>{ago(row.modified_ms, now)}</span>
          <span>{sizeWords(row.bytes)}</span>
        </span>
        <Figures row={row} />
      </button>
      {error !== null && (
        <p className="local-problem" role="alert">
          Could not open it: {error}
        </p>
      )}
    </li>
  );
}

function ProjectName({ project }: { project: string }) {
  const words = projectWords(project);
  return (
    <span className="local-project" title={words.title}>
      {words.text}
    </span>
  );
}

function Figures({ row }: { row: LocalSessionRow }) {
  if (row.problem !== null) return <span className="local-line local-problem">This file {row.problem}</span>;
  const a = row.analysis;
  if (a === null) return <span className="local-line muted small">{row.analysis_note ?? 'analysing…'}</span>;
  return (
    <span className="local-line local-figures small" data-testid="local-figures">
      <span>
        {a.turns} call{a.turns === 1 ? '' : 's'}
      </span>
      <span>
        {a.compactions} compaction{a.compactions === 1 ? '' : 's'}
      </span>
      <span className={a.confirmed_losses > 0 ? 'local-loss' : undefined}>
        {a.confirmed_losses} confirmed loss{a.confirmed_losses === 1 ? '' : 'es'}
      </span>
      <span>{fillWords(a.peak_fill)}</span>
    </span>
  );
}

function AgentChip({ agent }: { agent: LocalAgent }) {
  return <span className={`agent-chip agent-${agent}`}>{agentName(agent)}</span>;
}

/** One line a folder that could not be read whole; the rest were listed. */
function FolderLines({ folders }: { folders: LocalFolder[] }) {
  const lines = folders.filter((f) => f.problem !== null);
  if (lines.length === 0) return null;
  return (
    <ul className="local-folders muted small" data-testid="local-folders">
      {lines.map((f) => (
        <li key={`${f.agent}:${f.path}`}>
          {agentName(f.agent)}: {f.problem}
        </li>
      ))}
    </ul>
  );
}
