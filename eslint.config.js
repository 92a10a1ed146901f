// Lint: typescript-eslint's recommended rules, plus the import direction of docs/architecture.md made
// executable: app → src/worker → src/results → src/core; src/charts → src/results; src/cli → src/server → src/core.
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';
import { sizeLimits } from './scripts/lint-sizes.mjs';

const restrict = (patterns, message) => ['error', { patterns: [{ group: patterns, message }] }];

export default tseslint.config(
  { ignores: ['node_modules', 'dist', 'build', 'test-results', 'playwright-report', 'bench/out', 'test/lint/cycle-fixture'] },
  ...tseslint.configs.recommended,
  {
    // Import cycles make module init order matter and hide layering mistakes: none allowed.
    // (import-x: the maintained fork of eslint-plugin-import, flat-config native; dependency-cruiser needs Node 22.)
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.mjs'] })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // Type-aware rules that catch real bugs: a promise nobody awaits or catches (a lost
    // error), and a switch over a union that forgets a member.
    files: ['**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // docs/security.md "Importers": a spread in a call's arguments puts every element on the
    // stack, and past ~120k elements (a record of 300k blocks) the call throws and ends the
    // read. Append and take maxima with loops (src/core/arrays.ts); a spread into an array
    // literal (`[...a, ...b]`) is fine.
    files: ['src/**/*.{ts,tsx}', 'app/**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name=/^(push|unshift|splice|concat|max|min|hypot|fromCharCode|fromCodePoint|apply|call)$/] > SpreadElement',
          message:
            'no spread in the arguments of push/unshift/splice/concat/max/min/fromCharCode…: an input-sized array overflows the stack (use appendAll/maxOf of src/core/arrays.ts, or a loop)',
        },
      ],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-imports': restrict(
        ['../*', 'node:*', 'react', 'react-dom', 'zustand', '@tanstack/*', 'ws', 'fs', 'path', 'hash-wasm'],
        'src/core is the pure engine: it imports only itself (and zod). Hashing is handed in.',
      ),
      'no-restricted-globals': ['error', 'window', 'document', 'localStorage', 'process', 'Buffer', 'self'],
    },
  },
  {
    // incident reports' DOM-free core (stamp, PNG iTXt chunk, figure SVG, Markdown): the
    // dashboard and the CLI both import it, so it holds no DOM and no Node
    files: ['src/report/**/*.ts'],
    ignores: ['src/report/**/*.test.ts'],
    rules: {
      'no-restricted-imports': restrict(
        [
          '../worker/*',
          '../server/*',
          '../cli/*',
          '../node/*',
          '../render/*',
          '../../app/*',
          'node:*',
          'react',
          'react-dom',
          'recharts',
          'zustand',
          'fs',
          'path',
        ],
        'src/report is shared by the dashboard and the CLI: src/core and itself only, no DOM, no Node.',
      ),
      'no-restricted-globals': ['error', 'window', 'document', 'localStorage', 'process', 'Buffer', 'self', 'navigator'],
    },
  },
  {
    // the results model (per-turn columns, incidents, LTTB shaping): the dashboard's Worker and
    // `context-health report` both run it, so it holds no DOM, no Node, no React, and imports
    // src/core only
    files: ['src/results/**/*.ts'],
    ignores: ['src/results/**/*.test.ts'],
    rules: {
      'no-restricted-imports': restrict(
        ['../*', '!../core', '!../core/*', 'node:*', 'react', 'react-dom', 'recharts', 'zustand', '@tanstack/*', 'fs', 'path'],
        'src/results is shared by the Worker and the CLI: src/core and itself only, no DOM, no Node, no UI.',
      ),
      'no-restricted-globals': ['error', 'window', 'document', 'localStorage', 'process', 'Buffer', 'self', 'navigator'],
    },
  },
  {
    files: ['src/ingest/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        ['../worker/*', '../server/*', '../cli/*', '../node/*', '../../app/*', 'node:*', 'react'],
        'src/ingest uses Web APIs and src/core only.',
      ),
    },
  },
  {
    files: ['src/worker/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        ['../server/*', '../cli/*', '../node/*', '../../app/*', 'node:*', 'react', 'react-dom', 'recharts', 'zustand'],
        'the Worker runs src/core and src/ingest; no UI, no Node.',
      ),
    },
  },
  {
    // the charts the page and `context-health report` both draw: React, Recharts, the results
    // model and the report's figure types; what they need of the page comes in through
    // ChartHostContext (src/charts/host.tsx), never by importing it
    files: ['src/charts/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': restrict(
        ['**/app/*', '**/app/**', '../worker/*', '../server/*', '../cli/*', '../node/*', '../ingest/*', '../render/*', 'node:*', 'zustand', '@tanstack/*'],
        'src/charts is shared by the page and the CLI: React, Recharts, src/results, src/report and src/core only; the page is handed in (host.tsx).',
      ),
    },
  },
  {
    // `report` draws the shared charts (src/charts), never the page's modules
    files: ['src/render/**/*.{ts,tsx}', 'src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        ['**/app/*', '**/app/**', '../worker/*'],
        'src/render and src/cli do not import app/ or the Worker: the charts are in src/charts, the results in src/results.',
      ),
    },
  },
  {
    files: ['src/server/**/*.ts', 'src/node/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(['../cli/*', '../worker/*', '../../app/*', 'react'], 'the relay does not import the CLI or the UI.'),
    },
  },
  {
    // the relay's protocol (HTTP answers, acks' verdicts, alert rules, firings, overview rows):
    // types only, importing nothing, shared by the relay, the harness client and the page
    files: ['src/protocol/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        ['*'],
        'src/protocol holds only the types the relay, the harness client and the page speak; all three import it, it imports nothing.',
      ),
    },
  },
  {
    // the relay speaks the protocol module, never the harness client's code
    files: ['src/server/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        ['../cli/*', '../worker/*', '../../app/*', 'react', '**/client/*'],
        'the relay does not import the CLI, the UI or the harness client; the types they share live in src/protocol.',
      ),
    },
  },
  {
    // every spec takes `test` from the helper whose fixture fails it on an unexpected page error
    files: ['e2e/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@playwright/test',
              importNames: ['test', 'expect'],
              message: 'import test and expect from ./helpers/test.ts: its fixture fails a test on an unexpected page error.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['app/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': restrict(
        [
          '../src/core/*',
          '../../src/core/*',
          '../../../src/core/*',
          '!**/src/core/bisect.ts',
          '!**/src/core/shortText.ts',
          '**/src/ingest/*',
          '**/src/server/*',
          '**/src/node/*',
          '**/src/cli/*',
          '**/src/client/harness*',
          'node:*',
        ],
        'the UI talks to the engine only through the Worker client (src/worker/client.ts), and to the relay through its protocol types (src/protocol/relay.ts); type-only imports use `import type`.',
      ),
    },
  },
  ...sizeLimits,
);
