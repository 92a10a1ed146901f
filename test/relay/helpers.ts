// Shared by the relay tests: a relay on 127.0.0.1:0 with a temporary data directory,
// subscribers that record every frame, a relay as a child process, generated sessions.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import WebSocket from 'ws';
import { nodeSha256 } from '../../src/node/platform.ts';
import { startRelay, type Relay, type RelayOptions } from '../../src/server/relay.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function tempDir(prefix = 'ch-relay-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * A test file's relays: `relay()` starts one (testRelay's options), and every relay it
 * started is closed after each test. Call it once at the top of a test file.
 */
export function relaysPerTest(): (options?: Partial<RelayOptions>) => ReturnType<typeof testRelay> {
  const relays: Relay[] = [];
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((r) => r.close()));
  });
  return async (options = {}) => {
    const r = await testRelay(options);
    relays.push(r);
    return r;
  };
}

export async function testRelay(options: Partial<RelayOptions> = {}): Promise<Relay & { logs: string[]; dataDir: string }> {
  const logs: string[] = [];
  const dataDir = options.dataDir ?? tempDir();
  const relay = await startRelay({ port: 0, host: '127.0.0.1', distDir: null, log: (l) => logs.push(l), ...options, dataDir });
  return Object.assign(relay, { logs, dataDir });
}

/** A generated session: a header, then `turns` snapshots of `spans` spans with correct hashes. */
export function generatedSession(sessionId: string, turns: number, spans = 20, textChars = 80, firstTurn = 1): string[] {
  const lines = [JSON.stringify({ type: 'session', session_id: sessionId, title: `generated ${sessionId}` })];
  for (let t = firstTurn; t < firstTurn + turns; t++) lines.push(JSON.stringify(snapshot(sessionId, t, spans, textChars)));
  return lines;
}

export function snapshot(sessionId: string, turn: number, spans: number, textChars = 80): Record<string, unknown> {
  const list = [];
  for (let i = 0; i < spans; i++) {
    const text = `turn ${turn} span ${i} é ` + 'x'.repeat(Math.max(0, textChars - 20));
    list.push({ span_id: `s${i}`, text, score: ((i * 37 + turn) % 100) / 100, text_sha256: nodeSha256(text), pinned: i === 0 });
  }
  return { type: 'snapshot', session_id: sessionId, turn, ts: new Date(Date.UTC(2026, 0, 1, 0, 0, turn)).toISOString(), spans: list };
}

export interface Frame {
  type: string;
  seq?: number;
  data?: { turn?: number; type?: string; session_id?: string };
  reason?: string;
  last_seq?: number;
  since?: number;
}

/** A dashboard-like subscriber that records every frame it receives. */
export class Recorder {
  readonly frames: Frame[] = [];
  readonly ws: WebSocket;
  closeCode: number | null = null;
  closeReason = '';
  private waiters: { check: () => boolean; resolve: () => void }[] = [];

  constructor(baseUrl: string, sessionId: string, since = 0) {
    this.ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}api/sessions/${encodeURIComponent(sessionId)}/subscribe?since=${since}`);
    this.ws.on('message', (data) => {
      this.frames.push(JSON.parse(String(data)) as Frame);
      this.poke();
    });
    this.ws.on('close', (code, reason) => {
      this.closeCode = code;
      this.closeReason = reason.toString();
      this.poke();
    });
    this.ws.on('error', () => {});
  }

  get seqs(): number[] {
    return this.frames.filter((f) => f.type === 'msg').map((f) => f.seq!);
  }

  get lastSeq(): number {
    const s = this.seqs;
    return s.length === 0 ? 0 : s[s.length - 1]!;
  }

  until(check: () => boolean, timeoutMs = 20_000, what = 'a condition'): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; frames: ${this.frames.length}, last seq ${this.lastSeq}`)), timeoutMs);
      this.waiters.push({
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  untilSeq(seq: number, timeoutMs?: number): Promise<void> {
    return this.until(() => this.lastSeq >= seq, timeoutMs, `seq ${seq}`);
  }

  untilClosed(timeoutMs?: number): Promise<void> {
    return this.until(() => this.closeCode !== null, timeoutMs, 'the socket to close');
  }

  close(): Promise<void> {
    if (this.closeCode !== null) return Promise.resolve();
    this.ws.close();
    return this.untilClosed();
  }

  private poke(): void {
    this.waiters = this.waiters.filter((w) => {
      if (!w.check()) return true;
      w.resolve();
      return false;
    });
  }
}

export async function postNdjson(baseUrl: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: IngestReply }> {
  const res = await fetch(`${baseUrl}api/ingest`, { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson', ...headers } });
  return { status: res.status, json: (await res.json()) as IngestReply };
}

export interface IngestReply {
  accepted: { line: number; session_id: string; seq: number; turn: number | null; duplicate: boolean }[];
  errors: { line: number; message: string }[];
  error?: string;
}

/**
 * `node bin/context-health.mjs serve …` as a child (or `from.bin serve …`, an installed
 * command, in from.cwd: test/package); resolves with its URL once it listens.
 * `from.wrapper`: a command the relay runs under, e.g. ['prlimit', '--nofile=256:256', '--'].
 */
export async function spawnServe(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  from: { bin?: string; cwd?: string; wrapper?: string[] } = {},
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const base = from.bin === undefined ? [process.execPath, path.join(ROOT, 'bin/context-health.mjs')] : [from.bin];
  const command = [...(from.wrapper ?? []), ...base, 'serve', ...args];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: from.cwd ?? ROOT,
    // an empty home: serve lists the agent sessions under HOME, and the machine's own are not the test's
    env: { ...process.env, HOME: tempDir('ch-home-'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start in time:\n${out}`)), 20_000);
    const onData = (): void => {
      const m = /listening on (http:\/\/\S+\/)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${out}`));
    });
  });
  return { child, url, output: () => out };
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Runs a command to completion, collecting its output. */
export function run(
  cmd: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // PYTHONDONTWRITEBYTECODE: the Python runs leave no __pycache__ in the work tree
    const child = spawn(cmd, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')} timed out\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('error', reject);
    // 'close', not 'exit': the output pipes may still hold data when the process has exited
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export async function transcriptLines(baseUrl: string, sessionId: string): Promise<string[]> {
  const res = await fetch(`${baseUrl}api/sessions/${encodeURIComponent(sessionId)}/transcript`);
  if (res.status !== 200) throw new Error(`transcript: ${res.status}`);
  const text = await res.text();
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}
