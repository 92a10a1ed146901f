// serve's local sessions (docs/relay.md "Local sessions", docs/security.md): the index of the
// agents' folders, its limits and its refusals, and the routes that list and send a row.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LocalSessionList } from '../../src/protocol/localSessions.ts';
import { analyseLocal, localSessionsRefusal, openLocalIndex } from '../../src/cli/localSessions.ts';
import { defaultAgentFolders } from '../../src/server/localSessions/agentFolders.ts';
import type { FoundFile } from '../../src/server/localSessions/folderWalk.ts';
import { LocalSessionIndex } from '../../src/server/localSessions/localIndex.ts';
import { localRoutes } from '../../src/server/localSessions/localRoutes.ts';
import { CLAUDE_SESSION, CODEX_SESSION, GEMINI_SESSION, PROJECT, writeAgentHome } from '../adapters/agentHome.ts';
import { codingSession } from '../adapters/codingSession.ts';
import { relaysPerTest, tempDir } from './helpers.ts';

const choice = { off: false, extra: [], host: '127.0.0.1', tokenForReads: false };

async function indexed(home: string, extra: string[] = []): Promise<{ index: LocalSessionIndex; list: LocalSessionList }> {
  const index = openLocalIndex({ ...choice, extra }, home);
  await index.update();
  return { index, list: index.list() };
}

/** Every file under `dir` with its size and mtime: what "nothing was written" compares. */
function treeOf(dir: string): string[] {
  const out: string[] = [];
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const st = fs.lstatSync(path.join(dir, name));
    out.push(`${name} ${st.size} ${st.mtimeMs} ${st.mode}`);
  }
  return out.sort();
}

const row = (list: LocalSessionList, agent: string) => list.sessions.find((s) => s.agent === agent);

describe('the index of the agents’ folders', () => {
  it('lists a Claude Code, a Codex and a Gemini CLI session from their own folders, with project, title and id', async () => {
    const { home } = writeAgentHome(tempDir('ch-home-'));
    const { list } = await indexed(home);
    expect(list.indexing).toBe(false);
    expect(list.sessions.map((s) => s.agent).sort()).toEqual(['claude-code', 'codex', 'gemini-cli']);
    expect(row(list, 'claude-code')).toMatchObject({
      project: PROJECT,
      session_id: CLAUDE_SESSION,
      title: 'Fix the flaky login test: it fails about one run in ten on CI. Start with src/auth/session.ts.',
      problem: null,
    });
    // the prompt after Codex's own injected messages (AGENTS.md, environment context)
    expect(row(list, 'codex')).toMatchObject({
      project: '/home/dev/ferris-cache',
      session_id: CODEX_SESSION,
      title: 'Fix the failing eviction test in src/lru.rs and make cargo test pass',
    });
    // the project hash is resolved: it is the sha256 of the Claude Code session's working directory
    expect(row(list, 'gemini-cli')).toMatchObject({ project: PROJECT, session_id: GEMINI_SESSION, title: 'Why does the checkout page render twice on load?' });
    expect(list.folders.filter((f) => f.agent !== 'openhands').every((f) => f.problem === null)).toBe(true);
    // no OpenHands here (test/relay/localOpenHands.test.ts lists its conversations)
    expect(list.folders.find((f) => f.agent === 'openhands')?.problem).toBe(`${path.join(home, '.openhands')} does not exist (no sessions of this agent here)`);
  });

  it('a title the user gave (custom-title, the last one) wins over the first prompt; a summary record comes next', async () => {
    const home = tempDir('ch-home-');
    const dir = path.join(home, '.claude', 'projects', '-p');
    fs.mkdirSync(dir, { recursive: true });
    const extra = [
      JSON.stringify({ type: 'custom-title', customTitle: 'first name', sessionId: 's1' }),
      JSON.stringify({ type: 'summary', summary: 'Login test fix', leafUuid: 'r3' }),
      JSON.stringify({ type: 'custom-title', customTitle: 'login flake', sessionId: 's1' }),
    ];
    fs.writeFileSync(path.join(dir, 'a.jsonl'), codingSession({ sessionId: 's1' }) + extra.join('\n') + '\n');
    fs.writeFileSync(path.join(dir, 'b.jsonl'), codingSession({ sessionId: 's2' }) + extra[1] + '\n');
    const { list } = await indexed(home);
    expect(list.sessions.find((s) => s.session_id === 's1')?.title).toBe('login flake');
    expect(list.sessions.find((s) => s.session_id === 's2')?.title).toBe('Login test fix');
  });

  it('is incremental: an unchanged size and mtime is not read again; a changed one is', async () => {
    const { home, claude } = writeAgentHome(tempDir('ch-home-'));
    fs.utimesSync(claude, 1_800_000_000, 1_800_000_000);
    const { index } = await indexed(home);
    // same size, same mtime, other words: the index keeps what it read
    const text = fs.readFileSync(claude, 'utf8').replace('Fix the flaky login test', 'Fix the FLAKY login test');
    fs.writeFileSync(claude, text);
    fs.utimesSync(claude, 1_800_000_000, 1_800_000_000);
    await index.update();
    expect(row(index.list(), 'claude-code')?.title).toMatch(/^Fix the flaky/);
    fs.appendFileSync(claude, '\n');
    await index.update();
    expect(row(index.list(), 'claude-code')?.title).toMatch(/^Fix the FLAKY/);
  });

  it('analyses each row with check’s engine: turns, compactions, confirmed losses, peak fill', async () => {
    const { home } = writeAgentHome(tempDir('ch-home-'));
    const { index } = await indexed(home);
    await expect.poll(() => row(index.list(), 'claude-code')?.analysis, { timeout: 20_000 }).not.toBeNull();
    expect(row(index.list(), 'claude-code')?.analysis).toEqual({ turns: 26, compactions: 2, confirmed_losses: 1, peak_fill: 166_000 / 200_000 });
    await expect.poll(() => row(index.list(), 'codex')?.analysis?.turns ?? null, { timeout: 20_000 }).toBeGreaterThan(0);
    index.close();
  });

  it('a missing folder is one line; the other agents are listed', async () => {
    const home = tempDir('ch-home-');
    fs.mkdirSync(path.join(home, '.codex', 'sessions'), { recursive: true });
    fs.writeFileSync(path.join(home, '.codex', 'sessions', 'rollout-x.jsonl'), fs.readFileSync(writeAgentHome(tempDir('ch-home-')).codex));
    const { list } = await indexed(home);
    expect(list.sessions.map((s) => s.agent)).toEqual(['codex']);
    const claude = list.folders.find((f) => f.agent === 'claude-code')!;
    expect(claude.problem).toBe(`${path.join(home, '.claude', 'projects')} does not exist (no sessions of this agent here)`);
    expect(list.folders.find((f) => f.agent === 'codex')!.problem).toBeNull();
  });

  it('CODEX_HOME and GEMINI_CLI_HOME move the folders searched, as they move the agents themselves', () => {
    const roots = (env: Record<string, string>) =>
      defaultAgentFolders('/home/u', env)
        .filter((f) => f.agent === 'codex' || f.agent === 'gemini-cli')
        .map((f) => `${f.root}${f.optional === true ? ' (optional)' : ''}`);
    expect(roots({})).toEqual([
      '/home/u/.codex/sessions',
      '/home/u/.codex/archived_sessions (optional)',
      '/home/u/.gemini/tmp',
      '/home/u/.cache/.gemini/tmp (optional)',
    ]);
    expect(roots({ CODEX_HOME: '/data/codex', GEMINI_CLI_HOME: '/data/g' })).toEqual([
      '/data/codex/sessions',
      '/data/codex/archived_sessions (optional)',
      '/data/g/.gemini/tmp',
      '/data/g/.cache/.gemini/tmp (optional)',
    ]);
  });

  it('an optional folder made while the relay runs (the first Codex archive, the Gemini CLI sandbox) is searched at the next look; missing, it is no line', async () => {
    const { home, codex, gemini } = writeAgentHome(tempDir('ch-home-'));
    const index = openLocalIndex({ ...choice, extra: [] }, home);
    await index.update();
    const optionalLines = (): string[] =>
      index
        .list()
        .folders.map((f) => f.path)
        .filter((p) => p.includes('archived_sessions') || p.includes(`${path.sep}.cache${path.sep}`) || p.includes('.openhands-state'));
    expect(optionalLines()).toEqual([]);
    const archived = path.join(home, '.codex', 'archived_sessions', 'rollout-2026-11-30T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0002.jsonl');
    fs.mkdirSync(path.dirname(archived), { recursive: true });
    fs.copyFileSync(codex, archived);
    const relative = path.relative(path.join(home, '.gemini', 'tmp'), gemini);
    const sandboxed = path.join(home, '.cache', '.gemini', 'tmp', relative.replace(/session-[^/]*$/, 'session-2026-12-01T10-00-sandboxe.json'));
    fs.mkdirSync(path.dirname(sandboxed), { recursive: true });
    fs.copyFileSync(gemini, sandboxed);
    await index.update();
    const list = index.list();
    expect(list.sessions.map((r) => r.file_name)).toEqual(expect.arrayContaining([path.basename(archived), path.basename(sandboxed)]));
    expect(optionalLines()).toEqual([path.dirname(archived), path.join(home, '.cache', '.gemini', 'tmp')]);
    expect(list.folders.filter((f) => optionalLines().includes(f.path)).every((f) => f.problem === null)).toBe(true);
    index.close();
  });

  it("Codex's archived sessions (<codex home>/archived_sessions) are listed when that folder exists", async () => {
    const { home, codex } = writeAgentHome(tempDir('ch-home-'));
    const archived = path.join(home, '.codex', 'archived_sessions', 'rollout-2026-11-30T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001.jsonl');
    fs.mkdirSync(path.dirname(archived), { recursive: true });
    fs.copyFileSync(codex, archived);
    fs.writeFileSync(path.join(path.dirname(archived), 'notes.txt'), 'not a rollout');
    const { index, list } = await indexed(home);
    expect(
      list.sessions
        .filter((s) => s.agent === 'codex')
        .map((r) => r.file_name)
        .sort(),
    ).toEqual([path.basename(codex), path.basename(archived)].sort());
    expect(list.folders.filter((f) => f.agent === 'codex').map((f) => [f.path, f.problem])).toEqual([
      [path.join(home, '.codex', 'sessions'), null],
      [path.join(home, '.codex', 'archived_sessions'), null],
    ]);
    index.close();
  });

  it('Gemini CLI 0.61 in the macOS Seatbelt sandbox keeps its sessions under ~/.cache/.gemini/tmp: listed when that folder exists', async () => {
    const { home, gemini } = writeAgentHome(tempDir('ch-home-'));
    const relative = path.relative(path.join(home, '.gemini', 'tmp'), gemini);
    const sandboxed = path.join(home, '.cache', '.gemini', 'tmp', relative.replace(/session-[^/]*$/, 'session-2026-12-01T10-00-sandboxd.json'));
    fs.mkdirSync(path.dirname(sandboxed), { recursive: true });
    fs.copyFileSync(gemini, sandboxed);
    const { index, list } = await indexed(home);
    const rows = list.sessions.filter((s) => s.agent === 'gemini-cli');
    expect(rows.map((r) => r.file_name).sort()).toEqual([path.basename(gemini), path.basename(sandboxed)].sort());
    expect(list.folders.filter((f) => f.agent === 'gemini-cli').map((f) => [f.path, f.problem])).toEqual([
      [path.join(home, '.gemini', 'tmp'), null],
      [path.join(home, '.cache', '.gemini', 'tmp'), null],
    ]);
    index.close();
  });

  it("a Gemini CLI session's project is named by Gemini CLI's registry (projects.json) or its folder's .project_root marker", async () => {
    const { home, gemini } = writeAgentHome(tempDir('ch-home-'));
    const tmp = path.join(home, '.gemini', 'tmp');
    const doc = JSON.parse(fs.readFileSync(gemini, 'utf8')) as Record<string, unknown>;
    // no other agent's session names the folder: only Gemini CLI's own files can
    fs.rmSync(path.join(home, '.claude'), { recursive: true });
    const hashOf = (dir: string): string => crypto.createHash('sha256').update(dir).digest('hex');
    // today's layout: the project folder named by a short id, with its marker; an older hash-named one, known only to the registry
    const write = (dir: string, name: string, project: string): void => {
      fs.mkdirSync(path.join(tmp, dir, 'chats'), { recursive: true });
      fs.writeFileSync(path.join(tmp, dir, 'chats', name), JSON.stringify({ ...doc, sessionId: `s-${dir}`, projectHash: hashOf(project) }));
    };
    write('shop', 'session-2026-12-01T10-00-aaaa0000.json', '/work/shop');
    fs.writeFileSync(path.join(tmp, 'shop', '.project_root'), '/work/shop\n');
    write(hashOf('/work/ledger'), 'session-2026-12-01T11-00-bbbb0000.json', '/work/ledger');
    write('orphan', 'session-2026-12-01T12-00-cccc0000.json', '/work/nowhere');
    fs.writeFileSync(
      path.join(home, '.gemini', 'projects.json'),
      '{"projects": {"/work/ledger": "ledger", "/work/shop": "shop", "__proto__": "x", "relative": "r"}}',
    );
    const { index, list } = await indexed(home);
    const project = (id: string): string | null | undefined => list.sessions.find((s) => s.session_id === id)?.project;
    expect(project('s-shop')).toBe('/work/shop');
    expect(project(`s-${hashOf('/work/ledger')}`)).toBe('/work/ledger');
    // nothing names it: the hash, as before
    expect(project('s-orphan')).toBe(hashOf('/work/nowhere'));
    index.close();
  });

  it("Gemini CLI's registry and markers are read as the agents' files are: no link followed, no FIFO opened, no marker outside its folder", async () => {
    const { home, gemini } = writeAgentHome(tempDir('ch-home-'));
    fs.rmSync(path.join(home, '.claude'), { recursive: true });
    const tmp = path.join(home, '.gemini', 'tmp');
    const hash = path.basename(path.dirname(path.dirname(gemini)));
    const outside = tempDir('ch-outside-');
    // what the links lead to would name the project: were it read, the row would show it
    fs.writeFileSync(path.join(outside, 'projects.json'), JSON.stringify({ projects: { [PROJECT]: 'p' } }));
    fs.writeFileSync(path.join(outside, 'root'), PROJECT);
    fs.symlinkSync(path.join(outside, 'projects.json'), path.join(home, '.gemini', 'projects.json'));
    fs.symlinkSync(path.join(outside, 'root'), path.join(tmp, hash, '.project_root'));
    // a project folder that is a link out, holding a marker
    fs.mkdirSync(path.join(outside, 'linked'));
    fs.writeFileSync(path.join(outside, 'linked', '.project_root'), PROJECT);
    fs.symlinkSync(path.join(outside, 'linked'), path.join(tmp, 'linked'));
    // a FIFO as a marker: opened plainly it would wait for a writer that never comes
    fs.mkdirSync(path.join(tmp, 'fifo'));
    execFileSync('mkfifo', [path.join(tmp, 'fifo', '.project_root')]);
    const { index, list } = await indexed(home);
    expect(row(list, 'gemini-cli')).toMatchObject({ project: hash, session_id: GEMINI_SESSION });
    index.close();
  });

  it('a Gemini CLI registry that is not one (too large, not JSON, a folder) names nothing and lists as before', async () => {
    const { home, gemini } = writeAgentHome(tempDir('ch-home-'));
    fs.rmSync(path.join(home, '.claude'), { recursive: true });
    const registry = path.join(home, '.gemini', 'projects.json');
    const hash = path.basename(path.dirname(path.dirname(gemini)));
    for (const bad of ['{"projects": {"/work/x": "x"', 'x'.repeat((1 << 20) + 1)]) {
      fs.writeFileSync(registry, bad);
      const { index, list } = await indexed(home);
      expect(row(list, 'gemini-cli')).toMatchObject({ project: hash, session_id: GEMINI_SESSION });
      index.close();
    }
    fs.rmSync(registry);
    fs.mkdirSync(registry);
    fs.mkdirSync(path.join(path.dirname(path.dirname(gemini)), '.project_root'));
    const { index, list } = await indexed(home);
    expect(row(list, 'gemini-cli')).toMatchObject({ project: hash, session_id: GEMINI_SESSION });
    index.close();
  });

  it('a Gemini CLI .json session resumed into a .jsonl beside it (the same name plus l) is listed once, as the .jsonl', async () => {
    const { home, gemini } = writeAgentHome(tempDir('ch-home-'));
    const doc = JSON.parse(fs.readFileSync(gemini, 'utf8')) as { messages: unknown[] } & Record<string, unknown>;
    const { messages, ...meta } = doc;
    fs.writeFileSync(`${gemini}l`, [meta, ...messages].map((m) => JSON.stringify(m)).join('\n') + '\n');
    // another project's lone .json stays listed
    const other = path.join(path.dirname(gemini), 'session-2025-11-03T09-00-other000.json');
    fs.copyFileSync(gemini, other);
    const { index, list } = await indexed(home);
    expect(
      list.sessions
        .filter((s) => s.agent === 'gemini-cli')
        .map((s) => s.file_name)
        .sort(),
    ).toEqual([`${path.basename(gemini)}l`, path.basename(other)].sort());
    index.close();
  });

  it('a folder that is a loop of symbolic links is one line; a link loop inside a folder ends', async () => {
    const { home, claude } = writeAgentHome(tempDir('ch-home-'));
    const tmp = path.join(home, '.gemini', 'tmp');
    fs.rmSync(tmp, { recursive: true });
    fs.symlinkSync(path.join(home, '.gemini', 'other'), tmp);
    fs.symlinkSync(tmp, path.join(home, '.gemini', 'other'));
    // inside Claude Code's folder: a link to its own parent
    const project = path.dirname(claude);
    fs.symlinkSync(path.dirname(project), path.join(project, 'again'));
    const { list } = await indexed(home);
    expect(list.folders.find((f) => f.agent === 'gemini-cli')!.problem).toBe(`${tmp} is a loop of symbolic links`);
    expect(list.sessions.filter((s) => s.agent === 'claude-code')).toHaveLength(1);
    expect(list.sessions.filter((s) => s.agent === 'codex')).toHaveLength(1);
  });

  it('does not follow a link out of the folder; a link inside it is one row', async () => {
    const { home, claude } = writeAgentHome(tempDir('ch-home-'));
    const outside = path.join(tempDir('ch-outside-'), 'secret.jsonl');
    fs.writeFileSync(outside, codingSession({ sessionId: 'outside' }));
    const project = path.dirname(claude);
    fs.symlinkSync(outside, path.join(project, 'link-out.jsonl'));
    fs.symlinkSync(path.dirname(outside), path.join(project, 'dir-out'));
    fs.symlinkSync(claude, path.join(project, 'link-in.jsonl'));
    const { list } = await indexed(home);
    expect(list.sessions.some((s) => s.session_id === 'outside')).toBe(false);
    expect(list.sessions.filter((s) => s.agent === 'claude-code')).toHaveLength(1);
    expect(list.folders.find((f) => f.agent === 'claude-code')!.problem).toBe('2 links out of the folder not followed');
  });

  it('an empty, a malformed or a foreign file is one row saying why; a bad line among good ones spoils nothing', async () => {
    const home = tempDir('ch-home-');
    const dir = path.join(home, '.claude', 'projects', '-p');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'empty.jsonl'), '');
    fs.writeFileSync(path.join(dir, 'garbage.jsonl'), 'not json at all\nnor this\n');
    fs.writeFileSync(path.join(dir, 'mixed.jsonl'), '{"broken\n' + codingSession({ sessionId: 'mixed' }));
    const extra = tempDir('ch-extra-');
    fs.writeFileSync(path.join(extra, 'notes.json'), '{"hello": "world"}');
    const { list } = await indexed(home, [extra]);
    const by = (name: string) => list.sessions.find((s) => s.file_name === name)!;
    expect(by('empty.jsonl').problem).toBe('is empty');
    expect(by('garbage.jsonl').problem).toBe('is not JSON lines: it starts "not json at all"');
    expect(by('mixed.jsonl')).toMatchObject({ problem: null, session_id: 'mixed', title: expect.stringMatching(/^Fix the flaky/) });
    expect(by('notes.json').problem).toBe('is not a Claude Code, Codex or Gemini CLI session (its first record names no agent)');
  });

  it('a --sessions folder’s files are told by content', async () => {
    const { claude, codex, gemini } = writeAgentHome(tempDir('ch-home-'));
    const extra = tempDir('ch-extra-');
    for (const f of [claude, codex, gemini]) fs.copyFileSync(f, path.join(extra, path.basename(f)));
    const { list } = await indexed(tempDir('ch-empty-home-'), [extra]);
    expect(list.sessions.map((s) => s.agent).sort()).toEqual(['claude-code', 'codex', 'gemini-cli']);
  });

  it('a file of 1 GB is read from its ends only, and left to be opened rather than analysed in the background', async () => {
    const home = tempDir('ch-home-');
    const dir = path.join(home, '.claude', 'projects', '-p');
    fs.mkdirSync(dir, { recursive: true });
    const big = path.join(dir, 'big.jsonl');
    fs.writeFileSync(big, codingSession({ sessionId: 'big' }));
    fs.truncateSync(big, 1024 ** 3); // sparse: no disk, but 1 GB to read
    const before = process.memoryUsage().rss;
    const { index, list } = await indexed(home);
    expect(list.sessions[0]).toMatchObject({ session_id: 'big', bytes: 1024 ** 3, problem: null });
    await expect.poll(() => index.list().sessions[0]!.analysis_note, { timeout: 10_000 }).toMatch(/^not analysed in the background \(larger than 16 MiB\)/);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });

  it('100,000 files cost a bounded index: the newest maxFiles are kept, the rest counted in the folder’s line', async () => {
    const folders = defaultAgentFolders(tempDir('ch-home-')).slice(0, 1);
    let largest = 0;
    const index = new LocalSessionIndex({
      folders,
      maxFiles: 1000,
      walk: async (_folder, found: (f: FoundFile) => void) => {
        for (let i = 0; i < 100_000; i++) found({ path: `/nowhere/${i}.jsonl`, size: 100, mtimeMs: (i * 7919) % 100_000 });
        largest = 100_000;
        return { realRoot: '/nowhere', problem: null, missing: false, linksOut: 0, unreadable: 0 };
      },
      readConcurrency: 4,
    });
    await index.update();
    const list = index.list(5000);
    expect(largest).toBe(100_000);
    expect(list.total).toBe(1000);
    expect(list.sessions).toHaveLength(1000);
    // the newest 1000 mtimes are 99,000..99,999
    expect(Math.min(...list.sessions.map((s) => s.modified_ms))).toBe(99_000);
    expect(list.folders[0]!.problem).toBe('99000 older files not listed (the newest 1000 are)');
    // each one a row saying why it could not be read, not a thrown look
    expect(list.sessions[0]!.problem).toMatch(/^cannot be read: ENOENT/);
  });

  it('answers at once while the first look runs', () => {
    const { home } = writeAgentHome(tempDir('ch-home-'));
    const index = openLocalIndex(choice, home);
    const t = performance.now();
    const list = index.list();
    expect(performance.now() - t).toBeLessThan(100);
    expect(list.indexing).toBe(true);
    index.close();
  });

  it('is on for loopback or with --token-for-reads only', () => {
    expect(localSessionsRefusal(choice)).toBeNull();
    expect(localSessionsRefusal({ ...choice, host: '0.0.0.0' })).toMatch(/^the relay binds 0\.0\.0\.0, reachable from other machines/);
    expect(localSessionsRefusal({ ...choice, host: '0.0.0.0', tokenForReads: true })).toBeNull();
    expect(localSessionsRefusal({ ...choice, off: true })).toBe('turned off (--no-local-sessions)');
  });

  it('analyseLocal says why a file has no analysis', async () => {
    const f = path.join(tempDir('ch-bad-'), 'x.jsonl');
    fs.writeFileSync(f, '{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"hi"}}\n');
    expect(await analyseLocal(f, 'claude-code')).toEqual({ analysis: null, note: 'no model call in it yet' });
  });
});

describe('GET /api/local and /api/local/<id>/file', () => {
  const relay = relaysPerTest();

  it('lists, sends a row’s exact bytes, refuses a path and an unknown id, and writes nothing into the folders', async () => {
    const { home, claude } = writeAgentHome(tempDir('ch-home-'));
    const before = treeOf(home);
    const index = openLocalIndex(choice, home);
    await index.update();
    const r = await relay({ extraRoutes: localRoutes(index, null) });
    const list = (await (await fetch(`${r.url}api/local`)).json()) as LocalSessionList;
    expect(list.sessions).toHaveLength(3);
    const cc = list.sessions.find((s) => s.agent === 'claude-code')!;
    expect(cc.id).toMatch(/^[0-9a-f]{24}$/);
    expect(JSON.stringify(list.sessions)).not.toContain(home); // rows name no path (the folders' lines do)
    const res = await fetch(`${r.url}api/local/${cc.id}/file`);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(crypto.createHash('sha256').update(bytes).digest('hex')).toBe(crypto.createHash('sha256').update(fs.readFileSync(claude)).digest('hex'));
    for (const bad of ['..%2F..%2F..%2Fetc%2Fpasswd', encodeURIComponent(claude), 'ZZZ']) {
      const refused = await fetch(`${r.url}api/local/${bad}/file`);
      expect(refused.status).toBe(400);
    }
    expect((await fetch(`${r.url}api/local/${'0'.repeat(24)}/file`)).status).toBe(404);
    await expect.poll(() => index.list().sessions.every((s) => s.analysis !== null || s.analysis_note !== null), { timeout: 30_000 }).toBe(true);
    expect(treeOf(home)).toEqual(before);
    // the listed file replaced by a link out of the folder: refused, not followed
    const outside = path.join(tempDir('ch-outside-'), 'x.jsonl');
    fs.writeFileSync(outside, 'secret\n');
    const moved = `${claude}.moved`;
    fs.renameSync(claude, moved);
    fs.symlinkSync(outside, claude);
    expect((await fetch(`${r.url}api/local/${cc.id}/file`)).status).toBe(404);
    fs.rmSync(claude);
    fs.renameSync(moved, claude);
    index.close();
  });

  it('says so when local sessions are off', async () => {
    const r = await relay({ extraRoutes: localRoutes(null, 'turned off (--no-local-sessions)') });
    expect(await (await fetch(`${r.url}api/local`)).json()).toEqual({
      enabled: false,
      reason: 'turned off (--no-local-sessions)',
      indexing: false,
      folders: [],
      sessions: [],
      total: 0,
    });
  });

  it('needs the token to read with --token-for-reads', async () => {
    const { home } = writeAgentHome(tempDir('ch-home-'));
    const index = openLocalIndex({ ...choice, tokenForReads: true }, home);
    const r = await relay({ token: 'sekrit', tokenForReads: true, extraRoutes: localRoutes(index, null) });
    expect((await fetch(`${r.url}api/local`)).status).toBe(401);
    expect((await fetch(`${r.url}api/local`, { headers: { authorization: 'Bearer sekrit' } })).status).toBe(200);
    index.close();
  });
});
