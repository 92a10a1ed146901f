// Types of lint-sizes.mjs, for the test that proves its limits bite (test/lint/sizes.test.ts).
import type { Linter } from 'eslint';
export declare const MAX_FILE_LINES: number;
export declare const MAX_FUNCTION_LINES: number;
export declare const SIZE_EXCEPTIONS: { file: string; rule: string; why: string }[];
export declare const sizeLimits: Linter.Config[];
