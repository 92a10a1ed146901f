// serve's live local sessions: a Claude Code file written to in the last 10 minutes is followed
// by watch's own code into the relay, its row names the relay session, and it grows as the
// file does; an older file is left alone (docs/relay.md "Local sessions").
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { followLocalSessions } from '../../src/cli/localFollow.ts';
import { openLocalIndex } from '../../src/cli/localSessions.ts';
import { CLAUDE_SESSION, CODEX_SESSION, PROJECT, writeAgentHome } from '../adapters/agentHome.ts';
import { codingSession } from '../adapters/codingSession.ts';
import { relaysPerTest, tempDir } from './helpers.ts';

const relay = relaysPerTest();

describe('followLocalSessions', () => {
  it('follows the recent Claude Code file into the relay and grows with it; an old file is not followed', async () => {
    const agents = writeAgentHome(tempDir('ch-home-'));
    const old = new Date('2025-11-02T15:00:00Z');
    fs.utimesSync(agents.codex, old, old);
    const r = await relay();
    const index = openLocalIndex({ off: false, extra: [], host: '127.0.0.1', tokenForReads: false }, agents.home);
    const follower = followLocalSessions({ index, relayUrl: r.url, token: null, dataDir: r.dataDir, pollMs: 50 });
    try {
      const turnOf = async (id: string): Promise<number | null> => (await r.store.list()).find((s) => s.id === id)?.lastTurn ?? null;
      await expect.poll(() => turnOf(CLAUDE_SESSION), { timeout: 20_000 }).toBe(26);
      expect(index.list().sessions.find((s) => s.agent === 'claude-code')?.live_session).toBe(CLAUDE_SESSION);
      fs.writeFileSync(agents.claude, codingSession({ sessionId: CLAUDE_SESSION, cwd: PROJECT, tail: 3 }));
      await expect.poll(() => turnOf(CLAUDE_SESSION), { timeout: 20_000 }).toBe(27);
      expect(await turnOf(CODEX_SESSION)).toBeNull();
      expect(index.list().sessions.find((s) => s.agent === 'codex')?.live_session).toBeNull();
    } finally {
      await follower.stop();
      index.close();
    }
    // what the follower remembers is in the relay's data folder, not the agents'
    expect(fs.existsSync(`${r.dataDir}/local-sessions-follow.json`)).toBe(true);
  });
});
