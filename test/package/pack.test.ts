// Issue 22, "How it is proven": the tarball `npm pack` makes, installed with the machine's npm
// into a temporary prefix, works from a folder outside the clone: `check` gives the clone's
// bytes, `serve` + `replay` stores and serves the dashboard, `report` writes PNGs on its first
// run (nothing is built at run time), and no build tool is among its production dependencies.
// One pack and one install for the whole file (beforeAll): they take a while.
import fs from 'node:fs';
import path from 'node:path';
import { decode } from 'fast-png';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedPackages, packAndInstall, productionTree, ROOT, run, type Installed } from './installed.ts';
import { spawnServe } from '../relay/helpers.ts';

const SAMPLES = path.join(ROOT, 'public/samples');
const CLONE_BIN = path.join(ROOT, 'bin/context-health.mjs');
let pkg: Installed;

beforeAll(async () => {
  pkg = await packAndInstall();
}, 900_000);

afterAll(() => pkg?.remove());

describe('the packed package', () => {
  it('holds compiled JavaScript, the dashboard, fonts, docs and licence, and no sources', () => {
    for (const f of [
      'bin/context-health.mjs',
      'build/cli/main.mjs',
      'build/cli/draw.cjs',
      'build/cli/analyse.mjs',
      'dist/index.html',
      'README.md',
      'LICENSE',
    ]) {
      expect(pkg.files, f).toContain(f);
    }
    expect(pkg.files).toContain('build/cli/validatorWorker.mjs');
    expect(pkg.files).toContain('build/cli/analysisWorker.mjs');
    expect(pkg.files).toContain('build/cli/lineWorker.mjs'); // check's parsing threads (issue 25)
    expect(pkg.files).toContain('build/cli/batchWorker.mjs'); // check's file pool (issue 37)
    expect(pkg.files).toContain('build/cli/hookAudit.mjs'); // the hook's audit process, killed at its time budget (issue 39)
    expect(pkg.files.some((f) => f.startsWith('assets/fonts/') && f.endsWith('.ttf'))).toBe(true);
    expect(pkg.files.some((f) => f.startsWith('docs/'))).toBe(true);
    expect(pkg.files.filter((f) => /^(src|app|test|e2e|bench|scripts|node_modules)\//.test(f) || /\.tsx?$/.test(f))).toEqual([]);
    const manifest = JSON.parse(fs.readFileSync(path.join(pkg.packageDir, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.private).toBe(false);
    expect(manifest.bin).toEqual({ 'context-health': 'bin/context-health.mjs' });
  });

  it('check --json on two samples gives the clone its bytes, run from outside the clone', async () => {
    for (const sample of ['all-faults.jsonl', 'drift-and-orphans.jsonl']) {
      const file = path.join(SAMPLES, sample);
      const installed = await run(pkg.bin, ['check', file, '--json'], { cwd: pkg.outside });
      const clone = await run(process.execPath, [CLONE_BIN, 'check', file, '--json'], { cwd: ROOT });
      expect(installed.stderr, sample).toBe('');
      expect(installed.code, sample).toBe(clone.code);
      expect(installed.stdout.length, sample).toBeGreaterThan(1000);
      expect(Buffer.from(installed.stdout).equals(Buffer.from(clone.stdout)), `${sample}: byte for byte`).toBe(true);
    }
  });

  it('loads zod only for a line the fast path refuses: no chunk holds it, and the refusals read as in the clone', async () => {
    // docs/engine.md "zod on the first refusal": the schema is build/cli/schemaRefusal.cjs alone
    const cli = path.join(pkg.packageDir, 'build/cli');
    const holdingZod = fs.readdirSync(cli).filter((f) => fs.readFileSync(path.join(cli, f), 'utf8').includes('_zod'));
    expect(holdingZod).toEqual(['schemaRefusal.cjs']);
    const dir = path.join(pkg.dir, 'refused');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'refused.jsonl');
    const good = fs
      .readFileSync(path.join(SAMPLES, 'healthy.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    fs.writeFileSync(
      file,
      [
        good[0],
        '{"type":"snapshot","session_id":"s","turn":"x","spans":[]}',
        '{"type":"snapshot","session_id":"s","turn":3}',
        '{"type":"snapshot","session_id":"s","turn":4,"spans":[{"span_id":"a","text":"t","score":"high","text_sha256":null}]}',
        '{"type":"note"}',
        ...good.slice(1),
      ].join('\n') + '\n',
    );
    for (const args of [
      ['check', file],
      ['check', file, '--json'],
      ['check', dir, '--json'],
    ]) {
      const installed = await run(pkg.bin, args, { cwd: pkg.outside });
      const clone = await run(process.execPath, [CLONE_BIN, ...args], { cwd: ROOT });
      expect(installed.code, args.join(' ')).toBe(clone.code);
      expect(installed.stdout + installed.stderr, args.join(' ')).toMatch(/score must be|spans is required|type must be/);
      expect(installed.stdout, args.join(' ')).toBe(clone.stdout);
      expect(installed.stderr, args.join(' ')).toBe(clone.stderr);
    }
  });

  it('check --json over a folder gives the clone its lines, one per file (issue 37)', async () => {
    const installed = await run(pkg.bin, ['check', SAMPLES, '--json'], { cwd: pkg.outside });
    const clone = await run(process.execPath, [CLONE_BIN, 'check', SAMPLES, '--json'], { cwd: ROOT });
    expect(installed.code).toBe(clone.code);
    expect(installed.stdout.split('\n').length).toBeGreaterThan(5);
    expect(installed.stdout).toBe(clone.stdout);
  });

  it('diff --json gives the clone its bytes', async () => {
    const [a, b] = [path.join(SAMPLES, 'healthy.jsonl'), path.join(SAMPLES, 'collapse.jsonl')];
    const installed = await run(pkg.bin, ['diff', a, b, '--json'], { cwd: pkg.outside });
    const clone = await run(process.execPath, [CLONE_BIN, 'diff', a, b, '--json'], { cwd: ROOT });
    expect(installed.code).toBe(clone.code);
    expect(installed.stdout.length).toBeGreaterThan(100);
    expect(installed.stdout).toBe(clone.stdout);
  });

  it('serve --demo serves the dashboard and plays the demo session; alerts talks to it', async () => {
    const relay = await spawnServeFrom(pkg, ['--demo', '--port', '0', '--data', path.join(pkg.dir, 'demo-data')]);
    try {
      const page = await fetch(relay.url);
      expect(await page.text()).toBe(fs.readFileSync(path.join(pkg.packageDir, 'dist/index.html'), 'utf8'));
      const sessions = (await (await fetch(`${relay.url}api/sessions`)).json()) as { sessions: { session_id: string }[] };
      expect(sessions.sessions.map((x) => x.session_id)).toContain('demo');
      const alerts = await run(pkg.bin, ['alerts', 'list', '--url', relay.url], { cwd: pkg.outside });
      expect(alerts.code, alerts.stderr).toBe(0);
    } finally {
      relay.child.kill('SIGTERM');
    }
  });

  it('serve --port 0 --data <tmp> takes a replay, answers /api/health and serves the dashboard', async () => {
    const data = path.join(pkg.dir, 'relay-data');
    const relay = await spawnServeFrom(pkg, ['--port', '0', '--data', data]);
    try {
      const replayed = await run(pkg.bin, ['replay', path.join(SAMPLES, 'healthy.jsonl'), '--url', relay.url, '--speed', '1000'], { cwd: pkg.outside });
      expect(replayed.code, replayed.stderr).toBe(0);
      const health = (await (await fetch(`${relay.url}api/health`)).json()) as { ok: boolean; sessions: number; ingest: { accepted: number } };
      expect(health.ok).toBe(true);
      expect(health.sessions).toBe(1);
      expect(health.ingest.accepted).toBe(fs.readFileSync(path.join(SAMPLES, 'healthy.jsonl'), 'utf8').trim().split('\n').length);
      const page = await fetch(relay.url);
      expect(page.status).toBe(200);
      expect(await page.text()).toBe(fs.readFileSync(path.join(pkg.packageDir, 'dist/index.html'), 'utf8'));
    } finally {
      relay.child.kill('SIGTERM');
    }
  });

  it('report writes decodable PNGs on its first run, with nothing built', async () => {
    const out = path.join(pkg.outside, 'report');
    const before = fs.readdirSync(path.join(pkg.packageDir, 'build/cli')).sort();
    const r = await run(pkg.bin, ['report', path.join(SAMPLES, 'all-faults.jsonl'), '--incident', '1', '--out', out], { cwd: pkg.outside });
    expect(r.code, r.stderr).toBe(1); // the sample has faults: check's exit status
    const pngs = fs.readdirSync(path.join(out, 'images')).filter((f) => f.endsWith('.png'));
    expect(pngs.length).toBe(5); // the four charts and what fills the context
    for (const png of pngs) {
      const image = decode(fs.readFileSync(path.join(out, 'images', png)));
      expect(image.width, png).toBeGreaterThan(100);
      expect(image.height, png).toBeGreaterThan(50);
    }
    expect(fs.readFileSync(path.join(out, 'report.md'), 'utf8')).toContain('stale_score');
    // what the run may add: V8's code cache of the drawing bundle (an optimisation), nothing else
    const added = fs
      .readdirSync(path.join(pkg.packageDir, 'build/cli'))
      .sort()
      .filter((f) => !before.includes(f));
    expect(added.filter((f) => f !== 'draw.cjs.v8cache')).toEqual([]);
    expect(fs.existsSync(path.join(pkg.packageDir, 'node_modules/.cache'))).toBe(false);
  });

  it('installs no build tool: neither tsx, Vite, esbuild nor happy-dom is a production dependency', async () => {
    const tree = await productionTree(pkg);
    const onDisk = installedPackages(pkg);
    for (const tool of ['tsx', 'vite', 'esbuild', 'happy-dom', 'typescript']) {
      expect(tree, `npm ls: ${tool}`).not.toContain(tool);
      expect(onDisk, `node_modules: ${tool}`).not.toContain(tool);
    }
    expect(tree).toContain('@resvg/resvg-js');
    // and the compiled code imports nothing else from outside its bundles
    const external = JSON.parse(fs.readFileSync(path.join(pkg.packageDir, 'build/external-imports.json'), 'utf8')) as string[];
    expect(external.filter((e) => !['@resvg/resvg-js', 'bufferutil', 'utf-8-validate', 'esbuild'].includes(e))).toEqual([]);
  });
});

/** `context-health serve` of the installed package, started from outside the clone */
async function spawnServeFrom(installed: Installed, args: string[]): ReturnType<typeof spawnServe> {
  return spawnServe(args, {}, { bin: installed.bin, cwd: installed.outside });
}
