// An OpenHands conversation folder as one local-sessions row (docs/relay.md "Local sessions"):
// what a look knows of it cheaply (its stamp), what a scan reads when the stamp changed (its
// events' count, size and newest mtime, its title and project from a bounded part), and the
// JSON Lines body the file route sends, in the order `check <folder>` reads it
// (node/openhandsFolder.ts): the state first, then each event's JSON on one line.
//
// OpenHands writes each event file once, in place (the SDK's LocalFileStore and the V0 app's
// open the name, then write), and rewrites base_state.json whole: a file read while it is being
// written is empty or cut short. So the body leaves out a last event that does not parse yet
// (it is being written), reads the state again until it parses (three tries), and a scan that
// finds the last event unfinished marks the row unsettled: it is scanned again at the next look.
// Every file is opened as security.md says of the agents' files (node/openRegular.ts): without
// following a final link, without blocking, kept only when its descriptor is a regular file
// inside the folder; an event file that is a link or not a regular file refuses the row.
import fs from 'node:fs';
import path from 'node:path';
import { eventFileNames, readEventFile, readFolderFile } from '../../node/openhandsFolder.ts';
import { formatLine, inputErrorLine } from '../../ingest/adapters/pipeline.ts';
import { DEFAULT_MAX_LINE_BYTES } from '../../ingest/lines.ts';
import { NotRegularFile, openRegularFile } from '../../node/openRegular.ts';
import { clip, type HeadLimits, type SessionHead } from './sessionHead.ts';

const STATE = 'base_state.json';
/** the V0 app's conversation metadata (openhands/storage/data_models/conversation_metadata.py): its `title` */
const METADATA = 'metadata.json';
/** event files read from the start for the first prompt, at most */
const PROMPT_FILES = 40;
/** entries of events/ read at most (a long conversation has thousands of events); more: the row says so */
export const MAX_EVENT_ENTRIES = 50_000;

export interface ConversationStamp {
  /** changes when an event file is created or removed, or the state or metadata is written */
  stamp: string;
  mtimeMs: number;
}

/**
 * A look's view of `dir`: two or three stats, never one per event (bench: 5,000 event files
 * cost ~20 ms of stats, the events folder's own stat ~0.01 ms). null: not a conversation (no
 * events/ folder; `strict`: nor base_state.json, metadata.json or events/0.json beside it);
 * 'out': its events/ is a link out of the folder.
 */
export async function conversationStamp(dir: string, realRoot: string, strict = false): Promise<ConversationStamp | 'out' | null> {
  const events = path.join(dir, 'events');
  let ev = await fs.promises.lstat(events).catch(() => null);
  if (ev === null) return null;
  if (ev.isSymbolicLink()) {
    const real = await fs.promises.realpath(events).catch(() => null);
    if (real === null) return null;
    if (!inside(real, realRoot)) return 'out';
    ev = await fs.promises.stat(real).catch(() => null);
  }
  if (ev === null || !ev.isDirectory()) return null;
  const state = await fs.promises.lstat(path.join(dir, STATE)).catch(() => null);
  const meta = await fs.promises.lstat(path.join(dir, METADATA)).catch(() => null);
  // strict (a --sessions folder, which may hold anything: a project's src/events/): a conversation
  // shows it is one by its state, its metadata or V0's first event, else it is searched as a folder
  if (strict && state === null && meta === null && (await fs.promises.lstat(path.join(events, '0.json')).catch(() => null)) === null) return null;
  return {
    stamp: `${ev.ino}:${ev.mtimeMs}:${state?.size}:${state?.mtimeMs}:${meta?.size}:${meta?.mtimeMs}`,
    mtimeMs: Math.max(ev.mtimeMs, state?.mtimeMs ?? 0, meta?.mtimeMs ?? 0),
  };
}

interface Listed {
  name: string;
  path: string;
  size: number;
  mtimeMs: number;
}

interface Listing {
  events: Listed[];
  state: Listed | null;
  metadata: Listed | null;
}

/**
 * The conversation's files, each checked by lstat to be a regular file (the read checks its
 * descriptor again): an events/ folder out of `realRoot`, or an event file, state or metadata
 * that is a link, a FIFO or a folder, refuses the whole conversation (NotRegularFile).
 */
async function listConversation(dir: string, realRoot: string): Promise<Listing> {
  const eventsDir = await fs.promises.realpath(path.join(dir, 'events'));
  if (!inside(eventsDir, realRoot)) throw new NotRegularFile(`a conversation whose events/ is not inside ${realRoot}: not read`);
  // lstat'ed synchronously, a batch between two turns of the event loop (as folderWalk.ts stats
  // files: a promise round trip per file cost several times the lstat itself)
  const regular = (file: string, shown: string): Listed | null => {
    const st = fs.lstatSync(file, { throwIfNoEntry: false });
    if (st === undefined) return null;
    if (!st.isFile())
      throw new NotRegularFile(
        `a conversation whose ${shown} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file (a FIFO, a device, a socket or a folder)'}: not read`,
      );
    return { name: path.basename(file), path: file, size: st.size, mtimeMs: st.mtimeMs };
  };
  // streamed, and at most MAX_EVENT_ENTRIES entries: a flat folder of a million names (events or
  // not) is one row saying so, never a million names held and stat'ed at each look and request
  const names: string[] = [];
  let entries = 0;
  const handle = await fs.promises.opendir(eventsDir, { bufferSize: 64 });
  try {
    for await (const entry of handle) {
      if (++entries > MAX_EVENT_ENTRIES)
        throw new NotRegularFile(`a conversation whose events/ holds more than ${MAX_EVENT_ENTRIES} entries: not read (check <folder> reads it)`);
      if (eventFileNames([entry.name]).length === 1) names.push(entry.name);
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
  const events: Listed[] = [];
  for (const [i, name] of eventFileNames(names).entries()) {
    const e = regular(path.join(eventsDir, name), `events/${name}`);
    if (e !== null) events.push(e); // removed since the listing
    if (i % 256 === 255) await new Promise((r) => setImmediate(r));
  }
  return { events, state: await regular(path.join(dir, STATE), STATE), metadata: await regular(path.join(dir, METADATA), METADATA) };
}

export interface ConversationScan {
  head: SessionHead;
  /** the event files' bytes and the state's */
  size: number;
  mtimeMs: number;
  /** what the background analysis is of: the count, size and newest mtime of the files */
  content: string;
  /** its last event was being written (did not parse): scanned again at the next look */
  unsettled: boolean;
}

/** The row of a conversation whose stamp changed: every file lstat'ed, a bounded part read. */
export async function scanConversation(dir: string, realRoot: string, limits: HeadLimits): Promise<ConversationScan> {
  let listing: Listing;
  try {
    listing = await listConversation(dir, realRoot);
  } catch (e) {
    const why = e instanceof NotRegularFile ? `is ${e.message}` : `cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
    return { head: problem(why), size: 0, mtimeMs: 0, content: why, unsettled: false };
  }
  const files = [...listing.events, ...(listing.state === null ? [] : [listing.state])];
  const size = files.reduce((n, f) => n + f.size, 0);
  const mtimeMs = files.reduce((m, f) => Math.max(m, f.mtimeMs), 0);
  const content = `${listing.events.length}:${size}:${mtimeMs}`;
  const last = listing.events[listing.events.length - 1];
  // an event is small; a last one over 1 MiB is not read again at every look to see it is whole;
  // one still broken BEING_WRITTEN_MS after it was written is broken, not being written: the row
  // is not scanned again at every look for it (its input error is check's and the body's)
  const unsettled =
    last !== undefined &&
    Date.now() - last.mtimeMs < BEING_WRITTEN_MS &&
    (last.size === 0 || (last.size <= 1024 * 1024 && parsedFile(await readEventFile(last.path, last.size, realRoot)) === undefined));
  if (listing.events.length === 0) {
    const why = 'has no event file in its events/ folder (event-<index>-<id>.json, or <n>.json): not an OpenHands conversation, or one not started';
    return { head: problem(why), size, mtimeMs, content, unsettled: false };
  }
  // V1: the state's first bytes name the conversation and its working directory
  let sessionId: string | null = null;
  let project: string | null = null;
  if (listing.state !== null) {
    const text = await headText(listing.state.path, limits.headBytes, realRoot);
    sessionId = /^\s*\{\s*"id"\s*:\s*"([^"\\]{1,200})"/.exec(text)?.[1] ?? null;
    const dirText = /"working_dir"\s*:\s*"((?:[^"\\]|\\.){1,1000})"/.exec(text)?.[1];
    if (dirText !== undefined) project = unescapeJson(dirText);
  }
  let title: string | null = null;
  if (listing.metadata !== null && listing.metadata.size <= limits.headBytes) {
    const meta = parsedFile(await readEventFile(listing.metadata.path, limits.headBytes, realRoot));
    if (isRecord(meta) && typeof meta.title === 'string' && meta.title.trim() !== '') title = meta.title;
  }
  // the first prompt the user typed, from the first events (a bounded number and size)
  let budget = limits.headBytes;
  for (const e of listing.events.slice(0, PROMPT_FILES)) {
    if (title !== null || e.size > budget) break;
    budget -= e.size;
    title = userText(parsedFile(await readEventFile(e.path, e.size + 1, realRoot)));
  }
  return {
    head: { agent: 'openhands', project, projectHash: null, title: clip(title), sessionId: sessionId ?? path.basename(dir), problem: null },
    size,
    mtimeMs,
    content,
    unsettled,
  };
}

/** an unparsable last event modified more recently than this may still be being written: left out of the body */
export const BEING_WRITTEN_MS = 10_000;

/** The conversation's files as listed when asked (NotRegularFile when the conversation is refused). */
export type ConversationFiles = Listing;

export async function conversationFiles(dir: string, realRoot: string): Promise<ConversationFiles> {
  return listConversation(dir, realRoot);
}

/**
 * The body, in check's order after a first line `{"$format":"openhands"}` (pipeline.ts
 * formatLine: the page reads it as check reads a folder, whatever its first file holds): the
 * state's line (V1), then each event's. Every file is read as
 * `check <folder>` reads it (readFolderFile: up to check's limit per event, UTF-8 without
 * replacement, JSON.parse), one at a time, so a request holds one event, never the conversation.
 * A file check reads is sent as its own decoded text with each CR and LF made a space (in
 * valid JSON they can only be whitespace between tokens: the page parses the very value check
 * parsed, a lone surrogate's escape, 1e400 and -0 included); a file check refuses is sent as
 * one `$input_error` line with check's own message (pipeline.ts inputErrorLine), so the page
 * reports the same error, naming the file and why. The state is read again while it does not
 * parse (three tries: OpenHands rewrites it whole); a last event that does not parse and was
 * written in the last BEING_WRITTEN_MS is left out (being written); an older one is its error.
 */
export async function writeConversation(
  files: ConversationFiles,
  realRoot: string,
  write: (chunk: Buffer) => Promise<void>,
  maxBytes = DEFAULT_MAX_LINE_BYTES,
  now: () => number = Date.now,
): Promise<void> {
  const line = async (read: { text: string } | { error: string }): Promise<void> =>
    write(Buffer.from(`${'error' in read ? inputErrorLine(read.error) : read.text.replace(/[\r\n]/g, ' ')}\n`));
  // the format, as check <folder> forces it: a first file that looks like another format's (or like nothing) changes nothing
  await write(Buffer.from(`${formatLine('openhands')}\n`));
  if (files.state !== null) {
    let read = await readFolderFile(files.state.path, maxBytes, realRoot);
    for (let attempt = 1; attempt < 3 && 'error' in read; attempt++) {
      await new Promise((r) => setTimeout(r, 30)); // being written: OpenHands rewrites it whole
      read = await readFolderFile(files.state.path, maxBytes, realRoot);
    }
    await line(read);
  }
  for (let i = 0; i < files.events.length; i++) {
    const e = files.events[i]!;
    const read = await readFolderFile(e.path, maxBytes, realRoot);
    if ('error' in read && i === files.events.length - 1 && now() - e.mtimeMs < BEING_WRITTEN_MS) break;
    await line(read);
  }
}

/** The first `n` bytes of a file, through its checked descriptor. */
async function headText(file: string, n: number, realRoot: string): Promise<string> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await openRegularFile(file, realRoot);
  } catch {
    return '';
  }
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await handle.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } catch {
    return '';
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function parsedFile(read: { bytes: Buffer } | { error: string }): unknown {
  if ('error' in read) return undefined;
  try {
    return JSON.parse(read.bytes.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A message the user typed: V1 a `MessageEvent` from `user` (its llm_message's text parts),
 * V0 a `message` action from `user` (its `args.content`).
 */
function userText(event: unknown): string | null {
  if (!isRecord(event) || event.source !== 'user') return null;
  if (event.kind === 'MessageEvent' && isRecord(event.llm_message)) {
    const content = event.llm_message.content;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content.map((p) => (isRecord(p) && p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('\n')
          : '';
    return text.trim() || null;
  }
  if (event.action === 'message' && isRecord(event.args) && typeof event.args.content === 'string') return event.args.content.trim() || null;
  return null;
}

function unescapeJson(s: string): string {
  try {
    return JSON.parse(`"${s}"`) as string;
  } catch {
    return s;
  }
}

function inside(real: string, root: string): boolean {
  return real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

function problem(why: string): SessionHead {
  return { agent: 'openhands', project: null, projectHash: null, title: null, sessionId: null, problem: why };
}
