// A home folder holding one session of each agent where the agent itself keeps it
// (docs/relay.md "Local sessions"), for the local-sessions tests, their e2e spec and bench:
// - Claude Code: ~/.claude/projects/<cwd with / as ->/<session id>.jsonl (codingSession.ts);
// - Codex: ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl (the committed rollout
//   fixture, test/fixtures/adapters/codex-rollout.jsonl, codex-rs 0.46 shape);
// - Gemini CLI: ~/.gemini/tmp/<sha256 of the project folder>/chats/session-<time>-<id8>.json,
//   the ConversationRecord document gemini-cli's chatRecordingService.ts writes (sessionId,
//   projectHash, startTime, lastUpdated, messages of type user / gemini with tokens).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { codingSession } from './codingSession.ts';

const CODEX_FIXTURE = fileURLToPath(new URL('../fixtures/adapters/codex-rollout.jsonl', import.meta.url));

export const CLAUDE_SESSION = '7f3c2a91-5b7e-4d2a-9c1e-0a8b6d4e2f10';
export const CODEX_SESSION = '0199a6c2-5b7e-7d20-9c41-3f2e8a1b6d09';
export const GEMINI_SESSION = 'c1d2e3f4-0a1b-4c2d-8e3f-5a6b7c8d9e0f';
export const PROJECT = '/work/shop';

export interface AgentHome {
  home: string;
  claude: string;
  codex: string;
  gemini: string;
}

export function writeAgentHome(home: string): AgentHome {
  const claude = path.join(home, '.claude', 'projects', PROJECT.replace(/\//g, '-'), `${CLAUDE_SESSION}.jsonl`);
  const codex = path.join(home, '.codex', 'sessions', '2025', '10', '04', `rollout-2025-10-04T09-12-01-${CODEX_SESSION}.jsonl`);
  const hash = crypto.createHash('sha256').update(PROJECT).digest('hex');
  const gemini = path.join(home, '.gemini', 'tmp', hash, 'chats', `session-2025-11-02T14-05-${GEMINI_SESSION.slice(0, 8)}.json`);
  for (const f of [claude, codex, gemini]) fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(claude, codingSession({ sessionId: CLAUDE_SESSION, cwd: PROJECT }));
  fs.copyFileSync(CODEX_FIXTURE, codex);
  fs.writeFileSync(gemini, JSON.stringify(geminiConversation(hash), null, 2));
  return { home, claude, codex, gemini };
}

function geminiConversation(projectHash: string): Record<string, unknown> {
  const messages: Record<string, unknown>[] = [];
  let t = Date.UTC(2025, 10, 2, 14, 5, 0);
  const at = (): string => new Date((t += 7000)).toISOString();
  messages.push({ id: 'm1', timestamp: at(), type: 'user', content: [{ text: 'Why does the checkout page render twice on load?' }] });
  for (let i = 0; i < 6; i++) {
    messages.push({
      id: `m${messages.length + 1}`,
      timestamp: at(),
      type: 'gemini',
      content: i === 5 ? 'The effect runs twice because the store is created inside the component.' : '',
      model: 'gemini-2.5-pro',
      tokens: { input: 9000 + i * 4200, output: 120, cached: 0, thoughts: 40, tool: 0, total: 9160 + i * 4200 },
      toolCalls:
        i === 5
          ? []
          : [
              {
                id: `read_file-${i}`,
                name: 'read_file',
                args: { absolute_path: `${PROJECT}/src/checkout/page${i}.tsx` },
                result: [{ functionResponse: { id: `read_file-${i}`, name: 'read_file', response: { output: `export function Page${i}() {}` } } }],
                status: 'success',
                timestamp: at(),
              },
            ],
    });
  }
  return { sessionId: GEMINI_SESSION, projectHash, startTime: messages[0]!.timestamp, lastUpdated: at(), messages };
}
