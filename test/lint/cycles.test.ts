// The project's lint config must fail on an import cycle: two fixture modules that import
// each other, linted with eslint.config.js (they are ignored by `npm run lint` itself).
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..');

describe('lint forbids import cycles', () => {
  it('reports import-x/no-cycle on both modules of a two-module cycle', async () => {
    const eslint = new ESLint({ cwd: root, ignore: false });
    const results = await eslint.lintFiles([path.join(import.meta.dirname, 'cycle-fixture', '*.ts')]);
    const cycles = results.map((r) => ({
      file: path.basename(r.filePath),
      rules: r.messages.filter((m) => m.ruleId === 'import-x/no-cycle').length,
    }));
    expect(cycles).toEqual([
      { file: 'turnA.ts', rules: 1 },
      { file: 'turnB.ts', rules: 1 },
    ]);
  });
});
