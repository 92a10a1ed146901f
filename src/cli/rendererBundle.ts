// `context-health report` loads its renderer as two prebuilt ES modules: compiled through
// tsx module by module that load costs about 3 s of CPU on every run, bundled much less
// (docs/reports.md, "Speed"). analyse.mjs is the analysis side (src/render/report.ts: small,
// loaded by the CLI's thread); draw.mjs the drawing side (src/render/drawWorker.ts: React
// DOM, Recharts, happy-dom and the app's chart modules), run on a worker thread started
// before the file is read, so its loading overlaps the reading on the other core. Installed
// from the package, the bundles were built by `npm pack` and sit beside this module's
// compiled form (scripts/build-package.ts): nothing is built at run time. In a clone they
// are built by esbuild on first use into node_modules/.cache and rebuilt whenever
// one of their inputs changes (their sha256 are kept beside them); when they cannot be built
// (a read-only install), the renderer is imported through tsx and draws on this thread, as before.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DrawInput, DrawReply, DrawRequest, ReportDrawer, ReportFile, ReportRenderer } from '../report/renderer.ts';
import { phase } from '../node/phases.ts';
import { ANALYSE_BUILD, DRAW_BUILD, RENDER_BUILD_FILE } from './rendererBuild.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ENTRIES = { analyse: path.join(ROOT, 'src/render/report.ts'), draw: path.join(ROOT, 'src/render/drawWorker.ts') };
/** the package's bundles: this module is then part of build/cli/, beside them */
const SHIPPED = { analyse: path.join(import.meta.dirname, 'analyse.mjs'), draw: path.join(import.meta.dirname, 'draw.cjs') };
const PREBUILT = fs.existsSync(SHIPPED.draw) && fs.existsSync(SHIPPED.analyse);
const CACHE = PREBUILT ? import.meta.dirname : path.join(ROOT, 'node_modules/.cache/context-health');
const BUNDLES = PREBUILT ? SHIPPED : { analyse: path.join(CACHE, 'analyse.mjs'), draw: path.join(CACHE, 'draw.cjs') };
/**
 * V8's code cache of the drawing bundle (made by its first run, see drawThread). In the
 * package it is written beside the bundle when that folder is writable (a user's global
 * prefix, npx's cache); where it is not, every run compiles the bundle, as the first does.
 */
const DRAW_CODE_CACHE = path.join(CACHE, 'draw.cjs.v8cache');
// not the names of the single bundle before (render.mjs): a checkout switched back and forth finds its own
const MANIFEST = path.join(CACHE, 'bundles.inputs.json');
/** this file and the build options: they are part of what the bundles are */
const SELF = [import.meta.filename, RENDER_BUILD_FILE].map((f) => path.relative(ROOT, f));

/** each input file's sha256, and the size and mtime it had when hashed */
type Manifest = Record<string, { sha: string; size: number; mtimeMs: number }>;

const digest = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

function entry(file: string): Manifest[string] {
  const st = fs.statSync(file);
  return { sha: digest(file), size: st.size, mtimeMs: st.mtimeMs };
}

/**
 * Whether the bundles were built from the files as they are now. A file whose size and mtime
 * are those it had when hashed is taken as unchanged (about 30 ms for the ~1,400 inputs, where
 * hashing them all takes about 150 ms, before the drawing thread can start); any other is hashed.
 */
function upToDate(): boolean {
  try {
    const inputs = JSON.parse(fs.readFileSync(MANIFEST, 'utf8')) as Manifest;
    if (!Object.values(BUNDLES).every((b) => fs.existsSync(b)) || SELF.some((f) => inputs[f] === undefined)) return false;
    return Object.entries(inputs).every(([file, was]) => {
      const full = path.join(ROOT, file);
      const st = fs.statSync(full, { throwIfNoEntry: false });
      if (st === undefined) return false;
      return (st.size === was.size && st.mtimeMs === was.mtimeMs) || digest(full) === was.sha;
    });
  } catch {
    return false;
  }
}

async function buildBundles(): Promise<void> {
  const { build } = await import('esbuild');
  const tmp = path.join(CACHE, `build.${process.pid}`);
  const common = { absWorkingDir: ROOT, outdir: tmp, metafile: true } as const;
  const [analyse, draw] = await Promise.all([
    build({ ...ANALYSE_BUILD, ...common, entryPoints: { analyse: ENTRIES.analyse } }),
    build({ ...DRAW_BUILD, ...common, entryPoints: { draw: ENTRIES.draw } }),
  ]);
  const result = { metafile: { inputs: { ...analyse.metafile!.inputs, ...draw.metafile!.inputs } } };
  const inputs: Manifest = {};
  for (const file of Object.keys(result.metafile.inputs)) inputs[file] = entry(path.join(ROOT, file));
  for (const file of SELF) inputs[file] = entry(path.join(ROOT, file));
  fs.writeFileSync(`${MANIFEST}.${process.pid}.tmp`, JSON.stringify(inputs));
  // renamed into place: another run building at the same time never reads half a file
  fs.rmSync(DRAW_CODE_CACHE, { force: true }); // the old bundle's (V8 would refuse it anyway: the source differs)
  for (const target of Object.values(BUNDLES)) fs.renameSync(path.join(tmp, path.basename(target)), target);
  fs.renameSync(`${MANIFEST}.${process.pid}.tmp`, MANIFEST);
  fs.rmSync(tmp, { recursive: true, force: true });
}

/** One drawing thread: asks and waits for the reply of that kind. */
function drawThread(): { worker: Worker; ask: <T>(kind: DrawReply['kind'], request: DrawRequest, pick: (m: DrawReply) => T) => Promise<T> } {
  const worker = new Worker(DRAW_LOADER, { eval: true, workerData: { bundle: BUNDLES.draw, cache: DRAW_CODE_CACHE } });
  // a run that ends early (unreadable input, no such session) does not wait for it
  worker.unref();
  const stopped = new Promise<never>((_, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the drawing thread stopped (exit status ${code})`)));
  });
  stopped.catch(() => {}); // raced in ask(); once closed, nobody waits on it
  const ask = <T>(kind: DrawReply['kind'], request: DrawRequest, pick: (m: DrawReply) => T): Promise<T> => {
    worker.ref();
    const reply = new Promise<T>((resolve, reject) => {
      const on = (m: DrawReply): void => {
        if (m.kind !== kind) return;
        worker.off('message', on);
        if ('error' in m) reject(new Error(m.error));
        else resolve(pick(m));
      };
      worker.on('message', on);
    });
    worker.postMessage(request);
    return Promise.race([reply, stopped]).finally(() => {
      if (worker.listenerCount('message') === 0) worker.unref();
    });
  };
  return { worker, ask };
}

/**
 * The drawing thread's first lines: compile the drawing bundle with V8's code cache when
 * there is one that V8 accepts (same bundle, same Node), and run it as the CommonJS module it
 * is. Without one, the bundle offers to write it (`__contextHealthSaveCodeCache`, called by
 * drawWorker.ts once its first report is drawn, so the functions drawing compiled are in it
 * too), through a temporary file renamed into place: runs at the same time never read half.
 */
const DRAW_LOADER = `
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { createRequire } = require('node:module');
const { threadId, workerData } = require('node:worker_threads');
const { bundle, cache } = workerData;
const source = fs.readFileSync(bundle, 'utf8');
let cachedData;
try { cachedData = fs.readFileSync(cache); } catch {}
const script = new vm.Script('(function (exports, require, module, __filename, __dirname) {' + source + '\\n})', { filename: bundle, cachedData });
if (cachedData === undefined || script.cachedDataRejected) {
  globalThis.__contextHealthSaveCodeCache = () => {
    try {
      const tmp = cache + '.' + process.pid + '.' + threadId + '.tmp';
      fs.writeFileSync(tmp, script.createCachedData());
      fs.renameSync(tmp, cache);
    } catch {}
  };
}
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, path.dirname(bundle));
`;

/**
 * The drawing side on a worker thread: it starts loading at once and draws when given its
 * input. When the charts it drew early are not the final input's (something the charts show
 * changed after they were drawn: rare), a fresh thread draws that input, so the output is
 * byte for byte what drawing only at the end gives (the first thread's id counters moved on).
 */
function threadDrawer(): ReportDrawer {
  let thread = drawThread();
  return {
    early: (input) => {
      const request: DrawRequest = { kind: 'early', input };
      thread.worker.postMessage(request);
    },
    draw: async (input) => {
      const files = (m: DrawReply): ReportFile[] | null => ('files' in m ? m.files : null);
      const drawn = await thread.ask('files', input, files);
      if (drawn !== null) return drawn;
      phase('early charts not the final ones: drawing on a fresh thread');
      await thread.worker.terminate();
      thread = drawThread();
      const again = await thread.ask('files', input, files);
      if (again === null) throw new Error('internal error: a fresh drawing thread found early charts');
      return again;
    },
    sha256: (file) => thread.ask('sha256', { kind: 'sha256', file }, (m) => ('sha256' in m ? m.sha256 : '')),
    close: async () => {
      await thread.worker.terminate();
    },
  };
}

/** The file's sha256, read by a worker thread of its own (no drawing thread: no bundle) while the CLI's thread reads the file. */
function sha256Thread(file: string): Promise<string> {
  const code = `const { createHash } = require('node:crypto');
const fs = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const hash = createHash('sha256');
fs.createReadStream(workerData)
  .on('data', (d) => hash.update(d))
  .on('end', () => parentPort.postMessage(hash.digest('hex')))
  .on('error', (e) => parentPort.postMessage({ error: e.message }));`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: file });
    worker.once('message', (m: string | { error: string }) => {
      void worker.terminate();
      if (typeof m === 'string') resolve(m);
      else reject(new Error(m.error));
    });
    worker.once('error', reject);
  });
}

/** The drawing side on this thread (no bundle): its modules load while the file is read. */
function inlineDrawer(): ReportDrawer {
  type Draw = { draw: (input: DrawInput) => Promise<ReportFile[]>; prepare: () => Promise<unknown> };
  const mod = import(pathToFileURL(path.join(ROOT, 'src/render/draw.ts')).href).then(async (m: Draw) => {
    await m.prepare();
    return m;
  });
  mod.catch(() => {}); // awaited in draw()
  return {
    // drawn at the end: on this thread, drawing early would compete with reading the file
    early: () => {},
    draw: async (input) => (await mod).draw(input),
    sha256: sha256Thread,
    close: async () => {},
  };
}

/** The renderer's analysis side, and its drawing side already loading. */
export async function loadRenderer(): Promise<{ renderer: ReportRenderer; drawer: ReportDrawer }> {
  let bundled = true;
  try {
    if (!PREBUILT && !upToDate()) {
      fs.mkdirSync(CACHE, { recursive: true });
      await buildBundles();
    }
  } catch {
    bundled = false; // esbuild missing, a read-only folder
  }
  if (bundled) {
    const drawer = threadDrawer();
    try {
      return { renderer: ((await import(pathToFileURL(BUNDLES.analyse).href)) as { renderer: ReportRenderer }).renderer, drawer };
    } catch {
      await drawer.close();
    }
  }
  // no bundle: the same modules through tsx, drawing on this thread
  const drawer = inlineDrawer();
  return { renderer: ((await import(pathToFileURL(ENTRIES.analyse).href)) as { renderer: ReportRenderer }).renderer, drawer };
}
