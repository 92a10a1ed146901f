// A coding agent's session as Claude Code writes it (TranscriptBuilder's real-shaped records,
// docs/adapters.md "Claude Code"), for the coding-agent sample (scripts/write-samples.ts), the
// local-sessions tests and their bench: a prompt, file reads and commands that fill the
// window, an auto-compaction whose summary forgets a file the agent then reads again (a
// confirmed loss, contract §8.5), and a second auto-compaction. Deterministic.
import { TranscriptBuilder } from './claudeCodeTranscript.ts';

export interface CodingSessionOptions {
  sessionId?: string;
  /** the working directory every record names */
  cwd?: string;
  /** extra calls after the second compaction (the e2e appends more to move a live page) */
  tail?: number;
}

const FIRST_SUMMARY =
  'Summary of the work so far: the flaky login test fails because src/auth/session.ts refreshes the cookie after the token expires. ' +
  'The test in tests/login.test.ts was made to wait for the refresh; the fix in session.ts is half done.';
const SECOND_SUMMARY =
  'Summary: session.ts now refreshes the cookie before expiry and login.test.ts passes 50 runs in a row. Left: the retry limit in src/net/retry.ts.';

export function codingSession(o: CodingSessionOptions = {}): string {
  const b = new TranscriptBuilder(o.sessionId ?? '7f3c2a91-5b7e-4d2a-9c1e-0a8b6d4e2f10');
  b.prompt('Fix the flaky login test: it fails about one run in ten on CI. Start with src/auth/session.ts.');
  const read = (path: string): Record<string, unknown> => b.tool('Read', { file_path: path });
  const bash = (command: string): Record<string, unknown> => b.tool('Bash', { command });
  // the first stretch: reads and test runs fill the window toward Claude Code's auto-compaction point
  b.toolCall(18_000, [read('/work/shop/src/auth/session.ts')], 'export function refresh(cookie) { /* … */ }');
  b.toolCall(31_000, [read('/work/shop/tests/login.test.ts')], "it('logs in', async () => { /* … */ })");
  b.toolCall(44_000, [read('/work/shop/docs/notes.md')], 'CI runs tests in parallel; the token lives 30 s there.');
  for (let i = 0; i < 8; i++)
    b.toolCall(58_000 + i * 13_000, [bash('npm test -- login')], `run ${i + 1}: ${i % 3 === 0 ? 'FAIL' : 'ok'} (token expired before refresh)`);
  b.call(163_000, [{ type: 'text', text: 'The refresh races the expiry; the context is nearly full.' }]);
  b.boundary('auto', 167_000);
  b.summary(FIRST_SUMMARY);
  // the summary kept session.ts and login.test.ts but not notes.md: the agent goes back for it
  b.toolCall(24_000, [read('/work/shop/docs/notes.md')], 'CI runs tests in parallel; the token lives 30 s there.');
  b.toolCall(36_000, [b.tool('Edit', { file_path: '/work/shop/src/auth/session.ts', old_string: 'expiry', new_string: 'expiry - 5000' })], 'edited');
  for (let i = 0; i < 8; i++) b.toolCall(52_000 + i * 14_000, [bash('npm test -- login --repeat 50')], `${i + 1}: 50/50 passed`);
  b.call(166_000, [{ type: 'text', text: 'Login is fixed; the retry limit is next.' }]);
  b.boundary('auto', 169_000);
  b.summary(SECOND_SUMMARY);
  b.toolCall(22_000, [read('/work/shop/src/net/retry.ts')], 'export const MAX_RETRIES = 3;');
  for (let i = 0; i < (o.tail ?? 2); i++) b.toolCall(30_000 + i * 4_000, [bash('npm test')], 'all tests passed');
  const cwd = o.cwd ?? '/work/shop';
  for (const r of b.records) r.cwd = cwd;
  return b.text();
}
