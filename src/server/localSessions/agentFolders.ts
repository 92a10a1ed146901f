// Where each agent keeps its sessions (docs/relay.md "Local sessions"), and which files in
// those folders are sessions. A folder given with --sessions holds any of the three kinds,
// told by content.
import path from 'node:path';
import type { LocalAgent } from '../../protocol/localSessions.ts';
import { isAutoCompaction } from '../../ingest/adapters/claudeCodeFiles.ts';

export interface AgentFolder {
  agent: LocalAgent;
  /** the folder as configured (its real path is resolved when it is searched) */
  root: string;
  /** whether a sub-folder (its path relative to the root, split) is searched */
  descend(parts: readonly string[]): boolean;
  /** whether a file (its path relative to the root, split) is a session */
  accept(parts: readonly string[]): boolean;
}

/** The three agents' own folders under `home`. */
export function defaultAgentFolders(home: string): AgentFolder[] {
  return [
    {
      // ~/.claude/projects/<project>/<session>.jsonl and <session>/subagents/agent-<id>.jsonl;
      // an auto-compaction call (agent-acompact-*) re-sends the conversation to be summarised:
      // not a session, as `watch` skips it (claudeCodeFiles.ts)
      agent: 'claude-code',
      root: path.join(home, '.claude', 'projects'),
      descend: () => true,
      accept: (parts) => {
        const name = parts[parts.length - 1]!;
        return name.endsWith('.jsonl') && !isAutoCompaction(name);
      },
    },
    {
      // ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl (codex-rs rollout/recorder.rs)
      agent: 'codex',
      root: path.join(home, '.codex', 'sessions'),
      descend: () => true,
      accept: (parts) => /^rollout-.*\.jsonl(\.gz)?$/.test(parts[parts.length - 1]!),
    },
    {
      // ~/.gemini/tmp/<project hash>/chats/session-<time>-<id>.json, one JSON document; since
      // the JSONL recording, .jsonl (a metadata line, then one line a message), a sub-agent's
      // under chats/<parent session id>/ (gemini-cli chatRecordingService.ts)
      agent: 'gemini-cli',
      root: path.join(home, '.gemini', 'tmp'),
      descend: (parts) => parts.length === 1 || (parts[1] === 'chats' && parts.length <= 3),
      accept: (parts) => parts[1] === 'chats' && (parts.length === 3 || parts.length === 4) && /\.jsonl?$/.test(parts[parts.length - 1]!),
    },
  ];
}

/** A folder named with --sessions: any transcript file in it, the agent told by content. */
export function extraFolder(root: string): AgentFolder {
  return {
    agent: 'unknown',
    root: path.resolve(root),
    descend: () => true,
    accept: (parts) => {
      const name = parts[parts.length - 1]!;
      return /\.(jsonl|jsonl\.gz|json)$/.test(name) && !isAutoCompaction(name);
    },
  };
}
