// What a session file says about itself, from its first and last bytes only (a bounded read
// whatever the file's size): the agent, the project, the title and the session id. A file
// that changes while it is read (grows, is truncated or replaced) is read again, never
// mixed: the read is kept only when the file's identity, size and mtime are the same after it
// as before (docs/relay.md "Local sessions").
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { LocalAgent } from '../../protocol/localSessions.ts';
import { detectFormat } from '../../ingest/adapters/detect.ts';
import { contentText, requestOf } from '../../ingest/adapters/codexItems.ts';
import { typedText } from '../../ingest/adapters/injectedText.ts';
import { NotRegularFile, openRegularFile } from '../../node/openRegular.ts';

export interface SessionHead {
  agent: LocalAgent;
  project: string | null;
  /** a Gemini CLI project hash, resolved later against the working directories known */
  projectHash: string | null;
  title: string | null;
  sessionId: string | null;
  /** why the file is not a readable session; null when it is */
  problem: string | null;
}

export interface HeadLimits {
  /** bytes read from the start (default 64 KiB) */
  headBytes: number;
  /** bytes read from the end, for titles written later (Claude Code's custom-title; default 16 KiB) */
  tailBytes: number;
}

export const DEFAULT_HEAD_LIMITS: HeadLimits = { headBytes: 64 * 1024, tailBytes: 16 * 1024 };

/** how often a file that keeps changing under the read is tried */
const ATTEMPTS = 3;
const TITLE_CHARS = 200;

export async function readSessionHead(file: string, agent: LocalAgent, limits: HeadLimits = DEFAULT_HEAD_LIMITS): Promise<SessionHead> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await openRegularFile(file);
  } catch (e) {
    return problem(agent, e instanceof NotRegularFile ? `is ${e.message}` : `cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const before = await handle.stat();
      const { head, tail, whole } = await readEnds(handle, before.size, limits);
      const after = await handle.stat();
      let now: fs.Stats | null = null;
      try {
        now = await fs.promises.stat(file);
      } catch {
        // removed while read: what was read is the file as it was
      }
      const replaced = now !== null && (now.ino !== after.ino || now.dev !== after.dev);
      if (after.size === before.size && after.mtimeMs === before.mtimeMs && !replaced) return headOf(file, agent, head, tail, whole);
      if (replaced) {
        await handle.close();
        handle = await openRegularFile(file);
      }
    }
    return problem(agent, 'kept changing while it was read; it is read again at the next look');
  } catch (e) {
    return problem(agent, e instanceof NotRegularFile ? `is ${e.message}` : `cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

async function readEnds(handle: fs.promises.FileHandle, size: number, limits: HeadLimits): Promise<{ head: string; tail: string; whole: boolean }> {
  const headLen = Math.min(size, limits.headBytes);
  const headBuf = Buffer.alloc(headLen);
  const { bytesRead } = await handle.read(headBuf, 0, headLen, 0);
  let head: Buffer = headBuf.subarray(0, bytesRead);
  if (head[0] === 0x1f && head[1] === 0x8b) {
    // a gzipped rollout: its first bytes unpacked, as much as the head's budget
    head = gunzipHead(head, limits.headBytes);
    return { head: head.toString('utf8'), tail: '', whole: false };
  }
  const whole = size <= limits.headBytes;
  let tail = '';
  if (!whole) {
    const from = Math.max(headLen, size - limits.tailBytes);
    const tailBuf = Buffer.alloc(size - from);
    const got = await handle.read(tailBuf, 0, tailBuf.length, from);
    tail = tailBuf.subarray(0, got.bytesRead).toString('utf8');
  }
  return { head: head.toString('utf8'), tail, whole };
}

function gunzipHead(bytes: Buffer, max: number): Buffer {
  try {
    return zlib.gunzipSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: max });
  } catch (e) {
    // past maxOutputLength the unpacked bytes so far are not handed back: unpack less
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      return zlib.gunzipSync(bytes.subarray(0, 4096), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    return Buffer.alloc(0);
  }
}

function headOf(file: string, agent: LocalAgent, head: string, tail: string, whole: boolean): SessionHead {
  if (head.trim() === '') return problem(agent, 'is empty');
  const told = agent === 'unknown' ? tellAgent(head) : agent;
  if (told === 'gemini-cli') return isGeminiLines(head) ? geminiLinesHead(file, completeLines(head, whole)) : geminiHead(file, head, whole);
  if (told === 'unknown') return problem(agent, 'is not a Claude Code, Codex or Gemini CLI session (its first record names no agent)');
  const lines = completeLines(head, whole);
  const tailLines = tail === '' ? [] : completeLines(tail.slice(tail.indexOf('\n') + 1), true);
  const records = parsed(lines);
  if (records.length === 0) return problem(told, `is not JSON lines: ${firstLineWords(head)}`);
  return told === 'claude-code' ? claudeCodeHead(records, parsed(tailLines)) : codexHead(records);
}

/** A --sessions file's agent, by its first record (detect.ts) or, for one JSON document, Gemini CLI's fields. */
function tellAgent(head: string): LocalAgent {
  if (isGeminiLines(head)) return 'gemini-cli';
  const first = head.trimStart();
  if (first.startsWith('{') && /"sessionId"\s*:/.test(head) && /"messages"\s*:\s*\[/.test(head) && /"projectHash"\s*:/.test(head)) return 'gemini-cli';
  const line = first.slice(0, first.indexOf('\n') === -1 ? undefined : first.indexOf('\n'));
  try {
    const format = detectFormat(JSON.parse(line));
    return format === 'claude-code' ? 'claude-code' : format === 'codex' ? 'codex' : 'unknown';
  } catch {
    return 'unknown';
  }
}

type Json = Record<string, unknown>;

/**
 * Claude Code (docs/adapters.md): `cwd` and `sessionId` on every record; the title the user
 * gave (`custom-title`, the last one wins, so the tail is read too), else the session summary
 * Claude Code wrote (`summary`), else the first prompt the user typed.
 */
function claudeCodeHead(records: Json[], tailRecords: Json[]): SessionHead {
  let cwd: string | null = null;
  let sessionId: string | null = null;
  let prompt: string | null = null;
  let summary: string | null = null;
  let custom: string | null = null;
  for (const r of [...records, ...tailRecords]) {
    if (cwd === null && typeof r.cwd === 'string' && r.cwd !== '') cwd = r.cwd;
    if (sessionId === null && typeof r.sessionId === 'string' && r.sessionId !== '') sessionId = r.sessionId;
    if (r.type === 'custom-title' && typeof r.customTitle === 'string' && r.customTitle.trim() !== '') custom = r.customTitle;
    if (r.type === 'summary' && summary === null && typeof r.summary === 'string' && r.summary.trim() !== '') summary = r.summary;
    if (prompt === null && r.type === 'user' && r.isMeta !== true && r.isCompactSummary !== true) prompt = claudePrompt(r);
  }
  return { agent: 'claude-code', project: cwd, projectHash: null, title: clip(custom ?? summary ?? prompt), sessionId, problem: null };
}

function claudePrompt(record: Json): string | null {
  const message = record.message as Json | undefined;
  const content = message?.content;
  let text = '';
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    if (content.some((b) => (b as Json | null)?.type === 'tool_result')) return null;
    text = content
      .filter((b): b is Json => typeof b === 'object' && b !== null && (b as Json).type === 'text' && typeof (b as Json).text === 'string')
      .map((b) => b.text as string)
      .join('\n');
  }
  const typed = typedText(text).trim();
  // a slash command's wrapper (<command-name>…, <local-command-stdout>…) is not a prompt
  if (typed === '' || typed.startsWith('<')) return null;
  return typed;
}

/**
 * Codex (codex-rs protocol RolloutItem): the first line is `session_meta` with the id and the
 * cwd; the user's prompt is an `event_msg` of type `user_message` (the `response_item`
 * user messages also carry the injected environment and AGENTS.md text).
 */
function codexHead(records: Json[]): SessionHead {
  let cwd: string | null = null;
  let sessionId: string | null = null;
  let prompt: string | null = null;
  let userItem: string | null = null;
  for (const r of records) {
    const p = (typeof r.payload === 'object' && r.payload !== null ? r.payload : {}) as Json;
    if (r.type === 'session_meta') {
      if (cwd === null && typeof p.cwd === 'string') cwd = p.cwd;
      if (sessionId === null && typeof p.id === 'string') sessionId = p.id;
    }
    if (prompt === null && r.type === 'event_msg' && p.type === 'user_message' && typeof p.message === 'string' && p.message.trim() !== '') {
      prompt = p.message.trim();
    }
    // older rollouts have no user_message event: the first user message Codex did not inject
    if (userItem === null && r.type === 'response_item' && p.type === 'message' && p.role === 'user') userItem = codexPrompt(contentText(p.content));
  }
  return { agent: 'codex', project: cwd, projectHash: null, title: clip(prompt ?? userItem), sessionId, problem: null };
}

/** A user message's text unless Codex injected it (AGENTS.md, `<environment_context>`…: codexItems.ts); the request after an IDE's context. */
function codexPrompt(text: string): string | null {
  const t = text.trim();
  if (t === '' || /^# AGENTS\.md instructions/.test(t) || t.startsWith('<')) return null;
  return requestOf(t) || null;
}

/**
 * Gemini CLI (gemini-cli chatRecordingService ConversationRecord): one JSON document,
 * `{sessionId, projectHash, startTime, lastUpdated, messages: [{type: 'user' | 'gemini' | …,
 * content}]}`. A file read whole is parsed; past the head's budget its fields are read from
 * the head's text (they come first).
 */
function geminiHead(file: string, head: string, whole: boolean): SessionHead {
  let doc: Json | null = null;
  if (whole) {
    try {
      const v: unknown = JSON.parse(head);
      doc = typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
    } catch {
      return problem('gemini-cli', `is not a JSON document (${firstLineWords(head)}); Gemini CLI may still be writing it`);
    }
    if (doc === null) return problem('gemini-cli', 'is not a Gemini CLI session (not a JSON object)');
  }
  const field = (name: string): string | null => {
    if (doc !== null) return typeof doc[name] === 'string' ? (doc[name] as string) : null;
    const m = new RegExp(`"${name}"\\s*:\\s*"((?:[^"\\\\]|\\\\.){0,400})"`).exec(head);
    return m === null ? null : unescapeJson(m[1]!);
  };
  const sessionId = field('sessionId');
  const projectHash = field('projectHash') ?? path.basename(path.dirname(path.dirname(file)));
  let prompt: string | null = null;
  if (doc !== null && Array.isArray(doc.messages)) {
    const first = doc.messages.find((m): m is Json => typeof m === 'object' && m !== null && (m as Json).type === 'user');
    if (first !== undefined) prompt = geminiText(first.content);
  } else {
    const m = /"type"\s*:\s*"user"\s*,\s*"content"\s*:\s*"((?:[^"\\]|\\.){0,400})"/.exec(head);
    if (m !== null) prompt = unescapeJson(m[1]!);
  }
  if (doc !== null && sessionId === null && !Array.isArray(doc.messages))
    return problem('gemini-cli', 'is not a Gemini CLI session (no sessionId, no messages)');
  return { agent: 'gemini-cli', project: null, projectHash, title: clip(field('summary') ?? prompt), sessionId, problem: null };
}

/** Gemini CLI's JSONL recording: its first line is the session's metadata (sessionId and projectHash, no message). */
function isGeminiLines(head: string): boolean {
  const nl = head.indexOf('\n');
  if (nl === -1) return false;
  try {
    const first = JSON.parse(head.slice(0, nl)) as Json | null;
    return typeof first?.sessionId === 'string' && typeof first.projectHash === 'string' && !('messages' in first);
  } catch {
    return false;
  }
}

/** The JSONL recording: the metadata line, `$set` updates (a summary), message lines `{id, type, content}`. */
function geminiLinesHead(file: string, lines: string[]): SessionHead {
  let sessionId: string | null = null;
  let projectHash: string | null = null;
  let prompt: string | null = null;
  let summary: string | null = null;
  for (const r of parsed(lines)) {
    if (sessionId === null && typeof r.sessionId === 'string') sessionId = r.sessionId;
    if (projectHash === null && typeof r.projectHash === 'string') projectHash = r.projectHash;
    if (typeof r.summary === 'string' && r.summary.trim() !== '') summary = r.summary;
    const set = r.$set as Json | undefined;
    if (typeof set?.summary === 'string' && set.summary.trim() !== '') summary = set.summary;
    if (prompt === null && typeof r.id === 'string' && r.type === 'user') prompt = geminiText(r.content);
  }
  projectHash ??= path.basename(path.dirname(path.dirname(file)));
  return { agent: 'gemini-cli', project: null, projectHash, title: clip(summary ?? prompt), sessionId, problem: null };
}

function geminiText(content: unknown): string | null {
  if (typeof content === 'string') return content.trim() || null;
  if (Array.isArray(content)) {
    const text = content
      .map((p) => (typeof p === 'object' && p !== null && typeof (p as Json).text === 'string' ? ((p as Json).text as string) : ''))
      .join('')
      .trim();
    return text || null;
  }
  return null;
}

function unescapeJson(s: string): string {
  try {
    return JSON.parse(`"${s}"`) as string;
  } catch {
    return s;
  }
}

/** The head's complete lines (the last one only when the file was read whole). */
function completeLines(text: string, whole: boolean): string[] {
  const lines = text.split('\n');
  if (!whole) lines.pop();
  return lines;
}

function parsed(lines: string[]): Json[] {
  const out: Json[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    try {
      const v: unknown = JSON.parse(line);
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) out.push(v as Json);
    } catch {
      // a bad line among good ones: the rest still say what the session is
    }
  }
  return out;
}

/** A row's title: the text on one line, at most TITLE_CHARS characters. */
export function clip(text: string | null): string | null {
  if (text === null) return null;
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > TITLE_CHARS ? `${one.slice(0, TITLE_CHARS - 1)}…` : one;
}

function firstLineWords(text: string): string {
  const line = text.trimStart().split('\n')[0] ?? '';
  return `it starts ${JSON.stringify(line.slice(0, 40))}`;
}

function problem(agent: LocalAgent, why: string): SessionHead {
  return { agent, project: null, projectHash: null, title: null, sessionId: null, problem: why };
}
