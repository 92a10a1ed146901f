// Issue 39, the new doors: serve's local sessions attacked (docs/security.md "Local sessions").
// A name in the agents' folders that became a FIFO or a device, a file truncated or swapped
// while its ends are read or while it is sent, 100,000 files on disk, and request paths that
// try to leave the folders. Everything is generated here, on loopback, and bounded.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LocalSessionList } from '../../src/protocol/localSessions.ts';
import { analyseLocal, openLocalIndex } from '../../src/cli/localSessions.ts';
import { defaultAgentFolders, type AgentFolder } from '../../src/server/localSessions/agentFolders.ts';
import { LocalSessionIndex } from '../../src/server/localSessions/localIndex.ts';
import { localRoutes } from '../../src/server/localSessions/localRoutes.ts';
import { readSessionHead } from '../../src/server/localSessions/sessionHead.ts';
import { walkFolder } from '../../src/server/localSessions/folderWalk.ts';
import { openHooks } from '../../src/node/openRegular.ts';
import { writeAgentHome } from '../adapters/agentHome.ts';
import { codingSession } from '../adapters/codingSession.ts';
import { relaysPerTest, tempDir } from '../relay/helpers.ts';

const choice = { off: false, extra: [], host: '127.0.0.1', tokenForReads: false };

/** Resolves with `p`, or rejects when it has not settled within `ms` (a hang is a failure, not a stuck run). */
function within<T>(ms: number, p: Promise<T>): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms).unref())]);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a name in the folders that is not a regular file', () => {
  const relay = relaysPerTest();

  it('a FIFO, /dev/zero or a folder is a head saying so at once, not a read that waits for a writer', async () => {
    const dir = tempDir('ch-fifo-');
    const fifos = Array.from({ length: 6 }, (_, i) => path.join(dir, `f${i}.jsonl`));
    for (const f of fifos) execFileSync('mkfifo', [f]);
    const heads = await within(10_000, Promise.all(fifos.map((f) => readSessionHead(f, 'claude-code'))));
    for (const h of heads) expect(h.problem).toBe('is not a regular file (a FIFO, a device, a socket or a folder): not read');
    // /dev/zero (endless) and a folder: the same
    expect((await within(5000, readSessionHead('/dev/zero', 'unknown'))).problem).toMatch(/^is not a regular file/);
    expect((await within(5000, readSessionHead(dir, 'unknown'))).problem).toMatch(/^is not a regular file/);
    // the background analysis refuses it too: check would read a FIFO as a stream and wait
    await expect(within(5000, analyseLocal(fifos[0]!, 'claude-code'))).rejects.toThrow(/^not a regular file/);
    // and the relay's other file reads still go on
    expect(fs.readFileSync(__filename, 'utf8').length).toBeGreaterThan(0);
  });

  it('a listed file swapped for a FIFO: its file route answers 404 at once, the listing still answers', async () => {
    const { home, claude } = writeAgentHome(tempDir('ch-home-'));
    const index = openLocalIndex(choice, home);
    await index.update();
    const r = await relay({ extraRoutes: localRoutes(index, null) });
    const list = (await (await fetch(`${r.url}api/local`)).json()) as LocalSessionList;
    const cc = list.sessions.find((s) => s.agent === 'claude-code')!;
    fs.rmSync(claude);
    execFileSync('mkfifo', [claude]);
    const res = await within(5000, fetch(`${r.url}api/local/${cc.id}/file`));
    expect(res.status).toBe(404);
    // the next look does not wait on it either: a FIFO is not a session file, so the row is gone
    await within(10_000, index.update());
    expect(index.list().sessions.find((s) => s.id === cc.id)).toBeUndefined();
    expect(index.list().sessions.filter((s) => s.agent === 'codex')).toHaveLength(1);
    expect((await within(5000, fetch(`${r.url}api/local`))).status).toBe(200);
    index.close();
  });
});

describe('a file that changes under the read', () => {
  const relay = relaysPerTest();

  /** Runs `change` once, at the first read of an open of `file`: the file changes mid-read. */
  function changeAtFirstRead(file: string, change: () => void): void {
    const open = fs.promises.open.bind(fs.promises);
    let done = false;
    vi.spyOn(fs.promises, 'open').mockImplementation(async (...args: Parameters<typeof fs.promises.open>) => {
      const handle = await open(...args);
      if (args[0] !== file || done) return handle;
      const read = handle.read.bind(handle) as (...a: unknown[]) => Promise<fs.promises.FileReadResult<Buffer>>;
      (handle as { read: unknown }).read = async (...a: unknown[]) => {
        if (!done) {
          done = true;
          change();
        }
        return read(...a);
      };
      return handle;
    });
  }

  it('truncated mid-read: read again, the row is of the file as it is after, never a mix', async () => {
    const dir = tempDir('ch-trunc-');
    const file = path.join(dir, 's.jsonl');
    fs.writeFileSync(file, codingSession({ sessionId: 'before-cut', cwd: '/a' }));
    changeAtFirstRead(file, () => fs.writeFileSync(file, codingSession({ sessionId: 'after', cwd: '/b' }).slice(0, 2000)));
    const head = await readSessionHead(file, 'claude-code');
    expect(head.sessionId).toBe('after');
    expect(head.project).toBe('/b');
  });

  it('swapped for another file mid-read (renamed over it): the new file is opened and read, not the old handle mixed with it', async () => {
    const dir = tempDir('ch-swap-');
    const file = path.join(dir, 's.jsonl');
    fs.writeFileSync(file, codingSession({ sessionId: 'old', cwd: '/old' }));
    const other = path.join(dir, 'other.tmp');
    fs.writeFileSync(other, codingSession({ sessionId: 'new', cwd: '/new' }));
    changeAtFirstRead(file, () => fs.renameSync(other, file));
    const head = await readSessionHead(file, 'claude-code');
    expect(head.sessionId).toBe('new');
  });

  it('truncated while it is sent: the answer is cut off, so the page fails the load rather than analyse a mix', async () => {
    const { home, claude } = writeAgentHome(tempDir('ch-home-'));
    // 8 MiB: far more than the socket's buffers, so the send is mid-way when the file is cut
    const line = fs.readFileSync(claude, 'utf8');
    fs.writeFileSync(claude, line.repeat(Math.ceil((8 * 1024 * 1024) / line.length)));
    const index = openLocalIndex(choice, home);
    await index.update();
    const r = await relay({ extraRoutes: localRoutes(index, null) });
    const id = index.list().sessions.find((s) => s.agent === 'claude-code')!.id;
    const outcome = await within(
      15_000,
      new Promise<{ got: number; expected: number; ended: string }>((resolve) => {
        http.get(`${r.url}api/local/${id}/file`, (res) => {
          const expected = Number(res.headers['content-length']);
          let got = 0;
          let cut = false;
          res.on('data', (d: Buffer) => {
            got += d.length;
            if (!cut) {
              cut = true;
              fs.truncateSync(claude, 1000);
            }
          });
          res.on('end', () => resolve({ got, expected, ended: 'end' }));
          res.on('error', () => resolve({ got, expected, ended: 'error' }));
          res.on('aborted', () => resolve({ got, expected, ended: 'aborted' }));
        });
      }),
    );
    expect(outcome.ended).not.toBe('end');
    expect(outcome.got).toBeLessThan(outcome.expected);
    index.close();
  });
});

describe('100,000 files on disk', () => {
  it('are walked streaming, in one look, the listing capped with a count', async () => {
    const home = tempDir('ch-many-');
    const day = path.join(home, '.codex', 'sessions', '2025', '10', '04');
    fs.mkdirSync(day, { recursive: true });
    // 100,000 empty rollout files in one folder: what a walk that listed a folder whole would hold at once
    for (let i = 0; i < 100_000; i++) fs.closeSync(fs.openSync(path.join(day, `rollout-2025-10-04T00-00-00-${i}.jsonl`), 'w'));
    const folder: AgentFolder = {
      agent: 'codex',
      root: path.join(home, '.codex', 'sessions'),
      descend: () => true,
      accept: (parts) => /^rollout-.*\.jsonl$/.test(parts[parts.length - 1]!),
    };
    // every file reached, one at a time (opendir streams a folder 64 entries at a time)
    let seen = 0;
    const report = await walkFolder(folder, () => seen++);
    expect(report.problem).toBeNull();
    expect(seen).toBe(100_000);
    const index = new LocalSessionIndex({ folders: [folder], maxFiles: 2000, readConcurrency: 4 });
    await within(60_000, index.update());
    const list = index.list(100_000);
    expect(list.total).toBe(2000);
    // the page's ask is capped (5,000 by the route; the index hands what it is asked for of the rows it keeps)
    expect(list.sessions.length).toBe(2000);
    expect(list.folders[0]!.problem).toBe('98000 older files not listed (the newest 2000 are)');
    expect(list.folders[0]!.files).toBe(2000);
    // an empty file is a row saying so, not a thrown look
    expect(list.sessions[0]!.problem).toBe('is empty');
    index.close();
    fs.rmSync(home, { recursive: true, force: true });
  }, 120_000);
});

describe('a request path that tries to leave the agents’ folders', () => {
  const relay = relaysPerTest();

  it('is refused as not an id (400) whatever its encoding; only a listed id sends a file; ?limit is clamped', async () => {
    const { home, claude } = writeAgentHome(tempDir('ch-home-'));
    const index = openLocalIndex(choice, home);
    await index.update();
    const r = await relay({ extraRoutes: localRoutes(index, null) });
    const id = index.list().sessions.find((s) => s.agent === 'claude-code')!.id;
    const attempts = [
      '..',
      '%2e%2e',
      '%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
      '..%2F..%2F..%2F..%2Fetc%2Fpasswd',
      '%252e%252e%252fetc%252fpasswd',
      encodeURIComponent('/etc/passwd'),
      encodeURIComponent(claude),
      encodeURIComponent(path.relative(path.dirname(claude), '/etc/passwd')),
      `${id}%00`,
      `${id}%00.jsonl`,
      `%00${id}`,
      `${id}%2F..%2F..`,
      `${id.toUpperCase()}`,
      `${id}0`,
      '%C0%AE%C0%AE%2F', // overlong UTF-8 dots
      '%E0%A4%A', // not percent-encoding at all
      'x'.repeat(4000),
    ];
    for (const bad of attempts) {
      const res = await fetch(`${r.url}api/local/${bad}/file`);
      expect([400, 404], bad).toContain(res.status);
      const body = await res.text();
      expect(body, bad).not.toContain('root:'); // /etc/passwd never answered
      expect(body, bad).not.toContain(fs.readFileSync(claude, 'utf8').slice(0, 40));
    }
    // the raw path, unnormalised by fetch: the same refusal
    const raw = await new Promise<number>((resolve) => {
      http.get({ host: '127.0.0.1', port: new URL(r.url).port, path: '/api/local/../../../../etc/passwd/file' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
    });
    expect(raw).not.toBe(200);
    for (const limit of ['-1', '0', 'NaN', '1e999', '99999999999', '2.5', '%00']) {
      const res = await fetch(`${r.url}api/local?limit=${limit}`);
      expect(res.status, limit).toBe(200);
      const list = (await res.json()) as LocalSessionList;
      expect(list.sessions.length, limit).toBeLessThanOrEqual(5000);
    }
    expect((await fetch(`${r.url}api/local/${id}/file`)).status).toBe(200);
    index.close();
  });
});

describe('a name swapped after its check (a FIFO or a link renamed over it)', () => {
  const relay = relaysPerTest();

  afterEach(() => {
    delete openHooks.checked;
  });

  /** At the first check of `file`'s descriptor, `swap` runs: the name changes between the check and the read. */
  function swapAfterCheck(file: string, swap: () => void): () => boolean {
    let swapped = false;
    openHooks.checked = (f) => {
      if (f !== file || swapped) return;
      swapped = true;
      swap();
    };
    return () => swapped;
  }

  /** `file`'s name made a FIFO (created aside, renamed over it: the old file lives on in its descriptor only). */
  function fifoOver(file: string): () => void {
    return () => {
      const aside = `${file}.fifo`;
      execFileSync('mkfifo', [aside]);
      fs.renameSync(aside, file);
    };
  }

  it('the background analysis reads the file that was checked: a FIFO renamed over it is never opened (it would wait for a writer)', async () => {
    const { home, claude } = writeAgentHome(tempDir('ch-home-'));
    const expected = await analyseLocal(claude, 'claude-code');
    expect(expected.analysis?.turns).toBeGreaterThan(0);
    const swapped = swapAfterCheck(claude, fifoOver(claude));
    expect(await within(10_000, analyseLocal(claude, 'claude-code', fs.realpathSync(home)))).toEqual(expected);
    expect(swapped()).toBe(true);
    expect(fs.statSync(claude).isFIFO()).toBe(true);
  });

  it('the background analysis reads the file that was checked: a link to another session renamed over it is not followed', async () => {
    const dir = tempDir('ch-link-');
    const file = path.join(dir, 's.jsonl');
    fs.writeFileSync(file, codingSession({ sessionId: 'checked', cwd: '/a' }));
    const expected = await analyseLocal(file, 'claude-code');
    const elsewhere = path.join(tempDir('ch-elsewhere-'), 'other.jsonl');
    fs.writeFileSync(elsewhere, '{"type":"user"}\n');
    swapAfterCheck(file, () => {
      fs.symlinkSync(elsewhere, `${file}.link`);
      fs.renameSync(`${file}.link`, file);
    });
    expect(await within(10_000, analyseLocal(file, 'claude-code'))).toEqual(expected);
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(true);
  });

  it('a row analysed by the index is of the checked file, and its head says the name is a FIFO now: the FIFO is never read', async () => {
    const { home, claude } = writeAgentHome(tempDir('ch-home-'));
    const seen: string[] = [];
    const index = new LocalSessionIndex({
      folders: defaultAgentFolders(home).filter((f) => f.agent === 'claude-code'),
      analyse: (file, agent, inside) => {
        seen.push(file);
        if (seen.length === 1) swapAfterCheck(claude, fifoOver(claude));
        return analyseLocal(file, agent, inside);
      },
    });
    await index.update();
    await expect.poll(() => index.list().sessions[0]?.analysis?.turns ?? null, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(seen).toEqual([claude]);
    expect(fs.statSync(claude).isFIFO()).toBe(true);
    index.close();
    // the head reads its checked descriptor, then sees the name replaced: it opens the name
    // again, which is checked again, so the row says what the name is now, at once
    const file = path.join(tempDir('ch-head-'), 's.jsonl');
    fs.writeFileSync(file, codingSession({ sessionId: 'checked', cwd: '/a' }));
    swapAfterCheck(file, fifoOver(file));
    expect((await within(5000, readSessionHead(file, 'claude-code'))).problem).toBe('is not a regular file (a FIFO, a device, a socket or a folder): not read');
  });

  it('"open this session": a folder on the way swapped for a link out of the agents’ folders after the row was resolved is refused (404)', async () => {
    const { home, claude } = writeAgentHome(tempDir('ch-home-'));
    const index = openLocalIndex(choice, home);
    await index.update();
    const r = await relay({ extraRoutes: localRoutes(index, null) });
    const id = index.list().sessions.find((s) => s.agent === 'claude-code')!.id;
    // outside the folders, a file of the same name: a project folder swapped for a link to it
    const project = path.dirname(claude);
    const outside = tempDir('ch-outside-');
    fs.writeFileSync(path.join(outside, path.basename(claude)), 'SECRET outside the agents’ folders\n');
    const fileOf = index.fileOf.bind(index);
    vi.spyOn(index, 'fileOf').mockImplementation(async (row) => {
      const found = await fileOf(row);
      fs.renameSync(project, `${project}.moved`);
      fs.symlinkSync(outside, project);
      return found;
    });
    const res = await within(5000, fetch(`${r.url}api/local/${id}/file`));
    const body = await res.text();
    expect(res.status).toBe(404);
    expect(body).not.toContain('SECRET');
    expect(body).toMatch(/is not a file inside .* any more \(a folder on its path was replaced\): not read/);
    index.close();
  });

  it('"open this session": a FIFO renamed over the file after its check sends the checked file’s bytes', async () => {
    const { home, claude } = writeAgentHome(tempDir('ch-home-'));
    const bytes = fs.readFileSync(claude);
    const index = openLocalIndex(choice, home);
    await index.update();
    const r = await relay({ extraRoutes: localRoutes(index, null) });
    const id = index.list().sessions.find((s) => s.agent === 'claude-code')!.id;
    swapAfterCheck(fs.realpathSync(claude), fifoOver(claude));
    const res = await within(5000, fetch(`${r.url}api/local/${id}/file`));
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    index.close();
  });
});
