// `context-health watch <file-or-folder> [--url URL] [--state FILE] [--poll MS]`: tails
// Claude Code transcripts as they grow (and new ones appearing in a folder), turns each new
// API call into a snapshot with the Claude Code adapter and the reference scorer (the
// default `auto` of contract §7), and streams it into a relay (docs/adapters.md "watch").
// A line is read once it ends with a newline, so a record still being written waits.
// Resuming: the state file remembers, per transcript, how far it was read and sent; after
// a restart the adapter reads that part again (it needs the context) without sending it.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { HarnessClient } from '../client/harness.ts';
import { TranscriptPipeline } from '../ingest/adapters/pipeline.ts';
import { ScoringStage } from '../ingest/adapters/scoringStage.ts';
import { nodeSha256 } from '../node/platform.ts';
import { escapeLines } from '../core/terminalText.ts';
import { relayBase } from './relayUrl.ts';

/** --poll below this rewrites the state file too often to be meant */
const MIN_POLL_MS = 10;

export interface WatchOptions {
  /** files, or folders searched (recursively) for `.jsonl` transcripts */
  paths: string[];
  url: string;
  statePath: string;
  pollMs?: number;
  token?: string | null;
  log?: (line: string) => void;
}

interface FileState {
  /** bytes read and handed to the adapter (always at a line end) */
  offset: number;
  lines: number;
}

interface Tail {
  file: string;
  state: FileState;
  pipeline: TranscriptPipeline;
  /** while re-reading what an earlier run already sent: adapt, do not send */
  replaying: boolean;
}

export interface Watcher {
  /** one poll now: resolves when every new complete line was read and its messages acknowledged */
  poll(): Promise<void>;
  stop(): Promise<void>;
}

export function startWatch(options: WatchOptions): Watcher {
  const client = new HarnessClient({ url: options.url, token: options.token ?? null });
  const saved = readState(options.statePath);
  const tails = new Map<string, Tail>();
  const log = options.log ?? (() => undefined);
  let sending: Promise<unknown>[] = [];

  const tailOf = (file: string): Tail => {
    let tail = tails.get(file);
    if (tail !== undefined) return tail;
    const state: FileState = { offset: 0, lines: 0 };
    const tailRef: { current: Tail | null } = { current: null };
    const send = (value: unknown): void => {
      if (tailRef.current?.replaying === true) return;
      sending.push(client.send(value as Parameters<HarnessClient['send']>[0]).catch((e: unknown) => log(`${file}: ${(e as Error).message}`)));
    };
    const scoring = new ScoringStage(
      {
        text: (text) => send(text),
        value: (value) => send(value),
        error: (line, message) => log(`${file}:${line}: ${message}`),
      },
      { mode: 'auto', sha256: nodeSha256 },
    );
    const stem = path.basename(file).replace(/\.jsonl$/, '');
    tail = { file, state, pipeline: new TranscriptPipeline(scoring, { from: 'claude-code', fallbackSessionId: stem }), replaying: false };
    tailRef.current = tail;
    tails.set(file, tail);
    const resumeAt = saved[file];
    if (resumeAt !== undefined) {
      // contract §7 adapters: the snapshots depend on everything before them, so the part an
      // earlier run sent is read again, silently
      tail.replaying = true;
      readNew(tail, resumeAt.offset);
      tail.replaying = false;
      log(`${file}: resumed at byte ${tail.state.offset}`);
    }
    return tail;
  };

  const poll = async (): Promise<void> => {
    for (const file of transcripts(options.paths)) readNew(tailOf(file), Infinity);
    const batch = sending;
    sending = [];
    await Promise.all(batch);
    await client.flush();
    const state: Record<string, FileState> = {};
    for (const t of tails.values()) state[t.file] = t.state;
    writeState(options.statePath, state);
  };

  let stopped = false;
  let running = Promise.resolve();
  const loop = async (): Promise<void> => {
    while (!stopped) {
      running = poll().catch((e: unknown) => log(`watch: ${(e as Error).message}`));
      await running;
      await new Promise((r) => setTimeout(r, options.pollMs ?? 500));
    }
  };
  void loop();
  return {
    poll: async () => {
      await running;
      await poll();
    },
    stop: async () => {
      stopped = true;
      await running;
      await client.close();
    },
  };
}

/** Reads complete lines from the tail's offset up to `limit` bytes into the file. */
function readNew(tail: Tail, limit: number): void {
  let size: number;
  try {
    size = fs.statSync(tail.file).size;
  } catch {
    return; // gone (or not yet there)
  }
  const end = Math.min(size, limit);
  if (end <= tail.state.offset) return;
  const fd = fs.openSync(tail.file, 'r');
  try {
    const bytes = Buffer.alloc(end - tail.state.offset);
    fs.readSync(fd, bytes, 0, bytes.length, tail.state.offset);
    const lastNewline = bytes.lastIndexOf(0x0a);
    if (lastNewline === -1) return; // a record still being written
    const text = bytes.subarray(0, lastNewline).toString('utf8');
    for (const line of text.split('\n')) tail.pipeline.line(line.endsWith('\r') ? line.slice(0, -1) : line, ++tail.state.lines);
    tail.state.offset += lastNewline + 1;
  } finally {
    fs.closeSync(fd);
  }
}

function transcripts(paths: string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(p);
    } catch {
      continue;
    }
    if (stat.isFile()) out.push(path.resolve(p));
    else if (stat.isDirectory()) {
      for (const name of fs.readdirSync(p, { recursive: true }) as string[]) if (name.endsWith('.jsonl')) out.push(path.resolve(p, name));
    }
  }
  return out.sort();
}

function readState(file: string): Record<string, FileState> {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, FileState>;
  } catch {
    return {};
  }
}

function writeState(file: string, state: Record<string, FileState>): void {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(state, null, 2) + '\n');
  fs.renameSync(`${file}.tmp`, file);
}

const WATCH_USAGE = `usage: context-health watch <file-or-folder>... [--url URL] [--state FILE] [--poll MS] [--token T]

Tails Claude Code transcripts (a .jsonl file, or a project folder: new files in it too) as
they grow, turns each new API call into a snapshot scored by the reference scorer, and
streams it into a relay (docs/adapters.md).

options:
  --url URL      the relay (default http://127.0.0.1:8787, what npm start serves)
  --state FILE   where it remembers how far it got per file, to resume after a restart
                 (default .context-health-watch.json)
  --poll MS      how often files are checked for growth (default 500, at least 10)
  --token T      the relay's token, when it has one
  -h, --help     this text`;

export async function runWatch(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:8787' },
      state: { type: 'string', default: '.context-health-watch.json' },
      poll: { type: 'string', default: '500' },
      token: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(WATCH_USAGE + '\n');
    return 0;
  }
  const wrong = (why: string): number => {
    process.stderr.write(escapeLines(`context-health watch: ${why}\n${WATCH_USAGE}\n`));
    return 2;
  };
  if (positionals.length === 0) return wrong('watch takes at least one file or folder');
  const base = relayBase(values.url);
  if (!(base instanceof URL)) return wrong(base.error);
  // a poll every millisecond would rewrite the state file a thousand times a second
  if (!/^\d+$/.test(values.poll) || Number(values.poll) < MIN_POLL_MS) {
    return wrong(`--poll must be a whole number of milliseconds ≥ ${MIN_POLL_MS}, got ${JSON.stringify(values.poll)}`);
  }
  const watcher = startWatch({
    paths: positionals,
    url: base.href,
    statePath: values.state,
    pollMs: Number(values.poll),
    ...(values.token === undefined ? {} : { token: values.token }),
    log: (l) => process.stderr.write(escapeLines(l) + '\n'),
  });
  process.stderr.write(escapeLines(`context-health watch: ${positionals.join(', ')} → ${base.href} (state in ${values.state})`) + '\n');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await watcher.stop();
  return 0;
}
