// Issue 26 #9: a session title or id holding terminal escapes (ESC[2J, an OSC 52 clipboard
// write, an OSC 8 link, C1 controls, DEL) is shown, not acted on, by diff, alerts list and
// history, replay and the relay's own log: all through check's escaping function.
import fs from 'node:fs';
import path from 'node:path';
import { escapeControls } from '../../src/core/terminalText.ts';
import { printable } from '../../src/report/stamp.ts';
import { mdText } from '../../src/report/markdown.ts';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/runCli.ts';
import { generatedSession, postNdjson, relaysPerTest, ROOT, spawnServe, tempDir } from '../relay/helpers.ts';

const relay = relaysPerTest();
const HOSTILE = '\u001b[2J\u001b]52;c;aGFja2Vk\u0007\u001b]8;;http://evil.example/\u001b\\link\u001b]8;;\u001b\\\u009b2J\u007f';
/** any control character but the line end the output itself writes */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

function titled(sessionId: string, title: string, turns = 3): string[] {
  const lines = generatedSession(sessionId, turns);
  lines[0] = JSON.stringify({ type: 'session', session_id: sessionId, title });
  return lines;
}

describe('terminal escapes are escaped', () => {
  it('diff', async () => {
    const dir = tempDir();
    const a = path.join(dir, 'a.jsonl');
    const b = path.join(dir, 'b.jsonl');
    fs.writeFileSync(a, titled('s', `before ${HOSTILE}`).join('\n') + '\n');
    fs.writeFileSync(b, titled('s', `after ${HOSTILE}`).join('\n') + '\n');
    const r = await runCli(['diff', a, b]);
    expect(r.stdout).toContain('after ');
    expect(r.stdout).toContain('\\x1b[2J');
    expect(r.stdout).toContain('\\x9b2J');
    expect(r.stdout).not.toMatch(RAW_CONTROL);
  }, 30_000);

  it('alerts list and alerts history', async () => {
    const r = await relay({ analysis: true, analysisThreads: 0 });
    const sid = `c${HOSTILE}`;
    const added = await fetch(`${r.url}api/alerts/rules`, { method: 'POST', body: JSON.stringify({ signal: 'relevance_collapse', session_id: sid }) });
    expect(added.status).toBe(201);
    const list = await runCli(['alerts', 'list', '--url', r.url]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('\\x9b2J');
    expect(list.stdout).not.toMatch(RAW_CONTROL);

    const sample = fs.readFileSync(path.join(ROOT, 'public/samples/collapse.jsonl'), 'utf8').trim().split('\n');
    const lines = sample.map((l) => {
      const m = JSON.parse(l) as Record<string, unknown>;
      return JSON.stringify({ ...m, session_id: sid, ...(m.type === 'session' ? { title: `t${HOSTILE}` } : {}) });
    });
    expect((await postNdjson(r.url, lines.join('\n') + '\n')).status).toBe(200);
    const end = Date.now() + 15_000;
    while (r.alerts!.recent().length === 0 && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
    expect(r.alerts!.recent().length).toBeGreaterThan(0);
    const history = await runCli(['alerts', 'history', '--url', r.url]);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toContain('\\x9b2J');
    expect(history.stdout).not.toMatch(RAW_CONTROL);
  }, 60_000);

  it('replay', async () => {
    const r = await relay({ analysis: false });
    const file = path.join(tempDir(), `run.jsonl`);
    const sid = `r${HOSTILE}`;
    // a turn out of order: its rejection names the session
    const lines = titled(sid, HOSTILE, 3);
    lines.push(lines[2]!.replace('"turn":2', '"turn":1'));
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const run = await runCli(['replay', file, '--speed', 'max', '--url', r.url]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout + run.stderr).toContain('\\x9b2J');
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    expect(run.stderr).not.toMatch(RAW_CONTROL);
  }, 30_000);

  it('report and check', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'run.jsonl');
    const sid = `p${HOSTILE}`;
    fs.writeFileSync(file, titled(sid, HOSTILE).join('\n') + '\n');
    const report = await runCli(['report', file, '--out', path.join(dir, 'out'), '--fail-on', 'never']);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('\\x9b2J');
    expect(report.stdout + report.stderr).not.toMatch(RAW_CONTROL);
    const missing = await runCli(['check', path.join(dir, `gone${HOSTILE}.jsonl`)]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('\\x1b[2J');
    expect(missing.stderr).not.toMatch(RAW_CONTROL);
  }, 30_000);

  it("the relay's log", async () => {
    const serve = await spawnServe(['--port', '0', '--data', tempDir(), '--no-static', '--no-analysis']);
    try {
      const sid = `l${HOSTILE}`;
      expect((await postNdjson(serve.url, generatedSession(sid, 1).join('\n') + '\n')).status).toBe(200);
      expect((await fetch(`${serve.url}api/sessions/${encodeURIComponent(sid)}`, { method: 'DELETE' })).status).toBe(200);
      const end = Date.now() + 5000;
      while (!serve.output().includes('deleted session') && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
      expect(serve.output()).toContain('deleted session');
      expect(serve.output()).toContain('\\x9b2J');
      expect(serve.output()).not.toMatch(RAW_CONTROL);
    } finally {
      serve.child.kill('SIGTERM');
    }
  }, 30_000);
});

describe('bidi controls and zero-width characters (issue 39)', () => {
  const hostile = 'safe\u202etxt.exe\u2066x\u2069\u200bz\u200d\u2060\ufeff\u061c\u200e\u200f\u202a';
  it('are shown escaped on the terminal, as C0/C1 are', () => {
    expect(escapeControls(hostile)).toBe('safe\\u202etxt.exe\\u2066x\\u2069\\u200bz\\u200d\\u2060\\ufeff\\u061c\\u200e\\u200f\\u202a');
    expect(escapeControls('\u001b[2J \u009b')).toBe('\\x1b[2J \\x9b');
  });
  it('are made visible marks in the report (Markdown and HTML), as C0/C1 are', () => {
    expect(printable(hostile)).toBe('safe\ufffdtxt.exe\ufffdx\ufffd\ufffdz\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd');
    expect(mdText('a\u202eb')).toBe('a\ufffdb');
  });
});
