// serve's live local sessions: the Claude Code and Codex files of the index written to in the
// last 10 minutes are followed by `watch` itself (startWatch, the same tailing, adapters,
// scoring and resume state), streamed into this relay, so `serve` alone shows a running
// session as it grows. What it remembers is kept in the relay's data folder, never in the
// agents' folders (docs/relay.md "Local sessions").
import path from 'node:path';
import type { LocalSessionIndex } from '../server/localSessions/localIndex.ts';
import { startWatch, type Watcher } from './watch.ts';

/** how recent a write makes a file live */
export const LIVE_WITHIN_MS = 10 * 60 * 1000;

export interface LocalFollowOptions {
  index: LocalSessionIndex;
  relayUrl: string;
  token: string | null;
  dataDir: string;
  pollMs?: number;
  log?: (line: string) => void;
}

export function followLocalSessions(o: LocalFollowOptions): Watcher {
  return startWatch({
    paths: [],
    // each poll also starts a look at the folders (at most every 2 s), so a new session is found without the page asking
    files: () => {
      o.index.refresh();
      return (
        o.index
          .recent(LIVE_WITHIN_MS)
          // watch tails the line-by-line transcripts and reads a Gemini CLI .json again whole when it changes
          .filter((f) => f.agent === 'claude-code' || f.agent === 'codex' || f.agent === 'gemini-cli')
          .map((f) => f.path)
      );
    },
    url: o.relayUrl,
    token: o.token,
    statePath: path.join(o.dataDir, 'local-sessions-follow.json'),
    pollMs: o.pollMs ?? 1000,
    onSession: (file, sessionId) => o.index.liveSessions.set(file, sessionId),
    ...(o.log === undefined ? {} : { log: o.log }),
  });
}
