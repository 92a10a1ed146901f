// Where each agent keeps its sessions (docs/relay.md "Local sessions"), and which files in
// those folders are sessions. A folder given with --sessions holds any of the three kinds,
// told by content, and OpenHands conversation folders.
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
  /**
   * whether a sub-folder (split as above; [] is the root) may be an OpenHands conversation: it is
   * one when it holds an `events/` folder, and is then one row, not searched further
   */
  conversation?(parts: readonly string[]): boolean;
  /**
   * a folder that may hold anything (--sessions): a sub-folder with `events/` is a conversation
   * only with a `base_state.json`, a `metadata.json` or an `events/0.json` beside it, else it is
   * searched (a project's src/events/ hides nothing)
   */
  strictConversations?: boolean;
  /**
   * a folder the agent makes only in some setups (Codex's archive, Gemini CLI's sandbox): searched
   * whenever it exists, at every look (it may appear while the relay runs); a missing one is no
   * line "does not exist" in the listing
   */
  optional?: true;
}

/** Environment variables that move OpenHands' folders (agentFolders' OpenHands entries). */
export interface OpenHandsEnv {
  /** OpenHands-CLI locations.py: the persistence folder (default ~/.openhands) */
  OPENHANDS_PERSISTENCE_DIR?: string | undefined;
  /** OpenHands-CLI locations.py: the conversations folder (default <persistence>/conversations) */
  OPENHANDS_CONVERSATIONS_DIR?: string | undefined;
  /** the V0 app's file_store_path (openhands/core/config, FILE_STORE_PATH overrides it) */
  FILE_STORE_PATH?: string | undefined;
}

/** Environment variables that move the agents' folders (agentFolders' entries). */
export interface AgentEnv extends OpenHandsEnv {
  /** codex-rs utils/home-dir `find_codex_home`: Codex's home when set (default ~/.codex) */
  CODEX_HOME?: string | undefined;
  /** gemini-cli packages/core/src/utils/paths.ts `homedir()`: the home .gemini is in when set */
  GEMINI_CLI_HOME?: string | undefined;
}

/** The agents' own folders under `home`, or where `env` moves them. */
export function defaultAgentFolders(home: string, env: AgentEnv = process.env): AgentFolder[] {
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
    ...codexFolders(env.CODEX_HOME ? path.resolve(env.CODEX_HOME) : path.join(home, '.codex')),
    ...geminiFolders(env.GEMINI_CLI_HOME ? path.resolve(env.GEMINI_CLI_HOME) : home),
    ...openHandsFolders(home, env),
  ];
}

/**
 * Codex keeps its sessions under `<codex home>/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`
 * (codex-rs rollout/recorder.rs), `<codex home>` being $CODEX_HOME when set (Codex then reads and
 * writes only there), else ~/.codex. A session the user archived (`codex archive`, the app's
 * archive) is moved to `<codex home>/archived_sessions/` (codex-rs ARCHIVED_SESSIONS_SUBDIR),
 * where it stays the user's session: that folder is searched too, as an optional one (a machine
 * without it gets no line "does not exist"; the first archive made while the relay runs is found).
 */
function codexFolders(codexHome: string): AgentFolder[] {
  const folder = (root: string): AgentFolder => ({
    agent: 'codex',
    root,
    descend: () => true,
    accept: (parts) => /^rollout-.*\.jsonl(\.gz)?$/.test(parts[parts.length - 1]!),
  });
  return [folder(path.join(codexHome, 'sessions')), { ...folder(path.join(codexHome, 'archived_sessions')), optional: true }];
}

/**
 * Gemini CLI keeps its sessions under `<home>/.gemini/tmp/<project>/chats/`: `session-<time>-<id>.json`,
 * one JSON document; since the JSONL recording, `.jsonl` (a metadata line, then one line a
 * message), a sub-agent's under `chats/<parent session id>/` (chatRecordingService.ts). `<home>`
 * is $GEMINI_CLI_HOME when set (paths.ts `homedir()`). Inside the macOS Seatbelt sandbox
 * (SANDBOX=sandbox-exec) Gemini CLI 0.61 keeps them under `<home>/.cache/.gemini/tmp/` instead
 * (storage.ts `getGlobalRuntimeDir`): that folder is searched too, as an optional one.
 */
function geminiFolders(home: string): AgentFolder[] {
  const folder = (root: string): AgentFolder => ({
    agent: 'gemini-cli',
    root,
    descend: (parts) => parts.length === 1 || (parts[1] === 'chats' && parts.length <= 3),
    accept: (parts) => parts[1] === 'chats' && (parts.length === 3 || parts.length === 4) && /\.jsonl?$/.test(parts[parts.length - 1]!),
  });
  return [folder(path.join(home, '.gemini', 'tmp')), { ...folder(path.join(home, '.cache', '.gemini', 'tmp')), optional: true }];
}

const none = (): boolean => false;

/**
 * OpenHands keeps a conversation as a folder of one JSON file per event:
 * - V1 (the software-agent-sdk's CLI, OpenHands-CLI locations.py): `<persistence>/conversations/<id>/`
 *   with `base_state.json` and `events/event-<index>-<id>.json`; `<persistence>` is ~/.openhands
 *   or $OPENHANDS_PERSISTENCE_DIR, the conversations folder $OPENHANDS_CONVERSATIONS_DIR when set;
 * - V0 (the app before the SDK; openhands/storage/locations.py, its file_store_path default
 *   ~/.openhands since 0.44, June 2025, mounted from ~/.openhands-state before, $FILE_STORE_PATH
 *   when set): `sessions/<id>/events/<n>.json` (`users/<user>/conversations/<id>/` with a user).
 */
function openHandsFolders(home: string, env: OpenHandsEnv): AgentFolder[] {
  const store = (root: string): AgentFolder => ({
    agent: 'openhands',
    root,
    descend: (p) =>
      (p.length === 1 && (p[0] === 'conversations' || p[0] === 'sessions' || p[0] === 'users')) ||
      (p[0] === 'users' && (p.length === 2 || (p.length === 3 && p[2] === 'conversations'))),
    accept: none,
    conversation: (p) =>
      (p.length === 2 && (p[0] === 'conversations' || p[0] === 'sessions')) || (p.length === 4 && p[0] === 'users' && p[2] === 'conversations'),
  });
  const roots = [env.OPENHANDS_PERSISTENCE_DIR || path.join(home, '.openhands')];
  if (env.FILE_STORE_PATH) roots.push(env.FILE_STORE_PATH.replace(/^~(?=$|[\\/])/, home));
  const folders = [...new Set(roots.map((r) => path.resolve(r)))].map(store);
  // the V0 app in Docker before 0.44: optional, not a line "does not exist" for everyone
  const state = path.resolve(home, '.openhands-state');
  if (!folders.some((f) => f.root === state)) folders.push({ ...store(state), optional: true });
  if (env.OPENHANDS_CONVERSATIONS_DIR) {
    folders.push({
      agent: 'openhands',
      root: path.resolve(env.OPENHANDS_CONVERSATIONS_DIR),
      descend: none,
      accept: none,
      conversation: (p) => p.length === 1,
    });
  }
  return folders;
}

/** A folder named with --sessions: any transcript file in it, the agent told by content, and any OpenHands conversation folder. */
export function extraFolder(root: string): AgentFolder {
  return {
    agent: 'unknown',
    root: path.resolve(root),
    descend: () => true,
    conversation: () => true,
    strictConversations: true,
    accept: (parts) => {
      const name = parts[parts.length - 1]!;
      return /\.(jsonl|jsonl\.gz|json)$/.test(name) && !isAutoCompaction(name);
    },
  };
}
