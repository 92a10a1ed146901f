// serve's local sessions (docs/relay.md "Local sessions"): the agents' folders under the home
// (and --sessions folders) indexed, each file analysed in the background by the engine
// `check` runs, and the files written to in the last 10 minutes followed live into the relay
// by `watch`'s own code (localFollow.ts). On only where it is safe: the relay bound to
// loopback, or reads behind the token (docs/security.md "Local sessions").
import os from 'node:os';
import type { LocalAgent } from '../protocol/localSessions.ts';
import { isLoopbackHost } from '../server/accessPolicy.ts';
import { defaultAgentFolders, extraFolder } from '../server/localSessions/agentFolders.ts';
import { LocalSessionIndex, type AnalysisOutcome } from '../server/localSessions/localIndex.ts';
import { readThrough } from '../node/openRegular.ts';
import { checkTranscript, type CheckOptions, type CheckResult } from './check.ts';

export interface LocalSessionsChoice {
  /** --no-local-sessions */
  off: boolean;
  /** --sessions DIR… */
  extra: string[];
  host: string;
  tokenForReads: boolean;
}

/** Why local sessions stay off on this relay, or null when they are on. */
export function localSessionsRefusal(c: LocalSessionsChoice): string | null {
  if (c.off) return 'turned off (--no-local-sessions)';
  if (!isLoopbackHost(c.host) && !c.tokenForReads) {
    return `the relay binds ${c.host}, reachable from other machines: local sessions are listed only on loopback, or with --token-for-reads`;
  }
  return null;
}

export function openLocalIndex(c: LocalSessionsChoice, home = os.homedir()): LocalSessionIndex {
  return new LocalSessionIndex({
    folders: [...defaultAgentFolders(home), ...c.extra.map(extraFolder)],
    analyse: analyseLocal,
    projectCandidates: [home, process.cwd()],
  });
}

/**
 * How a row's file is checked: one thread, since the relay's own work goes on between the
 * file's pieces; no reference score for an agent's session, since a row shows none
 * (ScoringOptions.readsReferenceScores), nor any per-span figure (CheckOptions.readsSpanFigures).
 */
const ROW_CHECK = { userThresholds: {}, threads: 1, readsReferenceScores: false, readsSpanFigures: false } as const satisfies CheckOptions;

/**
 * A row's figures from the engine `check` runs (contract §6 report): the calls, the
 * compactions, the confirmed losses (§8.5) and the fullest call over the window (§8.7).
 */
export async function analyseLocal(file: string, agent: LocalAgent, inside?: string): Promise<AnalysisOutcome> {
  // an OpenHands conversation is its folder: check reads it as `check <folder>` does, each file
  // opened without following a final link and kept only when it is a regular file inside `inside`
  if (agent === 'openhands') return outcomeOf((await checkTranscript(file, { ...ROW_CHECK, ...(inside === undefined ? {} : { inside }) })).report);
  // check reads a FIFO or a device as a stream (it waits for a writer): a name that became one
  // since it was listed is not analysed, so the one-at-a-time analysis never stalls on it; and
  // check reads the descriptor that was checked, not the name again (a FIFO or a link renamed
  // over it after the check is never read)
  const { report } = await readThrough(file, (readPath) => checkTranscript(readPath, { ...ROW_CHECK, name: file }), inside);
  return outcomeOf(report);
}

function outcomeOf(report: CheckResult['report']): AnalysisOutcome {
  const s = report.sessions[0];
  if (s === undefined) {
    const first = report.input_errors[0];
    return { analysis: null, note: first === undefined ? 'no model call in it yet' : `not analysed: line ${first.line}: ${first.message}` };
  }
  const compactions = s.compactions ?? [];
  const window = s.context_window?.tokens ?? null;
  const peak = s.metrics.reduce((m, t) => Math.max(m, t.tokens_total), 0);
  return {
    analysis: {
      turns: s.turns,
      compactions: compactions.length,
      confirmed_losses: compactions.reduce((n, c) => n + c.items.filter((i) => i.confirmed).length, 0),
      peak_fill: window === null || window <= 0 ? null : peak / window,
    },
    note: null,
  };
}
