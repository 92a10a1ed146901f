// The words of a local-session row: the agent's name, how long ago, how big, how full.
import type { LocalAgent } from '../../../src/protocol/localSessions.ts';

const NAMES: Record<LocalAgent, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'gemini-cli': 'Gemini CLI',
  openhands: 'OpenHands',
  unknown: 'a file',
};

export function agentName(agent: LocalAgent): string {
  return NAMES[agent];
}

/** "just now", "4 min ago", "3 h ago", "2 days ago", then the date. */
export function ago(ms: number, now: number): string {
  const s = Math.max(0, (now - ms) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 14 * 86_400) return `${Math.floor(s / 86_400)} day${s < 2 * 86_400 ? '' : 's'} ago`;
  return new Date(ms).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
}

/** Gemini CLI's project hash, shown when no folder was found for it (docs/relay.md "Local sessions"). */
const PROJECT_HASH = /^[0-9a-f]{64}$/;

/** A row's project: its folder, or for a bare hash its first 8 digits (the whole in `title`). */
export function projectWords(project: string): { text: string; title: string | undefined } {
  if (!PROJECT_HASH.test(project)) return { text: project, title: undefined };
  return { text: `project ${project.slice(0, 8)}…`, title: `Gemini CLI names only a hash of the project folder: ${project}` };
}

export function sizeWords(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(0)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

/** contract §8.7: the fullest call over the window, "peak 83% of the window"; unknown window: said so. */
export function fillWords(fill: number | null): string {
  return fill === null ? 'window size unknown' : `peak ${Math.round(fill * 100)}% of the window`;
}
