// docs/hooks.md "Install": install then uninstall gives every settings file back byte for
// byte (other hooks, CRLF, tabs, one-line JSON, a missing file); a second install changes
// nothing; a file that is not JSON or is read-only is left untouched with a clear error.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInstall } from '../../src/cli/hook/install.ts';
import { installInto, isOurCommand, uninstallFrom } from '../../src/cli/hook/settingsEdit.ts';
import { runCli } from '../cli/runCli.ts';

const CMD = "/usr/bin/node '/opt/my tools/context-health.mjs' hook --budget 1500";

const OTHER_HOOKS = `{
  "permissions": {
    "allow": ["Bash(npm test:*)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{ "type": "command", "command": "./guard.sh" }]
      }
    ],
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "echo hello"
          }
        ]
      }
    ]
  },
  "model": "opus"
}
`;

const SAMPLES: Record<string, string> = {
  'other hooks': OTHER_HOOKS,
  'CRLF line endings': OTHER_HOOKS.replace(/\n/g, '\r\n'),
  'tabs, no hooks key': '{\n\t"model": "sonnet",\n\t"env": {"A": "1"}\n}',
  'one line': '{"model":"sonnet","hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}',
  'an empty object': '{}\n',
  'hooks without SessionStart': '{\n    "hooks": {\n        "Stop": []\n    }\n}\n',
};

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-install-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const textOf = (e: ReturnType<typeof installInto>): string => {
  if ('error' in e) throw new Error(e.error);
  return e.text;
};

describe('settings text edits', () => {
  for (const [name, before] of Object.entries(SAMPLES)) {
    it(`${name}: install adds one SessionStart entry, keeps the rest, and uninstall restores every byte`, () => {
      const after = textOf(installInto(before, CMD));
      const parsed = JSON.parse(after) as { hooks: { SessionStart: { matcher: string; hooks: { command: string }[] }[] } };
      const ours = parsed.hooks.SessionStart.filter((g) => g.hooks.some((h) => isOurCommand(h.command)));
      expect(ours).toEqual([{ matcher: 'compact', hooks: [{ type: 'command', command: CMD, timeout: 15 }] }]);
      // everything else, as parsed, as it was
      const { hooks: h1, ...rest1 } = JSON.parse(before) as { hooks?: Record<string, unknown[]> };
      const { hooks: h2, ...rest2 } = JSON.parse(after) as { hooks: Record<string, unknown[]> };
      expect(rest2).toEqual(rest1);
      for (const [event, groups] of Object.entries(h1 ?? {})) expect(h2[event]!.slice(0, groups.length)).toEqual(groups);
      // the file's own bytes kept: the before text is the after text less one inserted span
      if (before.includes('\r\n')) expect(after.replace(/\r\n/g, '')).not.toContain('\n');
      expect(installInto(after, CMD)).toEqual({ text: after, change: 'the hook is there already: nothing changed' });
      const back = uninstallFrom(after);
      expect('error' in back ? back.error : back.text).toBe(before);
    });
  }

  it('uninstall takes out an entry of ours that install made elsewhere, and leaves the others', () => {
    const withTwo = textOf(installInto(OTHER_HOOKS, 'npx context-health hook'));
    const back = uninstallFrom(withTwo);
    expect('text' in back && back.text).toBe(OTHER_HOOKS);
    expect(uninstallFrom(OTHER_HOOKS)).toEqual({ text: OTHER_HOOKS, change: 'the hook is not there: nothing changed' });
  });

  it('refuses a file that is not JSON (comments, trailing commas) or not an object', () => {
    for (const bad of ['{\n  // a comment\n  "model": "x"\n}', '{"a": 1,}', '[1]', '{"hooks": []}', '{"hooks": {"SessionStart": {}}}']) {
      const r = installInto(bad, CMD);
      expect('error' in r, bad).toBe(true);
    }
    expect(isOurCommand('echo context-health is great')).toBe(false);
    expect(isOurCommand('context-health hook')).toBe(true);
  });
});

describe('hook install and uninstall on files', () => {
  const run = (action: 'install' | 'uninstall', settings: string) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = runInstall(
      action,
      { settings, command: CMD },
      (l) => out.push(l),
      (l) => err.push(l),
    );
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it('creates a missing file (and its folder), prints it, and uninstall removes the file', () => {
    const file = path.join(dir, 'fresh', '.claude', 'settings.json');
    const r = run('install', file);
    expect(r.code).toBe(0);
    expect(r.out).toContain('created it');
    expect(r.out).toContain('"matcher": "compact"');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      hooks: { SessionStart: [{ matcher: 'compact', hooks: [{ type: 'command', command: CMD, timeout: 15 }] }] },
    });
    expect(run('install', file).out).toContain('nothing changed');
    expect(run('uninstall', file).code).toBe(0);
    expect(fs.existsSync(file)).toBe(false);
    expect(run('uninstall', file).out).toContain('no such file');
  });

  it('prints the lines it changed and writes through a symbolic link to the file', () => {
    const real = path.join(dir, 'real.json');
    fs.writeFileSync(real, OTHER_HOOKS.replace(/\n/g, '\r\n'));
    const link = path.join(dir, 'link.json');
    fs.symlinkSync(real, link);
    const r = run('install', link);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/added hooks\.SessionStart\[1\]/);
    expect(r.out).toMatch(/\+ +"matcher": "compact",/);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(run('uninstall', link).code).toBe(0);
    expect(fs.readFileSync(real, 'utf8')).toBe(OTHER_HOOKS.replace(/\n/g, '\r\n'));
  });

  it('leaves a read-only file and an invalid one untouched, with a clear error and exit 1', () => {
    const ro = path.join(dir, 'ro.json');
    fs.writeFileSync(ro, OTHER_HOOKS);
    fs.chmodSync(ro, 0o444);
    const r = run('install', ro);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`context-health hook install: ${ro}: it is read-only (no write permission bit set); left untouched`);
    expect(fs.readFileSync(ro, 'utf8')).toBe(OTHER_HOOKS);
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, '{"model": "x",}');
    const b = run('install', bad);
    expect(b.code).toBe(1);
    expect(b.err).toMatch(/bad\.json: it is not valid JSON \(.+\); left untouched$/);
    expect(fs.readFileSync(bad, 'utf8')).toBe('{"model": "x",}');
  });

  it('as a command: --settings, the default command runs this executable, and --user writes under HOME', async () => {
    const file = path.join(dir, 'cli.json');
    fs.writeFileSync(file, OTHER_HOOKS);
    const r = await runCli(['hook', 'install', '--settings', file, '--budget', '1200']);
    expect(r.code).toBe(0);
    const cmd = (JSON.parse(fs.readFileSync(file, 'utf8')) as { hooks: { SessionStart: { hooks: { command: string }[] }[] } }).hooks.SessionStart[1]!.hooks[0]!
      .command;
    expect(cmd).toMatch(/bin\/context-health\.mjs hook --budget 1200$/);
    const home = path.join(dir, 'home');
    const u = await runCli(['hook', 'install', '--user'], { env: { HOME: home } });
    expect(u.code).toBe(0);
    expect(fs.existsSync(path.join(home, '.claude', 'settings.json'))).toBe(true);
    const usage = await runCli(['hook', 'install', '--user', '--project']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/give one of --project, --user or --settings/);
  });
});
