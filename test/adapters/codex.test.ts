// docs/adapters.md "Codex CLI" through the doors a user opens: `check` on a rollout (the real
// executable), and `watch` following a rollout as Codex writes it into a folder shaped like
// ~/.codex/sessions/YYYY/MM/DD, next to a Claude Code transcript, into a real relay.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkTranscript } from '../../src/cli/check.ts';
import { startWatch } from '../../src/cli/watch.ts';
import type { CheckOutput } from '../../src/core/checkOutput.ts';
import { ROOT, runCli } from '../cli/runCli.ts';
import { tempDir, testRelay } from '../relay/helpers.ts';

const FIXTURE = path.join(ROOT, 'test/fixtures/adapters/codex-rollout.jsonl');
const CLAUDE = path.join(ROOT, 'test/fixtures/adapters/claude-code.jsonl');

/** The fixture's model calls: each token count whose usage is new, by its own input tokens. */
function callInputs(file: string): number[] {
  const inputs: number[] = [];
  let last = '';
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    let r: { type?: string; payload?: { type?: string; info?: { total_token_usage: unknown; last_token_usage: { input_tokens: number } } | null } };
    try {
      r = JSON.parse(line) as typeof r;
    } catch {
      continue;
    }
    const info = r.type === 'event_msg' && r.payload?.type === 'token_count' ? r.payload.info : null;
    if (info === null || info === undefined || info.last_token_usage.input_tokens <= 0 || JSON.stringify(info.total_token_usage) === last) continue;
    last = JSON.stringify(info.total_token_usage);
    inputs.push(info.last_token_usage.input_tokens);
  }
  return inputs;
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('check on a Codex CLI rollout', () => {
  it('check --json: told by content, one turn per model call, each with the call’s exact token count', async () => {
    const run = await runCli(['check', '--json', FIXTURE]);
    const report = JSON.parse(run.stdout) as CheckOutput & { adapter: { format: string; skipped_records: Record<string, number> } };
    expect(report.input_errors).toEqual([]);
    expect(report.adapter.format).toBe('codex');
    expect(report.adapter.skipped_records['truncated last line']).toBe(1);
    const session = report.sessions[0]!;
    expect(session.session_id).toBe('0199a6c2-5b7e-7d20-9c41-3f2e8a1b6d09');
    expect(session.metrics.map((m) => m.tokens_total)).toEqual(callInputs(FIXTURE));
    // imported: the reference scorer scores it (contract §7 --scorer auto)
    expect(session.metrics.every((m) => m.n_scored > 0)).toBe(true);
    const forced = JSON.parse((await runCli(['check', '--json', '--from', 'codex', FIXTURE])).stdout) as CheckOutput;
    expect(forced.sessions).toEqual(report.sessions);
  });

  it('the human output names the format and what it left out', async () => {
    const human = await runCli(['check', FIXTURE]);
    expect(human.stdout).toMatch(/8 turns, 0 input errors/);
    expect(human.stdout).toMatch(/ferris-cache — Fix the failing eviction test/);
    expect(human.stdout).toMatch(/Read as a Codex CLI rollout/);
    expect(human.stdout).toMatch(/Records not mapped: .*1 response_item:ghost_snapshot/);
  });
});

describe('watch on ~/.codex/sessions', () => {
  it('follows a growing rollout (and a Claude Code transcript beside it), each read by its own adapter; the relay’s session analyses as check of the whole file', async () => {
    const relay = await testRelay();
    cleanup.push(() => relay.close());
    const home = tempDir('ch-watch-codex-');
    const sessions = path.join(home, '.codex', 'sessions');
    const file = path.join(sessions, '2025', '10', '04', 'rollout-2025-10-04T09-12-00-0199a6c2-5b7e-7d20-9c41-3f2e8a1b6d09.jsonl');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const claude = path.join(home, 'projects', 'cc-beside.jsonl');
    fs.mkdirSync(path.dirname(claude), { recursive: true });
    fs.copyFileSync(CLAUDE, claude);
    const lines = fs.readFileSync(FIXTURE, 'utf8').split('\n');
    const complete = lines.slice(0, -1);

    const watcher = startWatch({ paths: [sessions, path.dirname(claude)], url: relay.url, statePath: path.join(home, 'state.json'), pollMs: 20 });
    cleanup.push(() => watcher.stop());
    // the file appears empty, then its first record arrives in two writes
    fs.writeFileSync(file, '');
    await watcher.poll();
    fs.appendFileSync(file, complete[0]!.slice(0, 25));
    await watcher.poll();
    fs.appendFileSync(file, complete[0]!.slice(25) + '\n');
    for (const line of complete.slice(1)) {
      fs.appendFileSync(file, line + '\n');
      await watcher.poll();
    }
    fs.appendFileSync(file, lines[lines.length - 1]!); // being written: not sent
    await watcher.poll();

    const stored = path.join(relay.dataDir, 'sessions', '0199a6c2-5b7e-7d20-9c41-3f2e8a1b6d09.jsonl');
    const storedLines = fs.readFileSync(stored, 'utf8').trim().split('\n');
    expect(storedLines).toHaveLength(1 + 8); // the header and one snapshot per call, each once
    const viaRelay = await checkTranscript(stored, { userThresholds: {} });
    const whole = await checkTranscript(FIXTURE, { userThresholds: {} });
    expect(viaRelay.report.sessions).toEqual(whole.report.sessions);
    expect(viaRelay.report.input_errors).toEqual([]);
    // the Claude Code transcript beside it still went through the Claude Code adapter (its sessionId names it)
    const claudeStored = await checkTranscript(path.join(relay.dataDir, 'sessions', 'cc-fixture.jsonl'), { userThresholds: {} });
    expect(claudeStored.report.sessions).toEqual((await checkTranscript(CLAUDE, { userThresholds: {} })).report.sessions);
  });
});
