// `context-health watch <file-or-folder> [--url URL] [--state FILE] [--poll MS]`: tails
// Claude Code transcripts and Codex CLI rollouts as they grow (and new ones appearing in a
// folder), turns each new model call into a snapshot with the file's adapter and the
// reference scorer (the default `auto` of contract §7), and streams it into a relay
// (docs/adapters.md "watch"). The adapter is told by the file's first record, as `check`
// tells it; anything else is read as Claude Code, as before, so a stray file is never sent
// to the relay as raw lines. A line is read once it ends with a newline, so a record still
// being written waits.
// Resuming: the state file remembers, per transcript, how far it was read and sent; after
// a restart the adapter reads that part again (it needs the context) without sending it.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { HarnessClient } from '../client/harness.ts';
import { isAutoCompaction } from '../ingest/adapters/claudeCodeFiles.ts';
import { detectFormat, type TranscriptFormat } from '../ingest/adapters/detect.ts';
import { TranscriptPipeline } from '../ingest/adapters/pipeline.ts';
import { ScoringStage } from '../ingest/adapters/scoringStage.ts';
import { nodeSha256 } from '../node/platform.ts';
import { escapeLines } from '../core/terminalText.ts';
import { relayBase } from './relayUrl.ts';
import { readTail, type FileState, type TailReader } from './watchTail.ts';
import { isRewrittenWhole, RewrittenFiles } from './watchWhole.ts';
import { writeFileAtomic } from '../node/atomicWrite.ts';

/** --poll below this rewrites the state file too often to be meant */
const MIN_POLL_MS = 10;

export interface WatchOptions {
  /** files, or folders searched (recursively) for `.jsonl` transcripts (`~/.claude/projects`, `~/.codex/sessions`) */
  paths: string[];
  url: string;
  statePath: string;
  pollMs?: number;
  token?: string | null;
  log?: (line: string) => void;
  /** the longest line read (one record); longer ones are skipped. Also the most read from one file per poll (default 16 MiB) */
  maxLineBytes?: number;
  /** the files to follow at each poll instead of searching `paths` (serve's live local sessions: localFollow.ts) */
  files?: () => string[];
  /** a file's session as the relay names it, once its header is sent */
  onSession?: (file: string, sessionId: string) => void;
}

const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

interface Tail {
  file: string;
  state: FileState;
  /** made at the first record, whose content says which adapter reads the file */
  pipeline: TranscriptPipeline | null;
  makePipeline: (format: WatchedFormat) => TranscriptPipeline;
  /** while re-reading what an earlier run already sent: adapt, do not send */
  replaying: boolean;
  reader: TailReader;
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
  const saveState = stateSaver(options.statePath, JSON.stringify(saved), log);
  let sending: Promise<unknown>[] = [];

  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const tailOf = (file: string): Tail => {
    let tail = tails.get(file);
    if (tail !== undefined) return tail;
    const state: FileState = { offset: 0, lines: 0 };
    const tailRef: { current: Tail | null } = { current: null };
    const send = (value: unknown): void => {
      const header = value as { type?: unknown; session_id?: unknown };
      if (header.type === 'session' && typeof header.session_id === 'string') options.onSession?.(file, header.session_id);
      if (tailRef.current?.replaying === true) return;
      sending.push(client.send(value as Parameters<HarnessClient['send']>[0]).catch((e: unknown) => log(`${file}: ${(e as Error).message}`)));
    };
    const stem = path.basename(file).replace(/\.jsonl$/, '');
    // one scoring stage per pipeline: a file read again from its start is a new transcript
    const makePipeline = (format: WatchedFormat): TranscriptPipeline => {
      const scoring = new ScoringStage(
        {
          text: (text) => send(text),
          value: (value) => send(value),
          error: (line, message) => log(`${file}:${line}: ${message}`),
        },
        { mode: 'auto', sha256: nodeSha256 },
      );
      return new TranscriptPipeline(scoring, { from: format, fallbackSessionId: stem });
    };
    const made: Tail = {
      file,
      state,
      pipeline: null,
      makePipeline,
      replaying: false,
      reader: {
        line: (text, n) => {
          if (made.pipeline === null) {
            if (text.trim() === '') return; // no adapter maps a blank line
            // docs/adapters.md watch: the first record says which agent wrote the file
            made.pipeline = makePipeline(watchedFormat(text));
          }
          try {
            made.pipeline.line(text, n);
          } catch (e) {
            // docs/security.md "watch": a record that throws is that line's error, logged once (each line is read once)
            log(`${file}:${n}: ${(e as Error).message}`);
          }
        },
        // another file under this name: what it holds is a new transcript, adapted from its start
        restart: (why) => {
          log(`${file}: ${why}; reading it from the start`);
          made.pipeline = null;
        },
        log,
      },
    };
    tail = made;
    tailRef.current = tail;
    tails.set(file, tail);
    const resumeAt = saved[file];
    if (resumeAt !== undefined && stillTheFile(file, resumeAt)) {
      // contract §7 adapters: the snapshots depend on everything before them, so the part an
      // earlier run sent is read again, silently
      tail.replaying = true;
      readAll(tail, resumeAt.offset, maxLineBytes);
      tail.replaying = false;
      log(`${file}: resumed at byte ${tail.state.offset}`);
    }
    return tail;
  };

  // docs/adapters.md watch: a Gemini CLI session file is rewritten whole; it is read again when it changes
  const rewritten = new RewrittenFiles(
    saved,
    maxLineBytes,
    (file, value) => {
      const header = value as { type?: unknown; session_id?: unknown };
      if (header.type === 'session' && typeof header.session_id === 'string') options.onSession?.(file, header.session_id);
      sending.push(client.send(value as Parameters<HarnessClient['send']>[0]).catch((e: unknown) => log(`${file}: ${(e as Error).message}`)));
    },
    log,
  );

  /** docs/security.md "watch": files that threw, by what they were then (not retried, not logged again, until that changes) */
  const isolate = badFiles(log);
  const poll = async (): Promise<void> => {
    for (const file of options.files?.() ?? transcripts(options.paths, log)) {
      isolate(file, () => {
        if (isRewrittenWhole(file)) rewritten.read(file);
        else {
          const tail = tailOf(file);
          readTail(file, tail.state, Infinity, maxLineBytes, tail.reader);
        }
      });
    }
    const batch = sending;
    sending = [];
    await Promise.all(batch);
    await client.flush();
    const state: Record<string, FileState> = {};
    for (const t of tails.values()) state[t.file] = t.state;
    for (const [file, s] of rewritten.states()) state[file] = s;
    saveState(state);
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

/** The agents whose transcripts grow line by line: the ones watch follows. */
type WatchedFormat = Extract<TranscriptFormat, 'claude-code' | 'codex' | 'gemini'>;

/** docs/adapters.md watch: a Codex rollout or a Gemini CLI session (.jsonl) by its first record, else Claude Code (what watch always read). */
function watchedFormat(firstLine: string): WatchedFormat {
  try {
    const format = detectFormat(JSON.parse(firstLine));
    return format === 'codex' || format === 'gemini' ? format : 'claude-code';
  } catch {
    return 'claude-code';
  }
}

/** Reads up to `limit` bytes into the file, a bounded piece at a time. */
function readAll(tail: Tail, limit: number, maxLineBytes: number): void {
  for (let before = -1; tail.state.offset < limit && tail.state.offset !== before;) {
    before = tail.state.offset;
    readTail(tail.file, tail.state, limit, maxLineBytes, tail.reader);
  }
}

/**
 * docs/security.md "watch": a file that throws is skipped, logged once, until it changes
 * (identity, size, mtime); it never stops the files after it, nor the state file.
 */
function badFiles(log: (line: string) => void): (file: string, read: () => void) => void {
  const bad = new Map<string, string>();
  return (file, read) => {
    const version = fileVersion(file);
    if (bad.get(file) === version) return;
    try {
      read();
      bad.delete(file);
    } catch (e) {
      bad.set(file, version);
      log(`${file}: ${(e as Error).message}; skipped until it changes`);
    }
  };
}

/**
 * Writes the state file only when it changed: a poll that read nothing new writes nothing
 * (serve's follower polls folders that are mostly idle, and its data folder may be moved
 * away). A write that fails is logged once, not once per poll.
 */
function stateSaver(statePath: string, savedText: string, log: (line: string) => void): (state: Record<string, FileState>) => void {
  let written = savedText;
  const errors = new Set<string>();
  return (state) => {
    const text = JSON.stringify(state);
    if (text === written) return;
    try {
      writeState(statePath, state);
      written = text;
      errors.clear();
    } catch (e) {
      const line = `watch: cannot write the state file ${statePath}: ${(e as Error).message}`;
      if (!errors.has(line)) log(line);
      errors.add(line);
    }
  };
}

/** What a file is now (identity, size, modification time): a bad file is retried when this changes. */
function fileVersion(file: string): string {
  try {
    const st = fs.statSync(file);
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return 'gone';
  }
}

/** Whether the file a state file names is still the one it describes (not rotated or truncated while watch was stopped). */
function stillTheFile(file: string, saved: FileState): boolean {
  try {
    const st = fs.statSync(file);
    return st.size >= saved.offset && (saved.ino === undefined || (st.ino === saved.ino && st.dev === saved.dev));
  } catch {
    return false;
  }
}

/**
 * The transcripts to read: named files as they are, and the `.jsonl` files in named
 * folders. A symbolic link in a folder is followed only when it leads to a file inside
 * that folder: a link to ~/.ssh/… or another project's transcripts is not read.
 */
function transcripts(paths: string[], log: (line: string) => void): string[] {
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
      const root = fs.realpathSync(p);
      for (const name of fs.readdirSync(p, { recursive: true }) as string[]) {
        // Gemini CLI writes its sessions into …/chats/: the legacy ones as .json, rewritten whole
        if (!name.endsWith('.jsonl') && !(name.endsWith('.json') && path.basename(path.dirname(path.resolve(p, name))) === 'chats')) continue;
        const file = path.resolve(p, name);
        // Claude Code's auto-compaction calls re-send the whole conversation to be summarised:
        // read as sessions they would copy their parent's turns and warnings into the overview
        // (what a compaction dropped is read from the parent's file). Named, one is read.
        if (isAutoCompaction(path.basename(name))) {
          warnOnce(log, `${file}: Claude Code's auto-compaction call (the conversation re-sent to be summarised), not a session; not read`);
          continue;
        }
        if (insideFolder(file, root)) out.push(file);
        else warnOnce(log, `${file}: a link out of the watched folder ${p}; not read`);
      }
    }
  }
  return out.sort();
}

function insideFolder(file: string, root: string): boolean {
  try {
    const real = fs.realpathSync(file);
    return real.startsWith(root + path.sep) && fs.statSync(real).isFile();
  } catch {
    return false;
  }
}

const warned = new Set<string>();
function warnOnce(log: (line: string) => void, line: string): void {
  if (warned.has(line)) return;
  warned.add(line);
  log(line);
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
  // a fresh name, O_EXCL|O_NOFOLLOW, renamed: a planted `<state>.tmp` link is never written through (docs/security.md)
  writeFileAtomic(file, JSON.stringify(state, null, 2) + '\n');
}

const WATCH_USAGE = `usage: context-health watch <file-or-folder>... [--url URL] [--state FILE] [--poll MS] [--token T]

Tails Claude Code transcripts, Codex CLI rollouts and Gemini CLI sessions (a file, or a
folder such as ~/.claude/projects, ~/.codex/sessions or ~/.gemini/tmp: new files in it too;
a Gemini .json file is read again whenever it is rewritten) as they grow, turns each new
model call into a snapshot scored by the reference scorer, and streams it into a relay
(docs/adapters.md). Each file's first record says which agent wrote it.

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
