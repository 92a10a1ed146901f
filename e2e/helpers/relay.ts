// The real relay and CLI, as child processes: `serve` on an ephemeral (or given) port with
// its own data directory, `replay` to stream a transcript into it, `check --json` as the
// oracle the dashboard must agree with.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const BIN = path.join(ROOT, 'bin', 'context-health.mjs');

export interface RelayHandle {
  url: string;
  port: number;
  dataDir: string;
  process: ChildProcess;
  /** SIGKILL: a crash, nothing flushed beyond what the relay acknowledged; its folders stay (another relay may start on its data) */
  kill(): Promise<void>;
  /** SIGTERM, then the data and HOME folders startRelay made itself are removed (not ones it was given) */
  stop(): Promise<void>;
}

/** `store`: a redis:// URL, to keep the sessions in Redis Streams (`serve --store`, docs/scale-out.md). */
export async function startRelay(
  opts: { port?: number; dataDir?: string; token?: string; store?: string; allowWebhookHost?: string; dist?: string; home?: string } = {},
): Promise<RelayHandle> {
  // the benches may serve another build beside it (bench/dropAb.ts)
  const dist = opts.dist ?? path.join(ROOT, 'dist');
  if (!fs.existsSync(path.join(dist, 'index.html'))) throw new Error('dist/ is not built: run `npx vite build` (npm run test:e2e does)');
  // the folders made here are this relay's to remove (the benches start relays outside a test run's temporary folder)
  const made: string[] = [];
  const madeDir = (prefix: string): string => {
    made.push(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
    return made.at(-1)!;
  };
  const removeMade = (): void => {
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  };
  const dataDir = opts.dataDir ?? madeDir('ch-e2e-data-');
  const args = [BIN, 'serve', '--port', String(opts.port ?? 0), '--data', dataDir, '--static', dist];
  if (opts.token !== undefined) args.push('--token', opts.token);
  if (opts.store !== undefined) args.push('--store', opts.store);
  // webhooks go to public addresses only, unless named (docs/security.md): a test's receiver is on loopback
  if (opts.allowWebhookHost !== undefined) args.push('--allow-webhook-host', opts.allowWebhookHost);
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    // serve lists the agent sessions under HOME: an empty one (or the test's), never the developer's or CI's own
    env: { ...process.env, HOME: opts.home ?? madeDir('ch-e2e-home-') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let out = '';
  const started = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`relay did not start in 20 s:\n${out}`)), 20_000);
    const onData = (b: Buffer): void => {
      out += b.toString();
      const m = /listening on (http:\/\/[^\s/]+)\/?/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`relay exited with ${code}:\n${out}`));
    });
  });
  // a relay that did not come up in time is not left running, nor its folders behind
  const url = await started.catch(async (e: unknown) => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    removeMade();
    throw e;
  });
  return {
    url,
    port: Number(new URL(url).port),
    dataDir,
    process: child,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      removeMade();
    },
  };
}

export function replay(file: string, url: string, opts: { session?: string; speed?: string; token?: string } = {}): ChildProcess & { done: Promise<number> } {
  const args = [BIN, 'replay', file, '--url', url, '--speed', opts.speed ?? 'max'];
  if (opts.session !== undefined) args.push('--session', opts.session);
  if (opts.token !== undefined) args.push('--token', opts.token);
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }) as ChildProcess & { done: Promise<number> };
  let err = '';
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  child.stdout!.resume();
  child.done = new Promise((resolve) =>
    child.once('exit', (code) => {
      if (code !== 0 && process.env.E2E_VERBOSE) process.stderr.write(`replay exited ${code}: ${err}\n`);
      resolve(code ?? -1);
    }),
  );
  return child;
}

export interface CheckJson {
  sessions: { session_id: string; turns: number; findings: { turn: number; signal: string; severity: string }[] }[];
  input_errors: { line: number; message: string }[];
  /** other agents' transcripts only (docs/adapters.md) */
  adapter?: { format: string; skipped_records: Record<string, number> };
}

export function checkJson(file: string, sets: Record<string, number> = {}, options: string[] = []): CheckJson {
  const args = [BIN, 'check', '--json', '--fail-on', 'never', ...options, file];
  for (const [k, v] of Object.entries(sets)) args.push('--set', `${k}=${v}`);
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0 && r.status !== 2) throw new Error(`check failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as CheckJson;
}

/** contract §6 signal-count: turns on which each signal fired. */
export function countsBySignal(findings: readonly { signal: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of findings) out[f.signal] = (out[f.signal] ?? 0) + 1;
  return out;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}
