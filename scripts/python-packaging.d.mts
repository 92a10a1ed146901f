// Types of python-packaging.mjs, for the TypeScript tests that import it (test/package).
export declare const PYTHON_PACKAGING_DEBIAN: string[];
export declare function findPackagingPython(): string | null;
