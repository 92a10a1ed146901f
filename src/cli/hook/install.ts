// `context-health hook install|uninstall [--project | --user | --settings FILE]`: the hook's
// entry in a Claude Code settings file (docs/hooks.md "Install"). The file is edited as text
// (settingsEdit.ts) and written in place, through the same inode, so a symbolic link to it
// (a dotfiles checkout) and its mode stay; a file marked read-only is refused even for root.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { escapeLines } from '../../core/terminalText.ts';
import { installInto, isCreatedFile, uninstallFrom } from './settingsEdit.ts';

export interface InstallOptions {
  settings: string;
  /** the command Claude Code runs (install only) */
  command: string;
}

/** docs/hooks.md: where each scope's settings live. */
export function settingsPath(scope: 'project' | 'user', cwd = process.cwd()): string {
  return scope === 'user' ? path.join(os.homedir(), '.claude', 'settings.json') : path.join(cwd, '.claude', 'settings.json');
}

/** A word for a POSIX shell: Claude Code runs the command through one. */
function shq(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command that runs this very executable's hook, with the hook's own options. */
export function defaultCommand(extra: string[]): string {
  const script = path.resolve(process.argv[1] ?? 'context-health');
  return [process.execPath, script, 'hook', ...extra].map(shq).join(' ');
}

/** The text of the file, null when there is none, or why it cannot be edited. */
function readSettings(file: string, writing: boolean): string | null | { error: string } {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { error: `cannot read it: ${(e as Error).message}` };
  }
  if (!st.isFile()) return { error: 'it is not a regular file' };
  if (writing && (st.mode & 0o222) === 0) return { error: 'it is read-only (no write permission bit set); left untouched' };
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    return { error: `cannot read it: ${(e as Error).message}` };
  }
}

/** Writes through the existing file (same inode), or creates it with its folder. */
function writeSettings(file: string, text: string, existed: boolean): string | null {
  try {
    if (!existed) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text, { flag: 'wx' });
      return null;
    }
    const fd = fs.openSync(file, 'r+');
    try {
      fs.ftruncateSync(fd, 0);
      fs.writeSync(fd, text, 0, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
    return null;
  } catch (e) {
    return `cannot write it: ${(e as Error).message}`;
  }
}

/** The lines that differ, as `-` and `+` lines (the rest is as it was). */
export function lineChange(before: string, after: string): string {
  const a = before.split(/\r?\n/);
  const b = after.split(/\r?\n/);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const removed = a.slice(head, a.length - tail).map((l) => `  - ${l}`);
  const addedLines = b.slice(head, b.length - tail).map((l) => `  + ${l}`);
  return [`  (at line ${head + 1})`, ...removed, ...addedLines].join('\n');
}

/** install or uninstall; 0 done (or nothing to do), 1 the file could not be edited. */
export function runInstall(action: 'install' | 'uninstall', options: InstallOptions, out: (line: string) => void, err: (line: string) => void): number {
  const file = options.settings;
  const before = readSettings(file, true);
  const fail = (why: string): number => (err(escapeLines(`context-health hook ${action}: ${file}: ${why}`)), 1);
  if (before !== null && typeof before === 'object') return fail(before.error);
  if (action === 'uninstall' && before === null) return (out(`${file}: no such file: nothing changed`), 0);
  if (action === 'uninstall' && isCreatedFile(before!)) {
    // docs/hooks.md: the file holds only what install wrote where there was none
    try {
      fs.unlinkSync(file);
    } catch (e) {
      return fail(`cannot remove it: ${(e as Error).message}`);
    }
    return (out(`${file}: removed the file, which held only the hook`), 0);
  }
  const edit = action === 'install' ? installInto(before, options.command) : uninstallFrom(before!);
  if ('error' in edit) return fail(edit.error);
  if (edit.text === before) return (out(`${file}: ${edit.change}`), 0);
  const failed = writeSettings(file, edit.text, before !== null);
  if (failed !== null) return fail(failed);
  out(`${file}: ${edit.change}`);
  out(before === null ? edit.text.trimEnd() : lineChange(before, edit.text));
  return 0;
}
