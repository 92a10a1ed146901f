// Issue 23 "smaller rooms": the size limits of scripts/lint-sizes.mjs bite (a file of 601
// lines, a function of 121), and eslint.config.js applies them to src/ and app/.
import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { MAX_FILE_LINES, MAX_FUNCTION_LINES, sizeLimits } from '../../scripts/lint-sizes.mjs';

const root = path.resolve(import.meta.dirname, '..', '..');

const lint = async (text: string): Promise<string[]> => {
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...sizeLimits],
  });
  const [result] = await eslint.lintText(text, { filePath: path.join(root, 'src', 'core', 'sizeProbe.ts') });
  return result!.messages.map((m) => m.ruleId ?? m.message);
};

const fn = (body: number): string => `export function f(): number {\n  let x = 0;\n${'  x++;\n'.repeat(body - 4)}  return x;\n}\n`;

describe('lint keeps files and functions small', () => {
  it('passes a function of exactly the limit and fails one line more', async () => {
    expect(await lint(fn(MAX_FUNCTION_LINES))).toEqual([]);
    expect(await lint(fn(MAX_FUNCTION_LINES + 1))).toEqual(['max-lines-per-function']);
  });

  it('does not count blank lines and comments in a function', async () => {
    const padded = fn(MAX_FUNCTION_LINES).replace('  let x = 0;\n', `  let x = 0;\n${'\n  // why\n'.repeat(30)}`);
    expect(await lint(padded)).toEqual([]);
  });

  it('fails a file of more than the limit', async () => {
    const consts = (n: number): string => Array.from({ length: n }, (_, i) => `export const c${i} = ${i};`).join('\n') + '\n';
    expect(await lint(consts(MAX_FILE_LINES))).toEqual([]);
    expect(await lint(consts(MAX_FILE_LINES + 1))).toEqual(['max-lines']);
  });

  it('is part of the project config for src/ and app/, not for tests', async () => {
    const eslint = new ESLint({ cwd: root });
    for (const file of ['src/core/analyse.ts', 'app/App.tsx']) {
      const config = (await eslint.calculateConfigForFile(path.join(root, file))) as { rules: Record<string, unknown> };
      expect(config.rules['max-lines'], file).toEqual([2, expect.objectContaining({ max: MAX_FILE_LINES })]);
      expect(config.rules['max-lines-per-function'], file).toEqual([2, expect.objectContaining({ max: MAX_FUNCTION_LINES })]);
    }
    const test = (await eslint.calculateConfigForFile(path.join(root, 'src/core/engine.test.ts'))) as { rules: Record<string, unknown> };
    expect(test.rules['max-lines-per-function']).toBeUndefined();
  });
});
