// Issue 39 "no argument spreads of unbounded arrays anywhere; a lint rule or test keeps it so":
// the rule eslint.config.js sets for src/ and app/ refuses a spread into push, Math.max,
// String.fromCharCode, apply… (an input-sized array there overflows the stack and ends the
// read), and lets a spread into an array literal through. The rule is taken from the project's
// own config, so a change to its selector is what this test sees.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..');
// the project's flat config, as eslint itself loads it (a path, so no type is claimed for it)
const config = ((await import(pathToFileURL(path.join(root, 'eslint.config.js')).href)) as { default: Linter.Config[] }).default;

/** The project's no-restricted-syntax rule as configured for src/ and app/. */
function spreadRule(): Linter.RuleEntry {
  const entries = config.filter((c) => c.rules?.['no-restricted-syntax'] !== undefined);
  expect(entries).toHaveLength(1);
  expect(entries[0]!.files).toContain('src/**/*.{ts,tsx}');
  return entries[0]!.rules!['no-restricted-syntax']!;
}

const lint = async (text: string): Promise<string[]> => {
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, rules: { 'no-restricted-syntax': spreadRule() } }],
  });
  const [result] = await eslint.lintText(text, { filePath: path.join(root, 'src', 'core', 'spreadProbe.ts') });
  return result!.messages.map((m) => m.ruleId ?? m.message);
};

describe('lint refuses argument spreads where an input-sized array overflows the stack', () => {
  it.each([
    'out.push(...ids);',
    'out.unshift(...ids);',
    'out.splice(0, 0, ...ids);',
    'const all = out.concat(...parts);',
    'const m = Math.max(...ids);',
    'const m = Math.min(...ids);',
    'const s = String.fromCharCode(...codes);',
    'const s = String.fromCodePoint(...codes);',
    'f.apply(null, ...args);',
    'f.call(null, ...args);',
  ])('%s', async (line) => {
    expect(
      await lint(`declare const out: number[], ids: number[], parts: number[][], codes: number[], args: unknown[], f: (...a: unknown[]) => void;\n${line}\n`),
    ).toEqual(['no-restricted-syntax']);
  });

  it('lets a spread into an array literal and a loop through', async () => {
    const text = 'declare const a: number[], b: number[], out: number[];\nconst c = [...a, ...b];\nfor (const x of a) out.push(x);\nexport { c };\n';
    expect(await lint(text)).toEqual([]);
  });
});
