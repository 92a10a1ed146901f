// An OpenHands conversation folder, as both apps persist it:
// - V1 (the software-agent-sdk, and the CLI and GUI built on it; openhands-sdk
//   conversation/persistence_const.py, event_store.py): `base_state.json` beside an `events/`
//   folder of one JSON file per event, `event-<index, 5+ digits>-<event id>.json`;
// - V0 (the OpenHands app before the SDK; openhands/storage/locations.py, events/event_store.py):
//   `events/<id>.json`, the id an integer from 0, and `metadata.json` (title, dates) beside it;
//   no state file.
// `check` reads a folder (the conversation's, or its events/) as that: the state first (it
// names the conversation and holds each call's token usage), then the events in index order
// (docs/adapters.md "OpenHands"). The relay's local sessions send the same files in the same
// order as one JSON Lines body (server/localSessions/openhandsConversation.ts).
import fs from 'node:fs';
import path from 'node:path';
import { notJsonMessage } from '../core/inputErrors.ts';
import { DEFAULT_MAX_LINE_BYTES, formatBytes } from '../ingest/lines.ts';
import { NotRegularFile, openRegularFile } from './openRegular.ts';

/** persistence_const.py EVENT_NAME_RE */
const EVENT_NAME = /^event-(\d{5,})-([0-9a-fA-F-]{8,})\.json$/;
/** V0 locations.py get_conversation_event_filename: `<id>.json` */
const V0_EVENT_NAME = /^(\d{1,15})\.json$/;

export interface FolderSink {
  /** one parsed file: the state (line 0) or event i (line i + 1), and its text */
  record(value: unknown, line: number, text: string): void;
  error(line: number, message: string): void;
}

export interface OpenHandsFolder {
  eventsDir: string;
  statePath: string | null;
  /** the conversation's id as its folder names it */
  id: string;
}

/** The folder's layout, or null when it is not an OpenHands conversation (nor its events/ folder). */
export function openHandsFolder(dir: string): OpenHandsFolder | null {
  const abs = path.resolve(dir);
  const inner = path.join(abs, 'events');
  if (isDir(inner)) {
    const state = path.join(abs, 'base_state.json');
    return { eventsDir: inner, statePath: isFile(state) ? state : null, id: path.basename(abs) };
  }
  if (path.basename(abs) === 'events') {
    const parent = path.dirname(abs);
    const state = path.join(parent, 'base_state.json');
    return { eventsDir: abs, statePath: isFile(state) ? state : null, id: path.basename(parent) };
  }
  return null;
}

/**
 * The event files among an events folder's names, in the order the apps read them back: by
 * index (V1's `event-<index>-…`, V0's `<id>.json`), then by name. Anything else (the SDK's
 * `.eventlog.lock`, an editor's backup, a stray file) is not an event.
 */
export function eventFileNames(names: readonly string[]): string[] {
  const out: { name: string; n: number }[] = [];
  for (const name of names) {
    const m = EVENT_NAME.exec(name) ?? V0_EVENT_NAME.exec(name);
    if (m !== null) out.push({ name, n: Number(m[1]) });
  }
  return out.sort((a, b) => a.n - b.n || (a.name < b.name ? -1 : 1)).map((e) => e.name);
}

export interface ReadFolderOptions {
  /** a longer file is an input error, not read (default DEFAULT_MAX_LINE_BYTES) */
  maxBytes?: number;
  /**
   * the real path of a folder every file read must be inside (the relay's local sessions,
   * docs/security.md "Local sessions"): each file is then opened without following a final link
   * and checked by its descriptor to be a regular file inside it; without it, a link is followed
   */
  inside?: string;
}

/** Reads the folder's files, each whole (bounded by `maxBytes`: an event is small), in the apps' order. */
export async function readOpenHandsFolder(folder: OpenHandsFolder, sink: FolderSink, options: ReadFolderOptions = {}): Promise<number> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_LINE_BYTES;
  if (folder.statePath !== null) await readOne(folder.statePath, 0, sink, maxBytes, options.inside);
  const names = eventFileNames(await fs.promises.readdir(folder.eventsDir));
  for (let i = 0; i < names.length; i++) await readOne(path.join(folder.eventsDir, names[i]!), i + 1, sink, maxBytes, options.inside);
  return names.length;
}

/**
 * A file of the folder, whole, through one descriptor that was checked to be a regular file
 * (opened without blocking: a FIFO named like an event never stalls the read). null and why
 * when it is not read.
 */
export async function readEventFile(file: string, maxBytes: number, inside?: string): Promise<{ bytes: Buffer } | { error: string }> {
  const name = path.basename(file);
  let handle: fs.promises.FileHandle;
  try {
    handle = inside !== undefined ? await openRegularFile(file, inside) : await fs.promises.open(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    if (e instanceof NotRegularFile) return { error: `${name} is ${e.message}` };
    // O_NOFOLLOW on a link: ELOOP, whose own words ("too many symbolic links") say something else
    if (inside !== undefined && (e as NodeJS.ErrnoException).code === 'ELOOP') return { error: `${name} is a symbolic link: not read` };
    return { error: `${name}: cannot read: ${(e as Error).message}` };
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return { error: `${name} is not a regular file (a FIFO, a device, a socket or a folder): not read` };
    if (st.size > maxBytes)
      return { error: `${name} is ${st.size} bytes long, over the limit of ${formatBytes(maxBytes)} per event (--max-line-bytes): it was skipped, not read` };
    // the size the descriptor had: a file written again meanwhile gives what it had then, or less
    const bytes = Buffer.alloc(st.size);
    let at = 0;
    while (at < bytes.length) {
      const { bytesRead } = await handle.read(bytes, at, bytes.length - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return { bytes: bytes.subarray(0, at) };
  } catch (e) {
    return { error: `${name}: cannot read: ${(e as Error).message}` };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

async function readOne(file: string, line: number, sink: FolderSink, maxBytes: number, inside: string | undefined): Promise<void> {
  const read = await readFolderFile(file, maxBytes, inside);
  if ('error' in read) sink.error(line, read.error);
  else sink.record(read.value, line, read.text);
}

/**
 * A file of the folder as check reads it: whole (up to `maxBytes`), decoded as UTF-8 (a byte
 * that is not is an error, never a replacement character), parsed as JSON; its text and
 * value, or the input error check reports for it (naming the file and why). The relay's body
 * sends the same text, so the page parses the very value check does (openhandsConversation.ts).
 */
export async function readFolderFile(file: string, maxBytes: number, inside?: string): Promise<{ text: string; value: unknown } | { error: string }> {
  const name = path.basename(file);
  const read = await readEventFile(file, maxBytes, inside);
  if ('error' in read) return read;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(read.bytes);
  } catch {
    return { error: `${name}: not valid UTF-8: the file holds bytes that are not a UTF-8 encoding` };
  }
  try {
    return { text, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { error: `${name}: ${notJsonMessage(text, e)}` };
  }
}

// Any error is "not one": an events/ that is a link loop (ELOOP) or past PATH_MAX (ENAMETOOLONG)
// threw here, and `check <folder>`'s walk stopped there with no file read (docs/contract.md
// §6.1.1: a file that cannot be read never stops the others). Such a folder is walked as any other.
function isDir(p: string): boolean {
  try {
    return fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}
