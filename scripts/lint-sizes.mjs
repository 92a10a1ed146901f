// Issue 23 "smaller rooms": no source file in src/ or app/ over 600 lines, no function over
// 120 (blank lines and comments not counted). eslint.config.js applies these blocks; the
// test in test/lint/sizes.test.ts proves they bite. An exception is named here, with why.
export const MAX_FILE_LINES = 600;
export const MAX_FUNCTION_LINES = 120;

/** Files or functions that are better whole, each with its reason. Keep this list short. */
export const SIZE_EXCEPTIONS = [];

export const sizeLimits = [
  {
    files: ['src/**/*.{ts,tsx}', 'app/**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts', '**/*.test.tsx', '**/*.testing.ts'],
    rules: {
      'max-lines': ['error', { max: MAX_FILE_LINES, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: MAX_FUNCTION_LINES, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  ...SIZE_EXCEPTIONS.map(({ file, rule }) => ({ files: [file], rules: { [rule]: 'off' } })),
];
