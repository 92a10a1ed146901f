// `GET /api/local` (docs/relay.md "Local sessions"): the agent sessions found on the relay's
// machine, where each agent keeps them. Types only: the relay writes them, the page reads them.

/**
 * The agents whose folders are searched; `unknown` is a file of a --sessions folder not yet told
 * by content. An `openhands` row is a conversation folder (one JSON file per event), sent as one
 * JSON Lines body.
 */
export type LocalAgent = 'claude-code' | 'codex' | 'gemini-cli' | 'openhands' | 'unknown';

/** What the background analysis (the engine `check` runs) found in the file, once it ran. */
export interface LocalAnalysis {
  turns: number;
  compactions: number;
  /** lost items the agent went back for (contract §8.5) */
  confirmed_losses: number;
  /** the fullest call's tokens over the context window, 0..1+ (null: the window is unknown) */
  peak_fill: number | null;
}

export interface LocalSessionRow {
  /** opaque (a hash of the path): a request names a row by it, never by a path */
  id: string;
  agent: LocalAgent;
  /** the working directory the agent ran in, or a Gemini CLI project hash when it cannot be resolved; null when unknown */
  project: string | null;
  /** the first prompt, or the title the agent gave the session */
  title: string | null;
  /** the agent's session id (null when the file names none) */
  session_id: string | null;
  /** the file's name, for the page's source bar (an OpenHands conversation: `<its folder's name>.jsonl`, the body it is sent as) */
  file_name: string;
  /** the file's size (an OpenHands conversation: its event files' and its state's) */
  bytes: number;
  /** the file's modification time, ms since the epoch (an OpenHands conversation: its newest event's or state's) */
  modified_ms: number;
  /** written to in the last 10 minutes and followed live into the relay: the relay's session id */
  live_session: string | null;
  /** why the file could not be read (unreadable, not an agent's transcript); null when it was */
  problem: string | null;
  /** null while not analysed (queued, or too large to analyse in the background) */
  analysis: LocalAnalysis | null;
  /** why there is no analysis, when there will be none (too large, the engine failed) */
  analysis_note: string | null;
}

/** One searched folder: where it is and, when it could not be searched whole, why. */
export interface LocalFolder {
  agent: LocalAgent;
  path: string;
  /** missing, unreadable, a symbolic-link loop, or files left out past the limit; null when all was read */
  problem: string | null;
  files: number;
}

export interface LocalSessionList {
  /** false: the relay does not list local sessions (turned off, or not safe on this bind) */
  enabled: boolean;
  /** why it is off, when it is */
  reason: string | null;
  /** the first index is still being built: what is listed is what is known so far */
  indexing: boolean;
  folders: LocalFolder[];
  /** newest first, at most `limit` */
  sessions: LocalSessionRow[];
  /** rows known in all (more than listed when past the limit) */
  total: number;
}
