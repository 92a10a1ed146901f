// The run's temporary folder is in effect (test/run/globalSetup.ts): a test's os.tmpdir(), and a
// child's, is the folder the run removes when it ends, not the shared one they would fill.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { OUTER_TMPDIR, RUN_TMP_PREFIX } from './tmpRoot.ts';

it("a test worker's temporary folder is the run's own, made inside the outer one", () => {
  const tmp = os.tmpdir();
  expect(path.basename(tmp)).toMatch(new RegExp(`^${RUN_TMP_PREFIX}[A-Za-z0-9]{6}$`));
  expect(fs.statSync(tmp).isDirectory()).toBe(true);
  const outer = process.env[OUTER_TMPDIR];
  expect(outer).toBeDefined();
  expect(path.dirname(tmp)).toBe(outer);
});

it('a process a test starts inherits it (TMPDIR; TMP and TEMP beside it)', () => {
  const child = execFileSync(process.execPath, ['-p', 'require("os").tmpdir()'], { encoding: 'utf8' }).trim();
  expect(path.basename(child)).toMatch(new RegExp(`^${RUN_TMP_PREFIX}`));
  expect(child).toBe(os.tmpdir());
  expect(process.env.TMP).toBe(os.tmpdir());
  expect(process.env.TEMP).toBe(os.tmpdir());
});
