// The `test` every spec imports (instead of @playwright/test's): the same, plus an
// automatic fixture that fails the test on any uncaught page exception or console error
// the test did not declare. Collecting errors without asserting them let a page crash
// pass green; here a test that expects an error says which, first thing:
//   test('…', async ({ page, allowPageErrors }) => { allowPageErrors(/…/); … });
import { test as base, expect } from '@playwright/test';

export interface PageProblem {
  kind: 'pageerror' | 'console';
  text: string;
}

/** The problems no allowed pattern matches: what fails the test. */
export function unexpectedProblems(problems: readonly PageProblem[], allowed: readonly RegExp[]): PageProblem[] {
  return problems.filter((p) => !allowed.some((re) => re.test(p.text)));
}

interface PageErrorFixtures {
  /** Declares page errors or console errors this test expects (matched against their text). */
  allowPageErrors: (...patterns: RegExp[]) => void;
  /** Every uncaught page error and console error seen in this test's browser context so far. */
  pageProblems: readonly PageProblem[];
}

interface Watch {
  problems: PageProblem[];
  allowed: RegExp[];
}

export const test = base.extend<PageErrorFixtures & { pageErrorWatch: Watch }>({
  pageErrorWatch: [
    async ({ context }, use) => {
      const watch: Watch = { problems: [], allowed: [] };
      // on the context, so every page of the test (not only `page`) is watched
      context.on('weberror', (e) => watch.problems.push({ kind: 'pageerror', text: `${e.error().name}: ${e.error().message}` }));
      context.on('console', (m) => {
        if (m.type() !== 'error') return;
        const at = m.location().url === '' ? '' : ` (${m.location().url}:${m.location().lineNumber})`;
        watch.problems.push({ kind: 'console', text: `${m.text()}${at}` });
      });
      await use(watch);
      expect(
        unexpectedProblems(watch.problems, watch.allowed),
        'uncaught page errors and console errors the test did not declare with allowPageErrors',
      ).toEqual([]);
    },
    { auto: true },
  ],
  allowPageErrors: async ({ pageErrorWatch }, use) => {
    await use((...patterns) => {
      pageErrorWatch.allowed.push(...patterns);
    });
  },
  pageProblems: async ({ pageErrorWatch }, use) => {
    await use(pageErrorWatch.problems);
  },
});

export { expect };
