// `context-health report` loads its renderer (src/render: React DOM, Recharts, happy-dom and
// the app's chart modules) as one prebuilt ES module: compiled through tsx module by module
// that load costs about 3 s of CPU on every run, bundled about 0.4 s (docs/reports.md,
// "Speed"). The bundle is built by esbuild on first use into node_modules/.cache and rebuilt
// whenever one of its inputs changes (their sha256 are kept beside it); when it cannot be
// built (a read-only install), the renderer is imported through tsx as before.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ReportRenderer } from '../report/renderer.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ENTRY = path.join(ROOT, 'src/render/report.ts');
const CACHE = path.join(ROOT, 'node_modules/.cache/context-health');
const BUNDLE = path.join(CACHE, 'render.mjs');
const MANIFEST = path.join(CACHE, 'render.inputs.json');
/** this file: the build options are part of what the bundle is */
const SELF = path.relative(ROOT, import.meta.filename);

type Manifest = Record<string, string>;

const digest = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

function upToDate(): boolean {
  try {
    const inputs = JSON.parse(fs.readFileSync(MANIFEST, 'utf8')) as Manifest;
    if (!fs.existsSync(BUNDLE) || inputs[SELF] === undefined) return false;
    return Object.entries(inputs).every(([file, sha]) => fs.existsSync(path.join(ROOT, file)) && digest(path.join(ROOT, file)) === sha);
  } catch {
    return false;
  }
}

async function buildBundle(): Promise<void> {
  const { build } = await import('esbuild');
  const tmp = `${BUNDLE}.${process.pid}.tmp`;
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [ENTRY],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: tmp,
    jsx: 'automatic',
    // a native module: loaded from node_modules as it is
    external: ['@resvg/resvg-js'],
    // CommonJS modules inside the bundle (React DOM, Recharts' dependencies) call require
    banner: { js: "import { createRequire as __chRequire } from 'node:module'; const require = __chRequire(import.meta.url);" },
    metafile: true,
    // less for V8 to parse on each run (the 7.8 MB bundle takes about 0.35 s unminified)
    minify: true,
    logLevel: 'silent',
  });
  const inputs: Manifest = {};
  for (const file of Object.keys(result.metafile.inputs)) inputs[file] = digest(path.join(ROOT, file));
  inputs[SELF] = digest(import.meta.filename);
  fs.writeFileSync(`${MANIFEST}.${process.pid}.tmp`, JSON.stringify(inputs));
  // renamed into place: another run building at the same time never reads half a file
  fs.renameSync(tmp, BUNDLE);
  fs.renameSync(`${MANIFEST}.${process.pid}.tmp`, MANIFEST);
}

export async function loadRenderer(): Promise<ReportRenderer> {
  try {
    if (!upToDate()) {
      fs.mkdirSync(CACHE, { recursive: true });
      await buildBundle();
    }
    return ((await import(pathToFileURL(BUNDLE).href)) as { renderer: ReportRenderer }).renderer;
  } catch {
    // no bundle (esbuild missing, a read-only folder): the same modules through tsx
    return ((await import(pathToFileURL(ENTRY).href)) as { renderer: ReportRenderer }).renderer;
  }
}
