// One temporary folder per test run, removed when the run ends: tests make their folders with
// fs.mkdtempSync(path.join(os.tmpdir(), 'ch-…')) and many never remove them, and a relay,
// CLI, redis-server, Chromium or python3 they start makes more. Pointing TMPDIR (TMP and
// TEMP on Windows) at the run's folder before any worker starts puts all of that inside it:
// os.tmpdir() reads TMPDIR on each call, Vitest's forks and Playwright's workers copy the
// environment when they start, and their children inherit it. mkdtemp, so two runs on one
// machine (two clones, say) never share a folder, and one run's end removes only its own.
// Used by test/run/globalSetup.ts (Vitest) and e2e/global-setup.ts (Playwright); Vitest-free.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The run's folders are named `context-health-test-XXXXXX`. */
export const RUN_TMP_PREFIX = 'context-health-test-';

/** Set to the temporary folder the run's folder was made in (the system's, or the caller's TMPDIR). */
export const OUTER_TMPDIR = 'CH_TEST_OUTER_TMPDIR';

const VARS = ['TMPDIR', 'TMP', 'TEMP', OUTER_TMPDIR] as const;

/**
 * Makes the run's folder and points this process's temporary folder at it; returns the
 * folder and what undoes it (the environment as it was, the folder and all in it removed).
 */
export function useRunTmpRoot(): { root: string; remove: () => void } {
  const outer = os.tmpdir();
  const root = fs.mkdtempSync(path.join(outer, RUN_TMP_PREFIX));
  const saved = VARS.map((name) => [name, process.env[name]] as const);
  process.env[OUTER_TMPDIR] = outer;
  process.env.TMPDIR = process.env.TMP = process.env.TEMP = root;
  // retried: a child that is still exiting may be closing a file in it
  const removeRoot = (): void => fs.rmSync(root, { recursive: true, force: true, maxRetries: 5 });
  // an interrupted run (Ctrl-C: Vitest exits without its global teardown) removes it on the way out
  process.once('exit', removeRoot);
  return {
    root,
    remove: () => {
      process.off('exit', removeRoot);
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      removeRoot();
    },
  };
}
