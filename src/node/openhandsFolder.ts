// An OpenHands conversation folder as the SDK persists it (openhands-sdk
// conversation/persistence_const.py, event_store.py): `base_state.json` beside an `events/`
// folder of one JSON file per event, `event-<index, 5+ digits>-<event id>.json`. `check` reads
// a folder (the conversation's, or its events/) as that: the state first (it names the
// conversation and holds each call's token usage), then the events in index order
// (docs/adapters.md "OpenHands").
import fs from 'node:fs';
import path from 'node:path';
import { notJsonMessage } from '../core/inputErrors.ts';
import { DEFAULT_MAX_LINE_BYTES, formatBytes } from '../ingest/lines.ts';

/** persistence_const.py EVENT_NAME_RE */
const EVENT_NAME = /^event-(\d{5,})-([0-9a-fA-F-]{8,})\.json$/;

export interface FolderSink {
  /** one parsed file: the state (line 0) or event i (line i + 1) */
  record(value: unknown, line: number): void;
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

/** Reads the folder's files, each whole (bounded by `maxBytes`: an event is small), in the SDK's order. */
export async function readOpenHandsFolder(folder: OpenHandsFolder, sink: FolderSink, maxBytes = DEFAULT_MAX_LINE_BYTES): Promise<number> {
  if (folder.statePath !== null) await readOne(folder.statePath, 0, sink, maxBytes);
  const names = (await fs.promises.readdir(folder.eventsDir))
    .map((name) => ({ name, m: EVENT_NAME.exec(name) }))
    .filter((e): e is { name: string; m: RegExpExecArray } => e.m !== null)
    .sort((a, b) => Number(a.m[1]) - Number(b.m[1]) || (a.name < b.name ? -1 : 1));
  for (let i = 0; i < names.length; i++) await readOne(path.join(folder.eventsDir, names[i]!.name), i + 1, sink, maxBytes);
  return names.length;
}

async function readOne(file: string, line: number, sink: FolderSink, maxBytes: number): Promise<void> {
  const name = path.basename(file);
  let bytes: Buffer;
  try {
    const st = await fs.promises.stat(file);
    if (st.size > maxBytes) {
      sink.error(line, `${name} is ${st.size} bytes long, over the limit of ${formatBytes(maxBytes)} per event (--max-line-bytes): it was skipped, not read`);
      return;
    }
    bytes = await fs.promises.readFile(file);
  } catch (e) {
    sink.error(line, `${name}: cannot read: ${(e as Error).message}`);
    return;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    sink.error(line, `${name}: not valid UTF-8: the file holds bytes that are not a UTF-8 encoding`);
    return;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    sink.error(line, `${name}: ${notJsonMessage(text, e)}`);
    return;
  }
  sink.record(value, line);
}

function isDir(p: string): boolean {
  return fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
}

function isFile(p: string): boolean {
  return fs.statSync(p, { throwIfNoEntry: false })?.isFile() === true;
}
